/**
 * Spec 7.14 "Trusted resolution" table: one named test per row, against the
 * ORIGINAL immutable assignment (the normalizer never sees open/closed state).
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors.ts';
import type { WorkerAssignment } from './assignment.ts';
import { normalizeClaimScope } from './scope.ts';

function assignment(n: number, dispatch = 'd_one'): WorkerAssignment {
  return {
    version: 3,
    dispatch_id: dispatch,
    request_id: 'r1',
    commit_id: 'q1',
    policy_epoch: 'e1',
    pool: 'default',
    worker_profile: 'default',
    claims: Array.from({ length: n }, (_, i) => ({
      handle: `h${i + 1}`, claim_id: `c_${dispatch}_${i + 1}`, work_id: `w${i + 1}`, work: { plan: `task ${i + 1}` }, result_refs: [],
    })),
  };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  return 'accepted';
}

describe('spec 7.14 trusted resolution table', () => {
  it('row 1: one Claim, selector omitted -> attach its sole handle automatically', () => {
    const scope = normalizeClaimScope(assignment(1), { outcome: 'completed' });
    expect(scope).toEqual({ dispatch_id: 'd_one', claim_handle: 'h1', claim_id: 'c_d_one_1', work_id: 'w1', resolution: 'sole' });
  });

  it('row 2: one Claim, correct explicit selector -> preserve that handle', () => {
    const scope = normalizeClaimScope(assignment(1), { claim_handle: 'h1', outcome: 'completed' });
    expect(scope.claim_handle).toBe('h1');
    expect(scope.resolution).toBe('explicit');
  });

  it('row 3: several Claims, valid explicit selector -> preserve that member\'s handle', () => {
    const scope = normalizeClaimScope(assignment(3), { claim_handle: 'h2' });
    expect(scope).toMatchObject({ claim_handle: 'h2', claim_id: 'c_d_one_2', work_id: 'w2', resolution: 'explicit' });
  });

  it('row 4: several Claims, selector omitted -> claim_scope_required', () => {
    expect(codeOf(() => normalizeClaimScope(assignment(3), { outcome: 'completed' }))).toBe('claim_scope_required');
    // "even if only one Claim remains open": the normalizer judges the original array only.
    expect(codeOf(() => normalizeClaimScope(assignment(2), {}))).toBe('claim_scope_required');
  });

  it('row 5: unknown, malformed, foreign or conflicting selector -> claim_scope_invalid, never a fallback', () => {
    const one = assignment(1);
    const three = assignment(3);
    const cases: Array<[string, WorkerAssignment, Record<string, unknown>]> = [
      ['unknown handle', three, { claim_handle: 'h9' }],
      ['unknown handle on a one-Claim assignment', one, { claim_handle: 'h2' }],
      ['null is not an omission', one, { claim_handle: null }],
      ['empty string is not an omission', one, { claim_handle: '' }],
      ['a Claim id is not a handle', one, { claim_handle: 'c_d_one_1' }],
      ['non-string', three, { claim_handle: 2 }],
      ['control characters', three, { claim_handle: 'h1\n' }],
      ['foreign handle (member of another dispatch only)', assignment(2), { claim_handle: 'h3' }],
      ['foreign dispatch named beside a valid handle', three, { claim_handle: 'h1', dispatch_id: 'd_other' }],
      ['conflicting Claim id', three, { claim_handle: 'h1', claim_id: 'c_d_one_2' }],
      ['conflicting Claim id on an omitted single selector', one, { claim_id: 'c_other_1' }],
    ];
    for (const [name, a, message] of cases) {
      expect(codeOf(() => normalizeClaimScope(a, message)), name).toBe('claim_scope_invalid');
    }
  });

  it('row 6: missing or invalid assignment -> worker authorization rejected', () => {
    expect(codeOf(() => normalizeClaimScope(undefined, { outcome: 'completed' }))).toBe('assignment_missing');
    expect(codeOf(() => normalizeClaimScope(null, {}))).toBe('assignment_missing');
    expect(codeOf(() => normalizeClaimScope({ work_id: 'w1', claim_id: 'c1', work: {} }, {}))).toBe('assignment_invalid'); // scalar
    expect(codeOf(() => normalizeClaimScope({ ...assignment(1), claims: [] }, {}))).toBe('assignment_invalid');
    expect(codeOf(() => normalizeClaimScope({ ...assignment(2), claims: [assignment(1).claims[0], assignment(1).claims[0]] }, { claim_handle: 'h1' }))).toBe('assignment_invalid');
    expect(codeOf(() => normalizeClaimScope({ ...assignment(1), version: 2 }, {}))).toBe('assignment_invalid');
  });
});
