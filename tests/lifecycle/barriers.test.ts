/**
 * Per-Claim settlement and delivery barriers (spec 7.14, 7.15; §8.2 "Mixed terminal
 * outcomes", "Result barrier", "Delivery failure"): the DAG, not batch success, decides
 * continuation; Completion alone never unblocks a successor; recovery republishes the same
 * Result from the same receipts without rerunning effects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { workId } from '../../engine/identity/index.ts';
import { replacementRequest } from '../../engine/lifecycle/replacement.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { settleDelivery } from '../../lib/lifecycle/delivery.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { claimOf, countOps, createBench, finish, launchAndActivate, receipts, type Bench } from './harness.ts';

let bench: Bench;
afterEach(async () => bench?.close());

const W = (key: string) => workId('g', key);

describe('mixed terminal outcomes', () => {
  it('the mixed assignment [c1 completed, c2 cancelled, c3 completed] releases a join on c1+c3 while a c2-dependent waits', async () => {
    bench = await createBench({
      maxClaims: 3,
      nodes: [
        { node_key: 'A', payload: { plan: 'a' } },
        { node_key: 'B', payload: { plan: 'b' } },
        { node_key: 'C', payload: { plan: 'c' } },
        { node_key: 'J', payload: { plan: 'join a+c' }, depends_on: [{ kind: 'work', node_key: 'A' }, { kind: 'work', node_key: 'C' }] },
        { node_key: 'K', payload: { plan: 'needs b' }, depends_on: [{ kind: 'work', node_key: 'B' }] },
      ],
    });
    const [d] = await bench.grant('g1', 3);
    let p = await bench.projection();
    expect(p.dispatch(d!)!.claimIds).toHaveLength(3);
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    await finish(bench, d!, 'h2', 'cancelled', run);
    await finish(bench, d!, 'h3', 'completed', run);
    p = await bench.projection();
    const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
    for (const h of ['h1', 'h3']) {
      const c = claimOf(p, d!, h);
      const r = await settleDelivery(deps, { claimId: c, receipts: receipts(d!, c, run) });
      expect(r.outcome).toBe('result');
    }
    setRunStatus(bench.fake.state, run, 'completed', 'success');
    const rec = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(rec.outcome).toBe('released');
    p = await bench.replayValid();
    expect(countOps(p, 'ClaimCancellation')).toBe(1); // only c2, by the worker itself; the release cancels nothing more
    expect(p.claim(claimOf(p, d!, 'h1'))!.state).toBe('completed');
    expect(p.claim(claimOf(p, d!, 'h3'))!.state).toBe('completed');
    const at = bench.clock.t;
    expect(eligibility(p.state, p.work(W('J'))!, at)).toMatchObject({ eligible: true });
    const k = eligibility(p.state, p.work(W('K'))!, at);
    expect(k).toMatchObject({ eligible: false, reason: 'dependency_wait' });
    // B is available again with its original position, after trusted backoff.
    expect(p.work(W('B'))!.state).toBe('available');
    const [d2] = await bench.grant('g2', 1);
    const next = await bench.replayValid();
    expect(next.claim(next.dispatch(d2!)!.claimIds[0]!)!.workId).toBe(W('J'));
  });
});

describe('result barrier', () => {
  it('a completion without verified delivery never unblocks a successor', async () => {
    bench = await createBench({
      nodes: [
        { node_key: 'A', payload: { plan: 'a', effect_contract: { version: 1, outputs: [{ type: 'create_issue', min: 1, max: 1 }] } } },
        { node_key: 'J', payload: { plan: 'after a' }, depends_on: [{ kind: 'work', node_key: 'A' }] },
      ],
    });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    const p0 = await bench.projection();
    const c = claimOf(p0, d!, 'h1');
    const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
    // The worker says it is done, but no receipt: pending, successor waits.
    let r = await settleDelivery(deps, { claimId: c, receipts: null });
    expect(r).toMatchObject({ outcome: 'pending', effects: 'unknown' });
    let p = await bench.projection();
    expect(eligibility(p.state, p.work(W('J'))!, bench.clock.t)).toMatchObject({ eligible: false, reason: 'dependency_result_unavailable' });
    // A receipt with the declared output failed: still not a Result; run not terminal: pending.
    r = await settleDelivery(deps, { claimId: c, receipts: receipts(d!, c, run, [{ type: 'create_issue', status: 'failed' }]) });
    expect(r).toMatchObject({ outcome: 'pending', reason: 'delivery_unverified:output_failed' });
    // Terminal run but the reconciliation budget is not exhausted: still pending.
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    r = await settleDelivery(deps, { claimId: c, receipts: null });
    expect(r).toMatchObject({ outcome: 'pending', reason: 'reconciliation_pending' });
    // After the deadline from the Completion: a guarded DeliveryFailure, effects unknown.
    bench.clock.t += 300_000;
    r = await settleDelivery(deps, { claimId: c, receipts: null });
    expect(r).toMatchObject({ outcome: 'delivery_failure', effects: 'unknown' });
    p = await bench.replayValid();
    expect(p.work(W('A'))!.barrier).toBe('failed');
    expect(eligibility(p.state, p.work(W('J'))!, bench.clock.t)).toMatchObject({ eligible: false, reason: 'dependency_delivery_failed' });
    // Late contradictory evidence is a diagnostic, never a rewrite.
    const late = await settleDelivery(deps, { claimId: c, receipts: receipts(d!, c, run, [{ type: 'create_issue', status: 'succeeded' }]) });
    expect(late.outcome).toBe('already_failed');
    expect(countOps(await bench.replayValid(), 'Result')).toBe(0);
    // An approved replacement is a new node; the old successor's edge stays on the failed one.
    await bench.publisher.publish({
      requestId: 'replace-a', actor: { role: 'producer', principal: bench.dispatcher.principal, repository: bench.dispatcher.repository }, now: bench.now,
      prepare: (pr, ids) => replacementRequest(pr.state, { failedWorkId: W('A'), node_key: 'A-fix', payload: { plan: 'inspect and remediate' }, disposition: 'inspection', evidence: 'remediation-review-1' }, ids.at),
    });
    p = await bench.replayValid();
    const replacement = p.work(W('A-fix'))!;
    const failed = p.work(W('A'))!;
    expect(replacement).toMatchObject({ pool: failed.pool, priority: failed.priority, fairnessKey: failed.fairnessKey, state: 'available' });
    expect(replacement.fifo).toBeGreaterThan(p.work(W('J'))!.fifo);
    expect(eligibility(p.state, p.work(W('J'))!, bench.clock.t)).toMatchObject({ eligible: false, reason: 'dependency_delivery_failed' });
  });

  it('recovery publishes the same Result without rerunning effects', async () => {
    bench = await createBench({
      nodes: [{ node_key: 'A', payload: { plan: 'a', effect_contract: { version: 1, outputs: [{ type: 'create_issue', min: 1, max: 1 }] } } }],
    });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    // The worker crashed after Completion, before its Result; its run then ended.
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    expect((await reconcileDispatch(bench.reconcileDeps(), d!)).outcome).toBe('released');
    const p0 = await bench.projection();
    const c = claimOf(p0, d!, 'h1');
    const evidence = receipts(d!, c, run, [{ type: 'create_issue', status: 'succeeded', ref: 'acme/queue#12' }]);
    const requestsBefore = bench.fake.requests.length;
    const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
    const first = await settleDelivery(deps, { claimId: c, receipts: evidence });
    expect(first.outcome).toBe('result');
    bench.clock.t += 1000;
    const again = await settleDelivery(deps, { claimId: c, receipts: evidence });
    expect(again).toMatchObject({ outcome: 'already_verified', commit_id: first.commit_id });
    // Verification read only the ledger and the receipts: no GitHub write was replayed.
    expect(bench.fake.requests.slice(requestsBefore).filter((r) => r.method !== 'GET')).toEqual([]);
    const p = await bench.replayValid();
    expect(countOps(p, 'Result')).toBe(1);
    expect(p.work(W('A'))!.barrier).toBe('verified');
    const descriptor = (JSON.parse(p.commitText(first.commit_id!)!) as { operations: Array<{ descriptor: unknown }> }).operations[0]!.descriptor;
    expect(descriptor).toMatchObject({ run_id: run, outputs: [{ type: 'create_issue', ref: 'acme/queue#12' }] });
    // A different descriptor for the same barrier is an explicit conflict diagnostic.
    const conflict = await settleDelivery(deps, { claimId: c, receipts: evidence, descriptor: { other: true } });
    expect(conflict.outcome).toBe('result_conflict');
  });
});

describe('retry policy', () => {
  it('retry backoff and attempt exhaustion follow the contract', async () => {
    bench = await createBench({ nodes: [{ node_key: 'A', payload: { plan: 'flaky' } }] });
    const backoff = 30_000; // contract defaults: retry_max_attempts 3, retry_backoff_ms 30000
    // Attempt 1: the worker cancels its own Claim.
    const [d1] = await bench.grant('g1');
    const run1 = await launchAndActivate(bench, d1!);
    const at1 = bench.clock.t;
    await finish(bench, d1!, 'h1', 'cancelled', run1);
    let p = await bench.projection();
    expect(p.work(W('A'))!.retryNotBefore).toBe(at1 + backoff);
    expect(eligibility(p.state, p.work(W('A'))!, at1 + backoff - 1)).toMatchObject({ eligible: false, reason: 'retry_delayed' });
    expect(eligibility(p.state, p.work(W('A'))!, at1 + backoff)).toMatchObject({ eligible: true });
    // Attempt 2: the run dies without a finish; terminal recovery cancels with the same anchor.
    bench.clock.t = at1 + backoff;
    const [d2] = await bench.grant('g2');
    const run2 = await launchAndActivate(bench, d2!);
    setRunStatus(bench.fake.state, run2, 'completed', 'failure');
    bench.clock.t += 5;
    const at2 = bench.clock.t;
    expect((await reconcileDispatch(bench.reconcileDeps(), d2!)).outcome).toBe('released');
    p = await bench.projection();
    expect(p.work(W('A'))!.retryNotBefore).toBe(at2 + backoff);
    // Attempt 3 (the last): terminal recovery cancels the Work too (no poison head).
    bench.clock.t = at2 + backoff;
    const [d3] = await bench.grant('g3');
    const run3 = await launchAndActivate(bench, d3!);
    setRunStatus(bench.fake.state, run3, 'completed', 'failure');
    expect((await reconcileDispatch(bench.reconcileDeps(), d3!)).outcome).toBe('released');
    p = await bench.replayValid();
    expect(p.work(W('A'))!).toMatchObject({ state: 'cancelled', cancellationReason: 'attempts_exhausted', attempts: 3 });
    // d1's worker finished its Claim but its run was never seen terminal: that slot is still held.
    expect(countOps(p, 'Release')).toBe(2);
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(countOps(p, 'WorkCancellation')).toBe(1);
  });

  it('a worker cancelling its last attempt cancels the Work in the same finish', async () => {
    bench = await createBench({ nodes: [{ node_key: 'A', payload: {} }], retry: { max_attempts: 1, backoff_seconds: 1 } });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    const t = await finish(bench, d!, 'h1', 'cancelled', run);
    expect(t.status).toBe('committed');
    const p = await bench.replayValid();
    expect(p.work(W('A'))!.state).toBe('cancelled');
    // Repeating the same outcome is idempotent; a conflicting outcome fails explicitly.
    expect((await finish(bench, d!, 'h1', 'cancelled', run)).status).toBe('replayed');
    await expect(finish(bench, d!, 'h1', 'completed', run)).rejects.toMatchObject({ code: 'request_id_conflict' });
  });
});
