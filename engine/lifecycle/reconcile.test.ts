import { describe, expect, it } from 'vitest';
import { budgetExhausted, decideUnbound, unresolvedCode, type Candidate } from './reconcile.ts';
import { titleNames, titleToken, workflowFile, type NativeRunFacts } from './run-identity.ts';

function run(id: string, status: string | null = 'in_progress'): NativeRunFacts {
  return {
    run_id: id, run_attempt: 1, repository: 'a/b', workflow_path: '.github/workflows/w.yml', head_sha: 'a'.repeat(40), event: 'workflow_dispatch',
    actor_id: '1', triggering_actor_id: '1', display_title: 'worker [d_x_1]', status, conclusion: status === 'completed' ? 'cancelled' : null,
  };
}
const c = (id: string, o: Partial<Candidate> = {}): Candidate => ({ run: run(id), mismatches: [], reported: false, ...o });

describe('decideUnbound (spec 7.8 bounded reconciliation)', () => {
  it('binds exactly one valid possible launch', () => {
    expect(decideUnbound([c('5')])).toEqual({ action: 'bind', runId: '5' });
  });
  it('several possible launches are a binding conflict, even when one is invalid', () => {
    expect(decideUnbound([c('5'), c('6')])).toEqual({ action: 'conflict', runIds: ['5', '6'] });
    expect(decideUnbound([c('5'), c('6', { mismatches: ['run_ref_mismatch'] })])).toMatchObject({ action: 'conflict' });
  });
  it('a title match launched by another principal is not a possible launch', () => {
    expect(decideUnbound([c('5'), c('6', { mismatches: ['run_principal_mismatch'] })])).toMatchObject({ action: 'bind', runId: '5' });
  });
  it('no candidate proves nothing', () => {
    expect(decideUnbound([])).toEqual({ action: 'none' });
  });
  it('a response-named run with a second run carrying the same dispatch id is a binding conflict: neither binds', () => {
    expect(decideUnbound([c('5', { reported: true }), c('6')])).toEqual({ action: 'conflict', runIds: ['5', '6'] });
    expect(decideUnbound([c('5', { reported: true, run: run('5', 'completed') }), c('6')])).toEqual({ action: 'conflict', runIds: ['5', '6'] });
    expect(decideUnbound([c('5', { reported: true, mismatches: ['run_ref_mismatch'] }), c('6')])).toEqual({ action: 'conflict', runIds: ['5', '6'] });
    // A title match launched by another principal is still not a possible launch.
    expect(decideUnbound([c('5', { reported: true }), c('6', { mismatches: ['run_principal_mismatch'] })])).toEqual({ action: 'bind', runId: '5' });
  });
  it('the run a response named alone decides; a terminated run that cannot bind never releases the unbound group', () => {
    expect(decideUnbound([c('5', { reported: true })])).toEqual({ action: 'bind', runId: '5' });
    expect(decideUnbound([c('5', { reported: true, run: run('5', 'completed') })])).toMatchObject({ action: 'bind', runId: '5' });
    expect(decideUnbound([c('5', { reported: true, mismatches: ['run_ref_mismatch'], run: run('5', 'completed') })])).toEqual({ action: 'invalid', runId: '5', mismatches: ['run_ref_mismatch'] });
    expect(decideUnbound([c('5', { reported: true, mismatches: ['run_ref_mismatch'] })])).toMatchObject({ action: 'invalid' });
  });
  it('the budget ends on attempts or the deadline from the start marker, whichever first', () => {
    const b = { polls: 1, maxAttempts: 5, now: 1000, startedAt: 0, deadlineMs: 300_000 };
    expect(budgetExhausted(b)).toBe(false);
    expect(budgetExhausted({ ...b, polls: 5 })).toBe(true);
    expect(budgetExhausted({ ...b, now: 300_000 })).toBe(true);
  });
});

describe('run title correlation', () => {
  it('matches the complete delimited dispatch id, never a prefix of another', () => {
    expect(titleNames('worker [d_abc_1]', 'd_abc_1')).toBe(true);
    expect(titleNames('worker [d_abc_12]', 'd_abc_1')).toBe(false);
    expect(titleNames('worker d_abc_1', 'd_abc_1')).toBe(false);
    expect(() => titleToken('d]x')).toThrow();
  });
  it('normalizes reported workflow paths', () => {
    expect(workflowFile('.github/workflows/w.yml', 'a/b')).toBe('.github/workflows/w.yml');
    expect(workflowFile('a/b/.github/workflows/w.yml@refs/heads/main', 'a/b')).toBe('.github/workflows/w.yml');
  });
});

describe('unresolvedCode (spec 7.18: launch_unresolved or unavailable evidence, not success)', () => {
  it('an unresolved launch wins over unavailable evidence; settled, running and reserved groups are no failure', () => {
    expect(unresolvedCode(['released', 'already_released', 'running', 'reserved'])).toBeNull();
    expect(unresolvedCode([])).toBeNull();
    for (const o of ['launch_unresolved', 'run_binding_conflict', 'run_identity_invalid']) expect(unresolvedCode(['running', o, 'evidence_unavailable'])).toBe('launch_unresolved');
    expect(unresolvedCode(['released', 'evidence_unavailable'])).toBe('evidence_unavailable');
  });
});
