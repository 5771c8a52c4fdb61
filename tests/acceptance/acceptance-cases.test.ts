/**
 * Spec §8.2 "Required automated acceptance cases": the scheduler rows, each
 * test named after its row. Ledgers are built by the request builders and
 * validated by replay (tests/acceptance/queue.ts), so every grant is the real
 * packer's fair prefix and every ledger replays cold.
 */
import { describe, expect, it } from 'vitest';
import { explainWork } from '../../cli/commands/explain.ts';

import { clockView } from '../../engine/scheduler/clocks.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import { simulate } from '../../engine/scheduler/simulate.ts';
import type { WorkerProfile } from '../../engine/schema/index.ts';
import { nodes, policyOf, REPOSITORY, TestQueue, verdict } from './queue.ts';
import { replayBytes } from '../support/bytes.ts';
import { TEST_WORKER_REF } from '../support/worker-workflow.ts';

/** The fairness-key letter of each granted node key (`b2-7` → `b`). */
const prefixes = (keys: string[]) => keys.map((k) => /^[a-z]+/.exec(k)![0]).join('');

describe('§8.2 Strict priority: no lower-class grant while a higher class is eligible', () => {
  it('the explicit starvation trace (ledger): class 5 waits while class 1 stays eligible, then is served', () => {
    const q = new TestQueue(policyOf({ mode: 'strict-priority', accounting_weights: { hot: 1, cold: 1 } }), [
      ...nodes('hot', 3, 'hot', 1),
      ...nodes('cold', 2, 'cold', 5),
    ]);
    const trace: string[] = [];
    const reasons: string[] = [];
    const step = () => {
      const plan = q.grant();
      trace.push(...q.keys(plan));
      reasons.push(plan.explanations[0]!.reason);
    };
    for (let i = 0; i < 3; i++) step();
    // Still hot: a producer keeps class 1 eligible; the class-5 Work keeps waiting.
    q.submit(nodes('hot2', 3, 'hot', 1));
    const cold = explainWork(replayBytes(q.text()), 'default', q.workId('cold-1'), q.t);
    expect(cold.eligible).toBe(true);
    expect(cold.reason).toBe('priority_class');
    expect(cold.next.work?.node_key).toBe('hot2-1');
    for (let i = 0; i < 5; i++) step();
    expect(trace).toEqual(['hot-1', 'hot-2', 'hot-3', 'hot2-1', 'hot2-2', 'hot2-3', 'cold-1', 'cold-2']);
    expect(reasons).toEqual(['priority_class', 'priority_class', 'priority_class', 'priority_class', 'priority_class', 'priority_class', 'fifo_default', 'fifo_default']);
  });

  it('starvation in the share table (simulate): class 5 gets nothing and its zero-service run spans every decision', () => {
    const r = simulate({ mode: 'strict-priority' }, { nodes: [{ key: '', priority: 1, count: 1000 }, { key: '', priority: 5, count: 1000 }] }, 1000);
    const c5 = r.shares.find((s) => s.level === 'class' && s.priority === 5)!;
    expect(r.grants.every((g) => g.priority === 1)).toBe(true);
    expect(c5).toMatchObject({ grants: 0, target_share: 0, actual_share: 0, longest_zero_service: 1000 });
    // Weighted mode with the same backlog serves class 5 its 1/9 share (8:1).
    const w = simulate({ class_weights: [8, 4, 2, 1, 1] }, { nodes: [{ key: '', priority: 1, count: 1000 }, { key: '', priority: 5, count: 1000 }] }, 900);
    expect(w.shares.find((s) => s.level === 'class' && s.priority === 5)!.grants).toBe(100);
  });
});

