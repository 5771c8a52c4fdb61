/**
 * Launch recovery and reconciliation (spec 7.8, §8.2 "Launch recovery", "Reconciliation
 * budget", "Recovery"): lost responses are recovered by worker activation or discovery;
 * duplicates and conflicts keep capacity; silence, timeouts, cancellation requests and a
 * terminated dispatcher never release; exact terminal evidence releases once.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { activateWorker } from '../../lib/lifecycle/activation.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { addRun, findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { DEFAULT_USER } from '../fake-github/routes-issues.ts';
import { countOps, createBench, dispatchPosts, nodes, PRINCIPAL, type Bench } from './harness.ts';
import { dispatcherRun, lastRun } from '../support/lifecycle-bench.ts';
import { runFairway } from '../support/cli.ts';
import { launchView } from '../../engine/lifecycle/launch-state.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';

let bench: Bench;
afterEach(async () => bench?.close());

function assignmentOf(b: Bench, runId: string): unknown {
  return JSON.parse(String(findRun(b.fake.state, runId)!.inputs.work_queue_assignment));
}

describe('launch recovery', () => {
  it('a lost HTTP-200 response is recovered by worker activation', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    const launch = await launchGroup(bench.launchDeps(), d!);
    expect(launch).toMatchObject({ outcome: 'uncertain', reason: 'dispatch_response_lost', state: 'uncertain' });
    const run = lastRun(bench);
    const activation = await activateWorker({ publisher: bench.publisher, api: bench.api, run: bench.jobContext(run.id), assignment: assignmentOf(bench, run.id), now: bench.now });
    expect(activation).toMatchObject({ binding: 'bound_now', run_id: run.id });
    expect(activation.assignment.dispatch_id).toBe(d);
    const p = await bench.replayValid();
    expect(p.dispatch(d!)!.state).toBe('bound');
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('a lost response is recovered by reconciliation discovering the exact run title', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r).toMatchObject({ outcome: 'running', state: 'bound', run_id: lastRun(bench).id });
    expect(dispatchPosts(bench.fake)).toBe(1);
    await bench.replayValid();
  });

  it('two runs carrying the same dispatch id: reconcile records the run_binding_conflict durably, offline evidence names both runs, neither run can bind', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const original = lastRun(bench);
    // Someone re-dispatched by hand: same principal, same title, same workflow.
    addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: original.displayTitle });
    const duplicate = lastRun(bench);
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r.outcome).toBe('run_binding_conflict');
    expect(r.candidates).toHaveLength(2);
    expect(r.commits).toHaveLength(1);
    let p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict' });
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([original.id, duplicate.id].sort());
    expect(p.state.outstandingNative.get('default')).toBe(1);
    // A later, offline process (no GitHub access) sees the recorded conflict.
    let out = '';
    const code = await runFairway(['--json', '--repo', bench.dir, '--principal', PRINCIPAL, 'evidence', '--dispatch-id', d!], { out: (t) => (out += t), err: () => undefined });
    expect(code).toBe(0);
    expect(JSON.parse(out).groups[0]).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict' });
    expect(JSON.parse(out).groups[0].conflict_run_ids.sort()).toEqual([original.id, duplicate.id].sort());
    // Neither run can bind itself afterwards, nor can a later reconcile bind the survivor.
    for (const run of [original, duplicate]) {
      await expect(activateWorker({ publisher: bench.publisher, api: bench.api, run: bench.jobContext(run.id), assignment: assignmentOf(bench, run.id), now: bench.now }))
        .rejects.toMatchObject({ code: 'run_binding_conflict' });
    }
    // Even when discovery later shows only one valid candidate (the other renamed), nothing binds.
    const named = launchView(p, d!).conflict_run_ids[0];
    findRun(bench.fake.state, named === original.id ? duplicate.id : original.id)!.displayTitle = 'renamed';
    const again = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(again).toMatchObject({ outcome: 'run_binding_conflict', state: 'unresolved', commits: [] });
    p = await bench.replayValid();
    expect(p.dispatch(d!)!.run).toBeNull();
    expect(countOps(p, 'Release')).toBe(0);
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('a response-named run with a second run carrying the same dispatch id is a binding conflict: neither binds, the conflict is recorded', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    // The POST response names the run, but reading it fails: the launcher records the named run as uncertain.
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}', kind: 'status', status: 503, body: { message: 'Service Unavailable', documentation_url: 'x' } });
    const launch = await launchGroup(bench.launchDeps(), d!);
    expect(launch).toMatchObject({ outcome: 'uncertain', reason: 'run_unverified', state: 'uncertain' });
    const named = lastRun(bench);
    expect(launch.run_id).toBe(named.id);
    // A second run carrying the same dispatch id: same principal, same title, same workflow.
    addRun(bench.fake.state, { ...named, inputs: named.inputs, displayTitle: named.displayTitle });
    const duplicate = lastRun(bench);
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r.outcome).toBe('run_binding_conflict');
    expect(r.candidates.map((c) => [c.run_id, c.reported])).toEqual([[named.id, true], [duplicate.id, false]]);
    const p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null });
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([named.id, duplicate.id].sort());
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(countOps(p, 'Release')).toBe(0);
    for (const run of [named, duplicate]) {
      await expect(activateWorker({ publisher: bench.publisher, api: bench.api, run: bench.jobContext(run.id), assignment: assignmentOf(bench, run.id), now: bench.now }))
        .rejects.toMatchObject({ code: 'run_binding_conflict' });
    }
    expect((await bench.replayValid()).dispatch(d!)!.run).toBeNull();
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('a title that merely contains a longer dispatch id is not a candidate', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-before' });
    await launchGroup(bench.launchDeps(), d!);
    const w = bench.workflow;
    addRun(bench.fake.state, { repo: bench.repo, workflow: w, headBranch: 'main', headSha: bench.ref, event: 'workflow_dispatch', actor: DEFAULT_USER, displayTitle: `worker [${d}0]`, inputs: {} });
    const r = await reconcileDispatch(bench.reconcileDeps({ maxPolls: 1 }), d!);
    expect(r.candidates).toEqual([]);
    expect(r.outcome).toBe('launch_unresolved');
  });
});

describe('nothing but exact evidence releases', () => {
  it('an empty discovery never releases: the budget ends in launch_unresolved and keeps the reservation', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-before' });
    await launchGroup(bench.launchDeps(), d!);
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r).toMatchObject({ outcome: 'launch_unresolved', state: 'unresolved', polls: 5 });
    expect(r.next_action).toMatch(/capacity is retained/);
    // Running it again polls again but never releases and writes no second unresolved.
    const again = await reconcileDispatch(bench.reconcileDeps({ maxPolls: 2 }), d!);
    expect(again).toMatchObject({ outcome: 'launch_unresolved', commits: [] });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release')).toBe(0);
    expect(p.state.outstandingNative.get('default')).toBe(1);
  });

  it('a timeout never releases; later authenticated evidence binds the unresolved group', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const slow: typeof fetch = async (url, init) => {
      const res = await fetch(url, { ...init, signal: null });
      await res.text();
      await new Promise((r) => setTimeout(r, 40));
      throw (init?.signal as AbortSignal | undefined)?.reason ?? new Error('timeout');
    };
    const launch = await launchGroup(bench.launchDeps({ post: { ...bench.post, timeoutMs: 5, fetch: slow } }), d!);
    expect(launch).toMatchObject({ outcome: 'uncertain', reason: 'dispatch_timeout' });
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 503, body: { message: 'Service Unavailable', documentation_url: 'x' } });
    bench.clock.t += 300_000; // the reconciliation deadline has passed
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r).toMatchObject({ outcome: 'launch_unresolved', polls: 1, last_error: 'unavailable' });
    expect((await bench.replayValid()).state.outstandingNative.get('default')).toBe(1);
    // API restored: the next reconcile sees the run.
    const later = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(later.outcome === 'running' || later.state === 'bound').toBe(true);
    expect((await bench.replayValid()).dispatch(d!)!.state).toBe('bound');
  });

  it('a cancellation request never releases; the exact terminal attempt does, once', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const launch = await launchGroup(bench.launchDeps(), d!);
    setRunStatus(bench.fake.state, launch.run_id!, 'in_progress');
    const r = await reconcileDispatch(bench.reconcileDeps({ cancelRunning: true }), d!);
    expect(r).toMatchObject({ outcome: 'running', cancel_requested: true, state: 'bound' });
    expect(findRun(bench.fake.state, launch.run_id!)!.cancelRequested).toBe(true);
    expect(countOps(await bench.replayValid(), 'Release')).toBe(0);
    setRunStatus(bench.fake.state, launch.run_id!, 'completed', 'cancelled');
    const done = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(done).toMatchObject({ outcome: 'released', state: 'released' });
    const again = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(again.outcome).toBe('already_released');
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(1);
    const claim = p.claim(p.dispatch(d!)!.claimIds[0]!)!;
    expect(claim.state).toBe('cancelled');
  });

  it('a dispatcher termination never releases a possibly launched worker', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const dispatcherWorkflow = { ...bench.workflow, id: 1, path: '.github/workflows/dispatcher.yml', name: 'dispatcher' };
    const dispatcherRun = addRun(bench.fake.state, { repo: bench.repo, workflow: dispatcherWorkflow, headBranch: 'main', headSha: bench.ref, event: 'schedule', actor: DEFAULT_USER, displayTitle: 'dispatcher', inputs: {} });
    const sender = { ...bench.dispatcher, workflow: '.github/workflows/dispatcher.yml', run_id: dispatcherRun.id, run_attempt: 1 };
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps({ sender }), d!);
    setRunStatus(bench.fake.state, dispatcherRun.id, 'completed', 'cancelled'); // the operator stopped the dispatcher
    const worker = lastRun(bench);
    expect(worker.id).not.toBe(dispatcherRun.id);
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r).toMatchObject({ outcome: 'running', state: 'bound', run_id: worker.id });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release')).toBe(0);
    expect(p.dispatch(d!)!.sender).toMatchObject({ run_id: dispatcherRun.id });
  });

  it('a connection that was never established is definitive nonlaunch and releases once', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const report = await launchGroup(bench.launchDeps({ post: { ...bench.post, baseUrl: `http://127.0.0.1:${port}` } }), d!);
    expect(report).toMatchObject({ outcome: 'rejected', reason: 'dispatch_not_sent', state: 'released' });
    expect(countOps(await bench.replayValid(), 'Release', d)).toBe(1);
  });

  it('prelaunch cancellation releases a reserved group and loses the CAS race to a start marker', async () => {
    bench = await createBench({ nodes: [{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {} }] });
    const [d1] = await bench.grant('g1', 1, 1, dispatcherRun(bench).actor); // its dispatcher is still running
    const kept = await reconcileDispatch(bench.reconcileDeps(), d1!);
    expect(kept).toMatchObject({ outcome: 'reserved', state: 'reserved' });
    const cancelled = await reconcileDispatch(bench.reconcileDeps({ cancelReserved: true }), d1!);
    expect(cancelled).toMatchObject({ outcome: 'released', state: 'released' });
    const [d2] = await bench.grant('g2');
    await launchGroup(bench.launchDeps(), d2!);
    await expect(reconcileDispatch(bench.reconcileDeps({ cancelReserved: true, maxPolls: 1 }), d2!)).resolves.toMatchObject({ state: 'bound' });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d1)).toBe(1);
    expect(countOps(p, 'Release', d2)).toBe(0);
  });
});

describe('a reserved group its dispatcher never started (spec 7.8 "Reserved, no start marker", 7.18)', () => {
  it('kept while the granting dispatcher run may still start it; once that run attempt is terminal, prelaunch-cancelled: open Claim cancelled with the pool\'s backoff, released once, no POST', async () => {
    bench = await createBench({ nodes: nodes('a', 'b'), retry: { max_attempts: 3, backoff_seconds: 60 } });
    const granter = dispatcherRun(bench);
    const [d1, d2] = await bench.grant('g1', 2, 2, granter.actor);
    await launchGroup(bench.launchDeps(), d1!); // the dispatcher died before starting d2
    const kept = await reconcileDispatch(bench.reconcileDeps(), d2!);
    expect(kept).toMatchObject({ outcome: 'reserved', state: 'reserved', commits: [], dispatcher_run: { run_id: granter.runId, run_attempt: 1, status: 'in_progress' } });
    expect(kept.next_action).toMatch(/may still start it/);
    setRunStatus(bench.fake.state, granter.runId, 'completed', 'cancelled');
    bench.clock.t += 1000;
    const r = await reconcileDispatch(bench.reconcileDeps(), d2!);
    expect(r).toMatchObject({ outcome: 'released', state: 'released', dispatcher_run: { status: 'completed', conclusion: 'cancelled' } });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d2)).toBe(1);
    expect(countOps(p, 'Release', d1)).toBe(0);
    expect(p.dispatch(d1!)!.state).toBe('bound');
    const claim = p.claim(p.dispatch(d2!)!.claimIds[0]!)!;
    expect(claim.state).toBe('cancelled');
    expect(p.work(claim.workId)).toMatchObject({ state: 'available', attempts: 1, retryNotBefore: bench.clock.t + 60_000 });
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
    expect(await reconcileDispatch(bench.reconcileDeps(), d2!)).toMatchObject({ outcome: 'already_released', commits: [] });
  });

  it('the last attempt: prelaunch cancellation after a terminal dispatcher cancels the Work (attempts_exhausted), never a blind retry', async () => {
    bench = await createBench({ retry: { max_attempts: 1, backoff_seconds: 1 } });
    const granter = dispatcherRun(bench, 'completed');
    const [d] = await bench.grant('g1', 1, 1, granter.actor);
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'released' });
    const p = await bench.replayValid();
    expect(p.work(p.claim(p.dispatch(d!)!.claimIds[0]!)!.workId)!.state).toBe('cancelled');
    expect(countOps(p, 'WorkCancellation')).toBe(1);
  });

  it('kept when the grant names no dispatcher run, when the granting run (even a completed one) cannot be read, or when that run id is another workflow\'s', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const { dispatcher } = bench;
    const [unnamed] = await bench.grant('g1', 1, 1, { role: 'dispatcher', principal: dispatcher.principal, repository: dispatcher.repository });
    const r1 = await reconcileDispatch(bench.reconcileDeps(), unnamed!);
    expect(r1).toMatchObject({ outcome: 'reserved', dispatcher_run: null, last_error: null });
    expect(bench.fake.requests).toHaveLength(0); // nothing to ask GitHub
    const [unread] = await bench.grant('g2', 1, 1, dispatcherRun(bench, 'completed').actor);
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}', kind: 'status', status: 503, body: { message: 'Service Unavailable', documentation_url: 'x' } });
    expect(await reconcileDispatch(bench.reconcileDeps(), unread!)).toMatchObject({ outcome: 'evidence_unavailable', state: 'reserved', dispatcher_run: null, last_error: 'unavailable' });
    const worker = addRun(bench.fake.state, { repo: bench.repo, workflow: bench.workflow, headBranch: 'main', headSha: bench.ref, event: 'workflow_dispatch', actor: DEFAULT_USER, displayTitle: 'x', inputs: {} });
    setRunStatus(bench.fake.state, worker.id, 'completed', 'success');
    const [other] = await bench.grant('g3', 1, 1, { ...dispatcher, run_id: worker.id });
    const r3 = await reconcileDispatch(bench.reconcileDeps(), other!);
    expect(r3).toMatchObject({ outcome: 'reserved', dispatcher_run: { status: 'completed' } });
    expect(r3.next_action).toMatch(/not of the granting/);
    const p = await bench.replayValid();
    expect(countOps(p, 'Release')).toBe(0);
    expect(p.state.outstandingNative.get('default')).toBe(3);
  });
});

describe('rerun authority', () => {
  it('a GitHub Re-run (attempt 2) gets no authority', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const run = lastRun(bench);
    setRunStatus(bench.fake.state, run.id, 'completed', 'failure');
    run.attempts.push({ status: 'in_progress', conclusion: null, updatedAt: run.createdAt }); // Re-run pressed
    await expect(activateWorker({ publisher: bench.publisher, api: bench.api, run: bench.jobContext(run.id, 2), assignment: assignmentOf(bench, run.id), now: bench.now }))
      .rejects.toMatchObject({ code: 'run_attempt_invalid' });
    let p = await bench.replayValid();
    expect(p.dispatch(d!)!.state).toBe('uncertain');
    // Recovery of the original attempt's facts is allowed: the discovered run binds as
    // (run, attempt 1), whose own terminal state releases; attempt 2 holds nothing.
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r.outcome).toBe('released');
    p = await bench.replayValid();
    expect((p.dispatch(d!)!.run as { run_attempt: number }).run_attempt).toBe(1);
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(p.claim(p.dispatch(d!)!.claimIds[0]!)!.state).toBe('cancelled');
  });
});
