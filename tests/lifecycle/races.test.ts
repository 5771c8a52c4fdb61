/**
 * Issue 20 §3 (spec 7.8 "once a start marker is committed, prelaunch cancellation is no
 * longer definitive nonlaunch evidence"): `reconcile --cancel-reserved` racing `launch` on
 * the Work's last attempt. The cancellation read a reserved group, then lost the
 * compare-and-swap race to the start marker; rebuilt from the new tip it must be refused,
 * committing no ClaimCancellation, WorkCancellation or Release, and the launched run keeps
 * the Claim's authority and the reservation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { dispatcherRun } from '../support/lifecycle-bench.ts';
import { racingStore } from '../support/racing-store.ts';
import { countOps, createBench, dispatchPosts, type Bench } from './harness.ts';

let bench: Bench;
afterEach(async () => bench?.close());

describe('a prelaunch cancellation never wins after a start marker', () => {
  it('reconcile --cancel-reserved that loses the CAS race to launch on the last attempt is rebuilt from the new tip and refused (launch_already_started); nothing is cancelled or released', async () => {
    bench = await createBench({ retry: { max_attempts: 1, backoff_seconds: 1 } });
    const [d] = await bench.grant('g1');
    let launched: Awaited<ReturnType<typeof launchGroup>> | null = null;
    // The cancellation read `reserved`; the dispatcher's start marker (and its launch) lands first.
    const store = racingStore(bench.store, async () => {
      launched = await launchGroup(bench.launchDeps(), d!);
    });
    const cancelling = new Publisher(store);
    await expect(reconcileDispatch({ ...bench.reconcileDeps(), publisher: cancelling, cancelReserved: true }, d!))
      .rejects.toMatchObject({ code: 'launch_already_started' });
    expect(launched).toMatchObject({ outcome: 'bound' });
    const p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'bound', released: false });
    expect(countOps(p, 'ClaimCancellation')).toBe(0);
    expect(countOps(p, 'WorkCancellation')).toBe(0);
    expect(countOps(p, 'Release')).toBe(0);
    const claimId = p.dispatch(d!)!.claimIds[0]!;
    expect(p.claim(claimId)!.state).toBe('open');
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('the recovery of a group whose granting dispatcher ended, losing the same race, reconciles the start marker that won instead: bound, nothing cancelled or released', async () => {
    bench = await createBench({ retry: { max_attempts: 1, backoff_seconds: 1 } });
    const granter = dispatcherRun(bench, 'completed');
    const [d] = await bench.grant('g1', 1, 1, granter.actor);
    // Another dispatcher (say, an operator's `fairway launch --dispatch-id`) starts it first.
    const store = racingStore(bench.store, async () => void await launchGroup(bench.launchDeps(), d!));
    const r = await reconcileDispatch({ ...bench.reconcileDeps(), publisher: new Publisher(store) }, d!);
    expect(r).toMatchObject({ outcome: 'running', state: 'bound', commits: [] });
    let p = await bench.replayValid();
    expect(countOps(p, 'ClaimCancellation') + countOps(p, 'WorkCancellation') + countOps(p, 'Release')).toBe(0);
    expect(p.claim(p.dispatch(d!)!.claimIds[0]!)!.state).toBe('open');
    // Its worker's exact terminal evidence then releases it once.
    setRunStatus(bench.fake.state, r.run_id!, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'released' });
    p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('control: without a racing start marker the same prelaunch cancellation releases the reserved group', async () => {
    bench = await createBench({ retry: { max_attempts: 1, backoff_seconds: 1 } });
    const [d] = await bench.grant('g1');
    const r = await reconcileDispatch({ ...bench.reconcileDeps(), cancelReserved: true }, d!);
    expect(r.outcome).toBe('released');
    const p = await bench.replayValid();
    expect(p.dispatch(d!)!.released).toBe(true);
    expect(countOps(p, 'Release')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(0);
  });
});

describe('spec 7.8: a prelaunch cancellation with attempt exhaustion commits once, so no start marker lands between its steps', () => {
  it('a start marker racing right after the first commit of reconcile --cancel-reserved on the last attempt finds the group released: nothing launched, the Work cancelled once', async () => {
    bench = await createBench({ retry: { max_attempts: 1, backoff_seconds: 1 } });
    const [d] = await bench.grant('g1');
    let launched: Awaited<ReturnType<typeof launchGroup>> | null = null;
    const launch = async () => {
      launched = await launchGroup(bench.launchDeps(), d!);
    };
    // The dispatcher's start marker lands just before the cancellation's second compare-and-swap
    // (if it has one), i.e. right after its first commit; otherwise right after it returns.
    const store = racingStore(bench.store, launch, 2);
    const r = await reconcileDispatch({ ...bench.reconcileDeps(), publisher: new Publisher(store), cancelReserved: true }, d!);
    if (launched === null) await launch();
    expect(r.outcome).toBe('released');
    expect(r.commits).toHaveLength(1);
    expect(launched).toMatchObject({ outcome: 'marker_exists', posted: false });
    const p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'reserved', released: true });
    expect(countOps(p, 'Dispatch', d)).toBe(0);
    expect(dispatchPosts(bench.fake)).toBe(0);
    const claimId = p.dispatch(d!)!.claimIds[0]!;
    expect(p.claim(claimId)!.state).toBe('cancelled');
    expect(p.work(p.claim(claimId)!.workId)).toMatchObject({ state: 'cancelled', cancellationReason: 'attempts_exhausted' });
    // The exhaustion, the Claim's closing and the Release are one commit (one request).
    const release = p.dispatch(d!)!.releaseCommit!;
    expect(p.work(p.claim(claimId)!.workId)!.cancellationCommit).toBe(release);
    expect(countOps(p, 'WorkCancellation')).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
  });
});
