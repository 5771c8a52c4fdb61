import { describe, expect, it } from 'vitest';
import type { ReplayState } from '../state/state.ts';
import { eligibility } from './eligibility.ts';
import { lineEligibility, predictLine } from './line.ts';
import { pack } from './pack.ts';
import { planNext } from './plan.ts';
import { buildState, commitPack, policyFor, workId, type PolicySpec, type WorkSpec } from '../../tests/support/scheduler-state.ts';

const AS_OF = 10_000;

/** The grant sequence the real packer produces one Claim at a time, committing each (the replayer's effects). */
function serialGrants(state: ReplayState, max: number): string[] {
  const order: string[] = [];
  for (let i = 0; i < max; i++) {
    const result = pack(state, { requestId: `r${i}`, commitId: `q_r${i}`, pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, AS_OF);
    if (result.claims.length === 0) break;
    commitPack(state, result);
    order.push(result.claims[0]!.work_id);
  }
  return order;
}

function backlog(): WorkSpec[] {
  const specs: WorkSpec[] = [];
  for (let i = 0; i < 12; i++) specs.push({ key: `p3-a-${i}`, priority: 3, account: 'a' });
  for (let i = 0; i < 5; i++) specs.push({ key: `p3-b-${i}`, priority: 3, account: 'b' });
  for (let i = 0; i < 6; i++) specs.push({ key: `p1-${i}`, priority: 2, account: 'a' });
  for (let i = 0; i < 3; i++) specs.push({ key: `p5-${i}`, priority: 5, account: 'b' });
  specs.push({ key: 'later', priority: 5, retryNotBefore: AS_OF + 1 });
  return specs;
}

const SPEC: PolicySpec = { accounting_weights: { '': 1, a: 1, b: 3 }, logical_limit: 1000, native_limit: 1000 };

describe('predictLine (issue 14 §1: the real selector run forward)', () => {
  it('equals the grant sequence of the real packer granting one Claim at a time from the same clocks', () => {
    const state = buildState(policyFor(SPEC), backlog());
    serialGrants(state, 4); // live clocks that are not fresh
    const line = predictLine(state, 'default', AS_OF);
    // The same state built again (the ready index holds class instances structuredClone would strip).
    const twin = buildState(policyFor(SPEC), backlog());
    serialGrants(twin, 4);
    const actual = serialGrants(twin, 100);
    expect(actual.length).toBeGreaterThan(10);
    expect(line.entries.map((e) => e.work_id)).toEqual(actual);
    expect(line.entries).toHaveLength(26 - 4);
    expect(line.entries.map((e) => e.position)).toEqual(line.entries.map((_, i) => i + 1));
    // The time-gated Work is not in the line; the line ends on it.
    expect(line.end).toBe('no_eligible_work');
    expect(line.truncated).toBe(false);
  });

  it('its first entry is planNext (explain) on the live state, and it changes nothing', () => {
    const state = buildState(policyFor(SPEC), backlog());
    serialGrants(state, 3);
    const before = structuredClone(state);
    const line = predictLine(state, 'default', AS_OF, 5);
    const next = planNext(state, 'default', AS_OF);
    expect(next.selected && next.work.workId).toBe(line.entries[0]!.work_id);
    expect(next.explanation.key!.v_after).toBe(line.entries[0]!.key_pass);
    expect(line.entries).toHaveLength(5);
    expect(line.truncated).toBe(true);
    expect(state).toEqual(before);
  });

  it('is not stopped by the pool logical limit or a pause (it assumes running Claims finish), but honours per-key limits', () => {
    const state = buildState(policyFor({ ...SPEC, logical_limit: 2, per_account_limit: 3 }), backlog());
    state.controls.grants_paused = true;
    const line = predictLine(state, 'default', AS_OF);
    expect(line.paused).toBe(true);
    expect(line.logical_limit).toBe(2);
    // Keys a and b each reach their limit of 3 outstanding; '' has only the gated Work.
    expect(line.entries).toHaveLength(6);
    const byKey = new Map<string, number>();
    for (const e of line.entries) byKey.set(e.fairness_key, (byKey.get(e.fairness_key) ?? 0) + 1);
    expect(Object.fromEntries(byKey)).toEqual({ a: 3, b: 3 });
    expect(state.controls.grants_paused).toBe(true);
    expect(planNext(state, 'default', AS_OF).selected).toBe(false);
  });

  it('lineEligibility judges a Work as the line does: a pause or a full pool does not hide its own reason', () => {
    const specs: WorkSpec[] = [
      ...backlog(),
      { key: 'after', priority: 3, account: 'b', dependsOn: [{ kind: 'work', work_id: workId('p3-a-11') }] },
    ];
    const state = buildState(policyFor({ ...SPEC, logical_limit: 2 }), specs);
    serialGrants(state, 2);
    const after = state.works.get(workId('after'))!;
    const later = state.works.get(workId('later'))!;
    // The pool is full: eligibility stops at its capacity; the line, which assumes running Claims finish, sees the dependency.
    expect(eligibility(state, after, AS_OF)).toMatchObject({ eligible: false, reason: 'capacity_blocked' });
    expect(lineEligibility(state, after, AS_OF)).toMatchObject({ eligible: false, reason: 'dependency_wait' });
    state.controls.grants_paused = true;
    expect(eligibility(state, later, AS_OF)).toMatchObject({ eligible: false, reason: 'grants_paused' });
    expect(lineEligibility(state, later, AS_OF)).toMatchObject({ eligible: false, reason: 'retry_delayed' });
    expect(lineEligibility(state, state.works.get(workId('p3-b-4'))!, AS_OF).eligible).toBe(true);
    expect(predictLine(state, 'default', AS_OF).entries.map((e) => e.work_id)).not.toContain(after.workId);
    // Nothing was changed.
    expect(state.controls.grants_paused).toBe(true);
    expect(eligibility(state, after, AS_OF)).toMatchObject({ reason: 'grants_paused' });
  });
});