describe('§8.2 Eligibility versus packing', () => {
  const profile = (max: number): WorkerProfile => ({
    credential_scope: 'repository', effect_scope: REPOSITORY, max_claims: max, principal: '1001', ref: TEST_WORKER_REF,
    share_keys: false, trust_domain: 'default', workflow: '.github/workflows/worker.lock.yml',
  });
  const xyx = () => new TestQueue(policyOf({}, { profiles: { X: profile(16), Y: profile(16) }, defaultProfile: 'X' }), [
    { node_key: 'X1', payload: { t: 1 }, worker_profile: 'X' },
    { node_key: 'Y1', payload: { t: 2 }, worker_profile: 'Y' },
    { node_key: 'X2', payload: { t: 3 }, worker_profile: 'X' },
  ]);

  it('X/Y/X under a one-dispatch request admits only the first X; a rejected Y changes no clocks, active sets, charges, or reservations', () => {
    const q = xyx();
    const plan = q.grant({ max_claims: 3, max_dispatches: 1 });
    expect(q.keys(plan)).toEqual(['X1']);
    expect(plan.stopReason).toBe('dispatch_budget_blocked');
    expect(plan.explanations[1]!.work?.node_key).toBe('Y1'); // the next fair winner, not skipped for X2

    // Reference: the same queue granting exactly one Claim.
    const ref = xyx();
    expect(ref.keys(ref.grant({ max_claims: 1, max_dispatches: 1 }))).toEqual(['X1']);
    expect(clockView(q.state.fairness, 'default')).toEqual(clockView(ref.state.fairness, 'default')); // passes, V and active sets
    expect([...q.state.outstandingClaims]).toEqual([['default', 1]]);
    expect([...q.state.outstandingByKey]).toEqual([...ref.state.outstandingByKey]);
    expect([...q.state.outstandingNative]).toEqual([['default', 1]]);
    expect(q.state.claims.size).toBe(1);

    // Y is still the next winner, and it gets its own dispatch.
    const next = q.grant({ max_claims: 3, max_dispatches: 1 });
    expect(q.keys(next)).toEqual(['Y1']);
    expect(next.stopReason).toBe('dispatch_budget_blocked');
  });

  it('with two dispatches the same request packs X1 and Y1, still never X2 before Y1', () => {
    const q = xyx();
    const plan = q.grant({ max_claims: 3, max_dispatches: 2 });
    expect(q.keys(plan)).toEqual(['X1', 'Y1', 'X2']); // X2 joins X1's group, after Y1 in grant order
    expect(plan.groups.map((g) => g.claim_ids.length)).toEqual([2, 1]);
  });
});

describe('§8.2 FIFO within a bucket', () => {
  it('first accepted eligible Work wins by causal commit/operation position; a backdated `enqueued` cannot overtake', () => {
    const future = 9_000_000_000_000;
    const q = new TestQueue(policyOf(), [
      { node_key: 'A', payload: { t: 'A' }, enqueued: future },
      { node_key: 'B', payload: { t: 'B' }, enqueued: future - 1 },
    ]);
    q.submit([{ node_key: 'C', payload: { t: 'C' }, enqueued: 0 }, { node_key: 'D', payload: { t: 'D' }, enqueued: 0 }]);
    const e = planNext(q.state, 'default', q.t);
    expect(e.selected && e.explanation).toMatchObject({ reason: 'fifo_default', work: { node_key: 'A', position: { ordinal: 0, operation: 1 } } });
    expect(q.grants(4)).toEqual(['A', 'B', 'C', 'D']);
  });

  it('claimed and blocked Work does not block an independent eligible Work behind it', () => {
    const q = new TestQueue(policyOf(), [
      { node_key: 'A', payload: {} },
      { node_key: 'B', payload: {}, depends_on: [{ kind: 'work', node_key: 'A' }] },
      { node_key: 'C', payload: {} },
    ]);
    expect(q.grants(1)).toEqual(['A']);
    const plan = q.grant();
    expect(q.keys(plan)).toEqual(['C']);
    expect(plan.explanations[0]!.eligibility.skipped).toEqual({ dependency_wait: 1 });
    expect(plan.explanations[0]!.work?.bucket_position).toBe(1);
  });
});

