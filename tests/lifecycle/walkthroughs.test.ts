/**
 * Spec §7.18 "Operational recovery scenarios": the recovery table's rows and the four
 * walkthroughs, end to end through the checked publisher on a real Git ledger and the
 * OpenAPI-validated GitHub stand-in. Each scenario replays the ledger cold at the end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { workId } from '../../engine/identity/index.ts';
import { cancelWorkRequest } from '../../engine/requests/admin.ts';
import { control } from '../../engine/requests/lifecycle.ts';
import { clockView } from '../../engine/scheduler/clocks.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { activateWorker } from '../../lib/lifecycle/activation.ts';
import { settleDelivery } from '../../lib/lifecycle/delivery.ts';
import { deployWorker } from '../../lib/lifecycle/deploy.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import type { CasOutcome, LedgerStore } from '../../lib/store/types.ts';
import { actions, findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { seedCommit } from '../fake-github/state.ts';
import { claimOf, countOps, createBench, dispatchPosts, finish, launchAndActivate, nodes, receipts, type Bench } from './harness.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';
const W = (key: string) => workId('g', key);

let bench: Bench;
afterEach(async () => bench?.close());

async function admin(b: Bench, id: string, built: Parameters<Publisher['publish']>[0]['prepare']) {
  return b.publisher.publish({ requestId: id, actor: b.admin, prepare: built, now: b.now });
}

describe('§7.18 recovery table', () => {
  it('request publication outcome unknown: the start marker is resolved by request id, then the one POST is sent', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    // A store whose next write lands but whose answer is lost.
    let lose = true;
    const store: LedgerStore = Object.create(bench.store) as LedgerStore;
    const losing = (outcome: CasOutcome): CasOutcome => {
      if (lose && outcome.status === 'committed') {
        lose = false;
        return { status: 'uncertain', reason: 'connection reset after sending' };
      }
      return outcome;
    };
    // Both ways a publication compare-and-swaps (Git stores take the ledger's pieces).
    store.compareAndSwap = async (expected, bytes, message) => losing(await bench.store.compareAndSwap(expected, bytes, message));
    store.compareAndSwapParts = async (expected, parts, message) => losing(await bench.store.compareAndSwapParts(expected, parts, message));
    const report = await launchGroup(bench.launchDeps({ publisher: new Publisher(store) }), d!);
    expect(lose).toBe(false); // the answer of a landed write was lost
    expect(report).toMatchObject({ outcome: 'bound', posted: true });
    expect(dispatchPosts(bench.fake)).toBe(1);
    expect(countOps(await bench.replayValid(), 'Dispatch', d)).toBe(2);
  });

  it('reservation with no start marker: obey the grant pause, then resume one checked start', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    await admin(bench, 'pause', () => control('grants_paused', true, 'outage'));
    expect((await launchGroup(bench.launchDeps(), d!)).outcome).toBe('grants_paused');
    await admin(bench, 'resume', () => control('grants_paused', false, 'restored'));
    expect((await launchGroup(bench.launchDeps(), d!)).outcome).toBe('bound');
    expect(dispatchPosts(bench.fake)).toBe(1);
    await bench.replayValid();
  });

  it('exact worker run terminal with a Claim still open: ClaimCancellation with retry, one Release', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r.outcome).toBe('released');
    const p = await bench.replayValid();
    const claim = p.claim(claimOf(p, d!, 'h1'))!;
    expect(claim).toMatchObject({ state: 'cancelled', cancelReason: 'run_terminal' });
    expect(p.work(claim.workId)!.retryNotBefore).toBe(bench.clock.t + 30_000);
  });
});

describe('§7.18 walkthroughs', () => {
  it('GitHub Actions outage: possible launches keep their reservations; after recovery each group reconciles individually', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    const [d1, d2] = await bench.grant('g1', 2, 2);
    // The outage: the POST reaches GitHub (a run is queued) but the answer is a 502.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 502, process: true, body: { message: 'Server Error', documentation_url: 'x' } });
    expect((await launchGroup(bench.launchDeps(), d1!)).outcome).toBe('uncertain');
    await admin(bench, 'pause', () => control('grants_paused', true, 'actions_outage'));
    expect((await launchGroup(bench.launchDeps(), d2!)).outcome).toBe('grants_paused');
    // Observation fails closed while the API is down: unresolved, never released.
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 503, times: 5, body: { message: 'Unavailable', documentation_url: 'x' } });
    const during = await reconcileDispatch(bench.reconcileDeps(), d1!);
    expect(during).toMatchObject({ outcome: 'launch_unresolved', last_error: 'unavailable' });
    let p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default')).toBe(2);
    expect(countOps(p, 'Release')).toBe(0);
    // Service returns: replay, reconcile each group, then resume grants.
    const after = await reconcileDispatch(bench.reconcileDeps(), d1!);
    expect(after).toMatchObject({ outcome: 'running', state: 'bound' });
    await admin(bench, 'resume', () => control('grants_paused', false, 'restored'));
    expect((await launchGroup(bench.launchDeps(), d2!)).outcome).toBe('bound');
    p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default')).toBe(2);
    expect(dispatchPosts(bench.fake)).toBe(2);
  });

  it('operator accidentally stops a run: a cancellation request is not termination; the worker-terminal recovery keeps completed siblings, cancels only open Claims and rejects Re-run authority', async () => {
    bench = await createBench({ maxClaims: 3, nodes: nodes('c1', 'c2', 'c3') });
    const [d] = await bench.grant('g1', 3);
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    await finish(bench, d!, 'h3', 'cancelled', run);
    let p = await bench.projection();
    const c1 = claimOf(p, d!, 'h1');
    const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
    expect((await settleDelivery(deps, { claimId: c1, receipts: receipts(d!, c1, run) })).outcome).toBe('result');
    // The operator cancels the worker: a request first, not evidence.
    const requested = await reconcileDispatch(bench.reconcileDeps({ cancelRunning: true }), d!);
    expect(requested).toMatchObject({ outcome: 'running', cancel_requested: true });
    setRunStatus(bench.fake.state, run, 'completed', 'cancelled');
    expect((await reconcileDispatch(bench.reconcileDeps(), d!)).outcome).toBe('released');
    // GitHub's Re-run button is not a queue retry.
    findRun(bench.fake.state, run)!.attempts.push({ status: 'in_progress', conclusion: null, updatedAt: '2026-01-01T00:00:00Z' });
    await expect(activateWorker({ publisher: bench.publisher, api: bench.api, run: bench.jobContext(run, 2), assignment: JSON.parse(String(findRun(bench.fake.state, run)!.inputs.work_queue_assignment)), now: bench.now }))
      .rejects.toMatchObject({ code: 'run_attempt_invalid' });
    p = await bench.replayValid();
    expect(['h1', 'h2', 'h3'].map((h) => p.claim(claimOf(p, d!, h))!.state)).toEqual(['completed', 'cancelled', 'cancelled']);
    expect(p.work(W('c1'))!.barrier).toBe('verified');
    expect(countOps(p, 'Release', d)).toBe(1);
    // c2 gets a new fair Claim and a new dispatch binding after its backoff.
    bench.clock.t += 30_000;
    const [d2] = await bench.grant('g2', 3);
    const next = await bench.replayValid();
    expect(next.dispatch(d2!)!.claimIds.map((c) => next.claim(c)!.workId).sort()).toEqual([W('c2'), W('c3')].sort());
  });

  it('agent crashes after one Completion: the open sibling backs off into a new fair Claim, the completed member is verified without rerunning effects', async () => {
    bench = await createBench({ maxClaims: 2, nodes: [{ node_key: 'A', payload: { effect_contract: { version: 1, outputs: [{ type: 'create_pull_request', min: 1, max: 1 }] } } }, { node_key: 'B', payload: {} }] });
    const [d] = await bench.grant('g1', 2);
    const run = await launchAndActivate(bench, d!);
    await finish(bench, d!, 'h1', 'completed', run);
    // The agent process dies; the wrap-up never publishes B; the run ends in failure.
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    expect((await reconcileDispatch(bench.reconcileDeps(), d!)).outcome).toBe('released');
    let p = await bench.projection();
    const a = claimOf(p, d!, 'h1');
    expect(p.work(W('B'))!.state).toBe('available');
    expect(eligibility(p.state, p.work(W('B'))!, bench.clock.t)).toMatchObject({ eligible: false, reason: 'retry_delayed' });
    const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
    const writesBefore = bench.fake.requests.filter((r) => r.method !== 'GET').length;
    const r = await settleDelivery(deps, { claimId: a, receipts: receipts(d!, a, run, [{ type: 'create_pull_request', status: 'succeeded', ref: 'acme/queue#3' }]) });
    expect(r.outcome).toBe('result');
    expect(bench.fake.requests.filter((x) => x.method !== 'GET').length).toBe(writesBefore);
    bench.clock.t += 30_000;
    const [d2] = await bench.grant('g2', 2);
    p = await bench.replayValid();
    expect(p.dispatch(d2!)!.claimIds.map((c) => p.claim(c)!.workId)).toEqual([W('B')]);
    expect(p.work(W('B'))!.attempts).toBe(2);
  });

  it('campaign revised while work is in flight: obsolete Work is cancelled, its Claim and logical slot close, its native reservation is kept until terminal evidence; a compatible deployment needs no drain', async () => {
    bench = await createBench({ nodes: [{ node_key: 'r1/prepare', payload: { plan: 'old' } }] });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    const before = await bench.projection();
    const passes = JSON.stringify(clockView(before.state.fairness, 'default'));
    expect(passes).toContain('"pass"');
    await admin(bench, 'obsolete', (p) => cancelWorkRequest(p.state, [W('r1/prepare')], 'campaign_revised'));
    await bench.submit('r2', [{ node_key: 'r2/prepare', payload: { plan: 'new' } }]);
    // A new worker revision lands on the default branch: a compatible Deployment, no drain.
    const newRef = seedCommit(bench.repo, 'main', { 'src/worker.ts': 'v2' });
    const deployed = await deployWorker(bench.publisher, bench.admin, { requestId: 'deploy-1', pool: 'default', workerProfile: 'default', revision: { ref: newRef, branch: 'main', available: true } }, bench.now);
    expect(deployed).toMatchObject({ status: 'deployed', from: bench.ref, to: newRef });
    let p = await bench.projection();
    expect(p.dispatch(d!)!.profile.ref).toBe(bench.ref); // the frozen assignment keeps its revision
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(p.state.outstandingClaims.get('default') ?? 0).toBe(0); // spec 7.14: closing a Claim frees its logical slot
    expect(p.claim(claimOf(p, d!, 'h1'))!.state).toBe('cancelled');
    expect(JSON.stringify(clockView(p.state.fairness, 'default'))).toBe(passes); // no debt reset
    // Still running: the cancelled Work's slot is kept.
    expect((await reconcileDispatch(bench.reconcileDeps(), d!)).outcome).toBe('running');
    setRunStatus(bench.fake.state, run, 'completed', 'cancelled');
    expect((await reconcileDispatch(bench.reconcileDeps(), d!)).outcome).toBe('released');
    p = await bench.replayValid();
    expect(p.work(W('r1/prepare'))!.state).toBe('cancelled');
    expect(p.claim(claimOf(p, d!, 'h1'))!.state).toBe('cancelled');
    // The Work cancellation closed the Claim: the reconciler's release cancels nothing again.
    expect(countOps(p, 'ClaimCancellation', undefined)).toBe(0);
    expect(countOps(p, 'Release', d!)).toBe(1);
    expect(actions(bench.fake.state).runs).toHaveLength(1);
  });
});
