import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import type { ReplayState } from '../state/state.ts';
import { accountKey } from '../state/mutate.ts';
import { createOverlay } from './overlay.ts';
import { pack } from './pack.ts';
import { planNext } from './plan.ts';
import type { PlanResult } from './plan-types.ts';
import { buildState, commitPack, complete, nodeKeys, policyFor, workId, type PolicySpec, type WorkSpec } from '../../tests/support/scheduler-state.ts';

const AS_OF = 10_000;

function winner(plan: PlanResult, state: ReplayState): string {
  return plan.selected ? state.works.get(plan.work.workId)!.nodeKey : plan.reason;
}

/** Grant one Claim at a time through the packer and commit it. */
function grantOne(state: ReplayState, i: number): string {
  const result = pack(state, { requestId: `r${i}`, commitId: `q_r${i}`, pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, AS_OF);
  commitPack(state, result);
  return result.claims.length === 1 ? nodeKeys(state, result)[0]! : result.stopReason;
}

describe('planNext', () => {
  it('never mutates its input (deep compare, with and without an overlay)', () => {
    const state = buildState(policyFor({ accounting_weights: { '': 1, t: 2 } }), [
      { key: 'a' },
      { key: 'b', account: 't', priority: 1 },
      { key: 'c', retryNotBefore: AS_OF + 1 },
    ]);
    grantOne(state, 0);
    const before = structuredClone(state);
    const plan = planNext(state, 'default', AS_OF);
    expect(plan.selected).toBe(true);
    expect(state).toEqual(before);
    planNext(state, 'default', AS_OF, createOverlay(state, 'default', AS_OF));
    pack(state, { requestId: 'x', commitId: 'qx', pool: 'default', max_claims: 3, max_dispatches: 3, max_bytes: 49152 }, AS_OF);
    expect(state).toEqual(before);
  });

  it('FIFO within a bucket skips ineligible heads without removing them', () => {
    const state = buildState(policyFor(), [
      { key: 'blocked', retryNotBefore: AS_OF + 5 },
      { key: 'first' },
      { key: 'second' },
    ]);
    const plan = planNext(state, 'default', AS_OF);
    expect(winner(plan, state)).toBe('first');
    expect(plan.explanation.work?.bucket_position).toBe(1);
    expect(plan.explanation.eligibility.skipped).toEqual({ retry_delayed: 1 });
    expect(winner(planNext(state, 'default', AS_OF + 5), state)).toBe('blocked');
  });

  it('no-grant precedence: grants_paused, capacity_blocked, no_work, no_eligible_work', () => {
    const empty = buildState(policyFor());
    expect(winner(planNext(empty, 'default', AS_OF), empty)).toBe('no_work');
    empty.controls.grants_paused = true;
    expect(winner(planNext(empty, 'default', AS_OF), empty)).toBe('grants_paused');
    const waiting = buildState(policyFor(), [{ key: 'a', retryNotBefore: AS_OF + 1 }]);
    expect(winner(planNext(waiting, 'default', AS_OF), waiting)).toBe('no_eligible_work');
    waiting.outstandingClaims.set('default', 16);
    expect(winner(planNext(waiting, 'default', AS_OF), waiting)).toBe('capacity_blocked');
    const claimedOnly = buildState(policyFor(), [{ key: 'a', state: 'claimed' }]);
    expect(winner(planNext(claimedOnly, 'default', AS_OF), claimedOnly)).toBe('no_work');
  });

  it('explains a sole default bucket as fifo_default with capacity before/after', () => {
    const state = buildState(policyFor(), [{ key: 'a' }, { key: 'b' }]);
    const plan = planNext(state, 'default', AS_OF);
    expect(plan.explanation).toMatchObject({
      source_tip: 'q0',
      policy_epoch: 'epoch1',
      outcome: 'selected',
      reason: 'fifo_default',
      eligibility: { available: 2, buckets: 1, eligible_buckets: 1 },
      class: { selected: '3', v_before: '0', v_after: '4', candidates: [{ member: '3', pass: '4', stride: '4', entering: true }] },
      key: { priority: 3, selected: '', v_before: '0', v_after: '1' },
      work: { node_key: 'a', position: { ordinal: 1, operation: 0 }, bucket_position: 0 },
      capacity: { logical_before: 0, logical_after: 1, logical_limit: 16, account_before: 0, account_after: 1, native_limit: 16 },
    });
  });

  it('explains weighted_class, weighted_key and priority_class decisions', () => {
    const two = buildState(policyFor(), [{ key: 'a', priority: 1 }, { key: 'b', priority: 2 }]);
    expect(planNext(two, 'default', AS_OF).explanation.reason).toBe('weighted_class');
    const keys = buildState(policyFor({ accounting_weights: { '': 1, t: 1 } }), [{ key: 'a' }, { key: 'b', account: 't' }]);
    expect(planNext(keys, 'default', AS_OF).explanation.reason).toBe('weighted_key');
    const strict = buildState(policyFor({ mode: 'strict-priority' }), [{ key: 'a', priority: 4 }, { key: 'b', priority: 2 }]);
    const plan = planNext(strict, 'default', AS_OF);
    expect(winner(plan, strict)).toBe('b');
    expect(plan.explanation.reason).toBe('priority_class');
    expect(plan.explanation.class).toMatchObject({ selected: '2', v_before: '0', v_after: '0' });
  });

  it('500 and 10 Work of equal-weight keys get equal turns while both are eligible', () => {
    const specs: WorkSpec[] = [];
    for (let i = 0; i < 500; i++) specs.push({ key: `big${i}`, account: 'big' });
    for (let i = 0; i < 10; i++) specs.push({ key: `small${i}`, account: 'small' });
    const state = buildState(policyFor({ accounting_weights: { '': 1, big: 1, small: 1 }, logical_limit: 4096, native_limit: 4096 }), specs);
    const turns = Array.from({ length: 30 }, (_, i) => grantOne(state, i));
    const first20 = turns.slice(0, 20).map((k) => k.replace(/\d+$/, ''));
    expect(first20.filter((k) => k === 'big')).toHaveLength(10);
    expect(first20.filter((k) => k === 'small')).toHaveLength(10);
    expect(turns.slice(20).every((k) => k.startsWith('big'))).toBe(true); // small drained; no credit needed
  });

  it('a completed predecessor with a verified Result releases its successor', () => {
    const state = buildState(policyFor(), [{ key: 'p' }, { key: 'c', dependsOn: [{ kind: 'work', work_id: workId('p') }] }]);
    expect(grantOne(state, 0)).toBe('p');
    expect(grantOne(state, 1)).toBe('no_eligible_work');
    complete(state, 'p', 'pending');
    expect(grantOne(state, 2)).toBe('no_eligible_work');
    complete(state, 'p', 'verified');
    expect(grantOne(state, 3)).toBe('c');
  });

  it('per-account limits block only that key’s bucket', () => {
    const state = buildState(policyFor({ accounting_weights: { '': 1, t: 1 }, per_account_limit: 1 }), [
      { key: 't1', account: 't' },
      { key: 't2', account: 't' },
      { key: 'd1' },
    ]);
    state.outstandingByKey.set(accountKey('default', 't'), 1);
    const plan = planNext(state, 'default', AS_OF);
    expect(winner(plan, state)).toBe('d1');
    expect(plan.explanation.eligibility.blocked_buckets).toBe(1);
  });

  it('unknown pools and missing policies fail with stable codes', () => {
    const state = buildState(policyFor());
    const code = (run: () => unknown) => {
      try {
        run();
        return 'none';
      } catch (e) {
        return isProtocolError(e) ? e.code : 'other';
      }
    };
    expect(code(() => planNext(state, 'nope', AS_OF))).toBe('pool_invalid');
    state.policy = null;
    expect(code(() => planNext(state, 'default', AS_OF))).toBe('policy_missing');
  });

  it('a packed prefix equals the same number of committed single grants (overlay ≡ commit)', () => {
    const work = fc.record({
      priority: fc.integer({ min: 1, max: 5 }),
      account: fc.constantFrom('', 'a', 'b', 'é', '\u{10000}'),
      delayed: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(work, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 30 }), fc.constantFrom<PolicySpec['mode']>('weighted-priority', 'strict-priority'), (works, k, mode) => {
        const policy = policyFor({ mode, accounting_weights: { '': 1, a: 3, b: 2, é: 1, '\u{10000}': 5 }, logical_limit: 20, per_account_limit: 8 });
        const specs = works.map((w, i) => ({ key: `w${i}`, priority: w.priority, account: w.account, retryNotBefore: w.delayed ? AS_OF + 1 : null }));
        const packed = buildState(policy, specs);
        const result = pack(packed, { requestId: 'batch', commitId: 'qb', pool: 'default', max_claims: k, max_dispatches: 256, max_bytes: 49152 }, AS_OF);
        const single = buildState(policy, specs);
        const one: string[] = [];
        for (let i = 0; i < result.claims.length; i++) one.push(grantOne(single, i));
        expect(nodeKeys(packed, result)).toEqual(one);
        commitPack(packed, result);
        expect(packed.fairness).toEqual(single.fairness);
        const after = planNext(packed, 'default', AS_OF);
        const next = planNext(single, 'default', AS_OF);
        expect(winner(after, packed)).toBe(winner(next, single));
      }),
      { numRuns: 80 },
    );
  });
});