describe('§8.2 Dynamics: join, empty/refill, cap/release and retry-delay transitions preserve the debt rules', () => {
  it('join: a key joining after 10 single-key grants alternates with it; no catch-up burst', () => {
    const q = new TestQueue(policyOf({ concurrency: 4096, accounting_weights: { a: 1, b: 1 } }), nodes('a', 40, 'a'));
    expect(prefixes(q.grants(10))).toBe('a'.repeat(10));
    q.submit(nodes('b', 20, 'b'));
    expect(prefixes(q.grants(8))).toBe('abababab');
  });

  it('empty/refill: a key that emptied re-enters at the current virtual time; no idle credit', () => {
    const q = new TestQueue(policyOf({ concurrency: 4096, accounting_weights: { a: 1, b: 1 } }), [...nodes('a', 40, 'a'), ...nodes('b', 1, 'b')]);
    expect(prefixes(q.grants(12))).toBe('ab' + 'a'.repeat(10));
    q.submit(nodes('b2', 20, 'b'));
    const plan = q.grant();
    const key = plan.explanations[0]!.key!;
    const b = key.candidates.find((c) => c.member === 'b')!;
    expect(b.entering).toBe(true);
    expect(BigInt(b.pass)).toBe(BigInt(key.v_before) + BigInt(b.stride)); // the clamp: max(old P, V + stride)
    expect(prefixes([...q.keys(plan), ...q.grants(7)])).toBe('abababab');
  });

  it('cap/release: a key at its per-key Claim limit is ineligible and re-enters clamped after release; no burst', () => {
    const q = new TestQueue(policyOf({ concurrency: 4096, accounting_weights: { a: 1, b: 1 }, pools: { default: { per_account_limit: 1 } } }), [
      ...nodes('a', 10, 'a'),
      ...nodes('b', 20, 'b'),
    ]);
    expect(q.grants(1)).toEqual(['a-1']); // a now holds its one allowed Claim
    const trace: string[] = [];
    for (let i = 0; i < 5; i++) {
      const plan = q.grant();
      expect(plan.explanations[0]!.eligibility.blocked_buckets).toBe(1);
      const [k] = q.keys(plan);
      trace.push(k!);
      q.complete(k!);
    }
    expect(prefixes(trace)).toBe('bbbbb');
    const blocked = eligibility(q.state, q.state.works.get(q.workId('a-2'))!, q.t);
    expect(blocked.eligible === false && blocked.reason).toBe('account_capacity_blocked');
    q.complete('a-1'); // release the cap
    const after: string[] = [];
    for (let i = 0; i < 8; i++) {
      const [k] = q.keys(q.grant());
      after.push(k!);
      q.complete(k!);
    }
    expect(prefixes(after)).toBe('abababab'); // without the clamp a would take 5 in a row
  });

  it('retry delay: a cancelled Claim\'s Work waits out its backoff, others are served, and it re-enters clamped', () => {
    const q = new TestQueue(policyOf({ concurrency: 64, accounting_weights: { a: 1, b: 1 }, retry: { backoff_seconds: 60 } }), [
      ...nodes('a', 1, 'a'),
      ...nodes('b', 20, 'b'),
    ]);
    expect(q.grants(1)).toEqual(['a-1']);
    q.cancel('a-1');
    const a1 = q.state.works.get(q.workId('a-1'))!;
    expect(a1.state).toBe('available');
    expect(a1.retryNotBefore).toBe(q.t + 60_000);
    const during: string[] = [];
    for (let i = 0; i < 4; i++) {
      const plan = q.grant();
      expect(plan.explanations[0]!.eligibility.skipped).toEqual({ retry_delayed: 1 });
      during.push(...q.keys(plan));
    }
    expect(prefixes(during)).toBe('bbbb');
    const why = explainWork(replayBytes(q.text()), 'default', a1.workId, q.t);
    expect(why).toMatchObject({ reason: 'retry_delayed', eligible: false });
    expect(why.blocking_path[0]).toMatchObject({ kind: 'work', reason: 'retry_delayed', work_id: a1.workId });

    q.tick(60_000); // the backoff has passed
    const plan = q.grant();
    const key = plan.explanations[0]!.key!;
    const a = key.candidates.find((c) => c.member === 'a')!;
    expect(a.entering).toBe(true);
    expect(BigInt(a.pass)).toBe(BigInt(key.v_before) + BigInt(a.stride)); // no credit for the delay
    expect([...q.keys(plan), ...q.grants(3)]).toEqual(['a-1', 'b-5', 'b-6', 'b-7']);
    expect(q.state.works.get(a1.workId)!.attempts).toBe(2);
  });

  it('every ledger written above replays cold (the acceptance ledgers are valid)', () => {
    const q = new TestQueue(policyOf({ accounting_weights: { a: 1, b: 1 } }), [...nodes('a', 3, 'a'), ...nodes('b', 3, 'b')]);
    q.grants(3);
    q.complete('a-1');
    expect(verdict(q.text())).toBe('accepted');
  });
});
