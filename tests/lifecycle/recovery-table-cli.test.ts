/**
 * Spec §7.18 "Operational recovery scenarios", the recovery table, row by row, end to end
 * through the real `fairway` CLI (`--json --dir`) on a real local Git queue and the
 * OpenAPI-validated GitHub stand-in (tests/fake-github). Each row checks what the operator sees:
 * the command's `--json` answer and exit code, the stable codes, the next action, and what stays
 * reserved or retained in the cold-replayed ledger. (The "start marker but no binding" row with
 * real killed processes: tests/integration/launch-faults.test.ts.)
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { dispatcherEnv, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { activateRun, finishMember, fw, human, launchNext, noJob, writeReceipts } from '../support/recovery-cli.ts';
import { countOps, createBench, dispatchPosts, nodes, type Bench } from './harness.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('§7.18 recovery table through the CLI', () => {
  it('request publication outcome unknown: a retried request id resolves to the committed record (request_replayed, grant replayed) and never sends a second POST', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    // The dispatcher step's POST reaches GitHub but its answer is lost: the launch outcome is unknown.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    const first = await launchNext(bench, 'dispatch-run-1', 1, 1);
    expect(first.code, first.err).toBe(0);
    expect(first.json.launches).toEqual([expect.objectContaining({ outcome: 'uncertain', state: 'uncertain', posted: true, run_id: null })]);
    const d = first.json.launches[0].dispatch_id as string;
    // The step is retried with the same stable request id: the grant is read back, not granted again.
    const retried = await launchNext(bench, 'dispatch-run-1', 1, 1);
    expect(retried.code, retried.err).toBe(0);
    expect(retried.json).toMatchObject({ grant: { replayed: true, commit_id: first.json.grant.commit_id }, launches: [] });
    expect(dispatchPosts(bench.fake)).toBe(1);
    // An operator's control whose answer was lost is resolved by its request id too.
    noJob();
    const pause = await fw(bench, '--request-id', 'pause-1', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    const again = await fw(bench, '--request-id', 'pause-1', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    expect(again).toMatchObject({ code: 0, json: { status: 'request_replayed', commit_id: pause.json.commit_id } });
    // The same request id with other parameters is a different logical request: refused.
    const reused = await fw(bench, '--request-id', 'pause-1', 'control', '--name', 'grants_paused', '--paused', 'false', '--reason', 'incident');
    expect(reused).toMatchObject({ code: 3, json: { ok: false, error: { code: 'request_id_conflict', commit: pause.json.commit_id } } });
    const p = await bench.replayValid();
    expect(countOps(p, 'Control')).toBe(1);
    expect(p.dispatch(d)).toMatchObject({ state: 'uncertain', released: false });
    expect(p.state.outstandingNative.get('default')).toBe(1);
  });

  it('reservation with no start marker: a grant pause holds the launch (nothing started), resume then one checked start; or a prelaunch cancellation releases it once', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    dispatcherEnv();
    const granted = await fw(bench, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '2', '--max-dispatches', '2');
    expect(granted.code, granted.err).toBe(0);
    const [d1, d2] = granted.json.dispatches.map((g: { dispatch_id: string }) => g.dispatch_id) as [string, string];
    noJob();
    await fw(bench, '--request-id', 'pause', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    dispatcherEnv();
    const held = await fw(bench, 'launch', '--dispatch-id', d1);
    expect(held).toMatchObject({ code: 0, json: { launches: [{ dispatch_id: d1, outcome: 'grants_paused', state: 'reserved', posted: false, commits: [] }] } });
    expect(dispatchPosts(bench.fake)).toBe(0);
    let p = await bench.replayValid();
    expect(p.dispatch(d1)!.state).toBe('reserved');
    // While the granting dispatcher run may still start it, reconcile keeps it and says what to do.
    noJob();
    const kept = await fw(bench, 'reconcile', '--dispatch-id', d1, '--interval-ms', '0');
    expect(kept.json.reconciled[0]).toMatchObject({ outcome: 'reserved', state: 'reserved', next_action: expect.stringContaining('fairway reconcile --cancel-reserved') });
    await fw(bench, '--request-id', 'resume', 'control', '--name', 'grants_paused', '--paused', 'false', '--reason', 'restored');
    dispatcherEnv();
    const resumed = await fw(bench, 'launch', '--dispatch-id', d1);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.json.launches).toEqual([expect.objectContaining({ dispatch_id: d1, outcome: 'bound', posted: true })]);
    expect(dispatchPosts(bench.fake)).toBe(1);
    // The other reserved group: definitive prelaunch cancellation, released once, its Claim retried.
    noJob();
    const cancelled = await fw(bench, 'reconcile', '--dispatch-id', d2, '--cancel-reserved', '--interval-ms', '0');
    expect(cancelled).toMatchObject({ code: 0, json: { reconciled: [{ dispatch_id: d2, outcome: 'released', state: 'released' }] } });
    const evidence = await fw(bench, 'evidence', '--dispatch-id', d2);
    expect(evidence.json.groups[0]).toMatchObject({ state: 'released', dispatch_state: 'reserved', claims: [{ claim: 'cancelled', cancel_reason: 'prelaunch_cancelled', work: 'available' }] });
    expect(evidence.json.groups[0].events.at(-1)).toMatchObject({ state: 'released', conclusion: null });
    p = await bench.replayValid();
    expect(countOps(p, 'Release', d2)).toBe(1);
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('exact worker run terminal with a Claim still open: reconcile shows the native conclusion apart from the ClaimCancellation (run_terminal, retried after backoff) and releases once', async () => {
    bench = await createBench({ nodes: nodes('a') });
    const l = await launchNext(bench, 'dispatch-run-1');
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    expect((await activateRun(bench, run)).code).toBe(0);
    setRunStatus(bench.fake.state, run, 'completed', 'failure');
    noJob();
    const r = await fw(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(r.code, r.err).toBe(0);
    expect(r.json.reconciled).toEqual([expect.objectContaining({ dispatch_id: d, outcome: 'released', state: 'released', run_id: run, conclusion: 'failure' })]);
    const text = await human(bench, 'reconcile', '--dispatch-id', d, '--interval-ms', '0');
    expect(text.out).toContain(`${d}: already_released (released) run ${run}`);
    const ev = await fw(bench, 'evidence', '--dispatch-id', d);
    expect(ev.json.groups[0]).toMatchObject({ state: 'released', claims: [{ claim: 'cancelled', cancel_reason: 'run_terminal', work: 'available', barrier: 'none' }] });
    expect(ev.json.groups[0].events.at(-1)).toMatchObject({ state: 'released', run_id: run, conclusion: 'failure' });
    expect((await human(bench, 'evidence', '--dispatch-id', d)).out).toMatch(/native run conclusion: failure[\s\S]*claim cancelled \(run_terminal\)/);
    const claim = await fw(bench, 'inspect', '--claim-id', ev.json.groups[0].claims[0].claim_id);
    expect(claim.json).toMatchObject({ state: 'cancelled', cancel_reason: 'run_terminal', retry_not_before: expect.any(Number), dispatch: { released: true } });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
  });

  it('completion exists, Result absent: ownership is preserved, the release keeps the pending barrier visible, and reconcile --receipts publishes the Result without rerunning effects or retrying the Work', async () => {
    bench = await createBench({ nodes: nodes('a') });
    const l = await launchNext(bench, 'dispatch-run-1');
    const { dispatch_id: d, run_id: run } = l.json.launches[0];
    const a = await activateRun(bench, run);
    const claimId = a.json.assignment.claims[0].claim_id as string;
    expect((await finishMember(bench, run, d, 'h1', 'completed')).code).toBe(0);
    setRunStatus(bench.fake.state, run, 'completed', 'success');
    noJob();
    const released = await fw(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(released.json.reconciled).toEqual([expect.objectContaining({ outcome: 'released', conclusion: 'success', pending_barriers: [claimId] })]);
    let work = await fw(bench, 'inspect', '--work-id', a.json.assignment.claims[0].work_id);
    expect(work.json).toMatchObject({ state: 'completed', barrier: 'pending', attempts: 1, current_claim: claimId });
    // The released group with a pending barrier is still in --all; without receipts nothing is decided.
    const waiting = await fw(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(waiting.json.reconciled).toEqual([expect.objectContaining({ dispatch_id: d, outcome: 'already_released', pending_barriers: [claimId] })]);
    const writes = bench.fake.requests.filter((r) => r.method !== 'GET').length;
    const dir = mkdtempSync(join(bench.dir, 'receipts-'));
    writeReceipts(dir, d, claimId, run);
    const settled = await fw(bench, 'reconcile', '--all', '--receipts', dir, '--interval-ms', '0');
    expect(settled.code, settled.err).toBe(0);
    expect(settled.json.deliveries).toEqual([expect.objectContaining({ claim_id: claimId, outcome: 'result', verified: true })]);
    expect(bench.fake.requests.filter((r) => r.method !== 'GET').length).toBe(writes);
    work = await fw(bench, 'inspect', '--work-id', a.json.assignment.claims[0].work_id);
    expect(work.json).toMatchObject({ state: 'completed', barrier: 'verified', attempts: 1 });
    const p = await bench.replayValid();
    expect(countOps(p, 'Result')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('GitHub Actions outage: unreadable runs end in launch_unresolved (exit 3) with the next action; stats keeps backlog, reservations and the pause distinguishable; after recovery each group reconciles individually', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    // The POST reaches GitHub (a run is queued) but the answer is a 502.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 502, process: true, body: { message: 'Server Error', documentation_url: 'x' } });
    const l = await launchNext(bench, 'dispatch-run-1', 2, 2);
    expect(l.json.launches.map((x: { outcome: string }) => x.outcome)).toEqual(['uncertain', 'bound']);
    const [d1, d2] = l.json.launches.map((x: { dispatch_id: string }) => x.dispatch_id) as [string, string];
    noJob();
    await fw(bench, '--request-id', 'pause', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'actions_outage');
    const paused = await launchNext(bench, 'dispatch-run-2');
    expect(paused).toMatchObject({ code: 0, json: { grant: { status: 'no_grant', limiting_reason: 'grants_paused' }, launches: [] } });
    // The runs API cannot be read: the bounded observation budget ends unresolved, not in success.
    noJob();
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 401, times: 4, body: { message: 'Bad credentials', documentation_url: 'x' } });
    const during = await fw(bench, 'reconcile', '--all', '--max-polls', '2', '--interval-ms', '0');
    expect(during.code).toBe(3);
    expect(during.json.error).toMatchObject({ code: 'launch_unresolved', details: { unresolved: [{ dispatch_id: d1, outcome: 'launch_unresolved', next_action: expect.stringMatching(/capacity is retained/) }] } });
    const stats = await fw(bench, 'stats');
    expect(stats.json).toMatchObject({ controls: { grants_paused: true }, works: { available: 1, claimed: 2 }, pools: [{ available: 1, eligible: 0, native_outstanding: 2, logical_outstanding: 2 }] });
    expect((await human(bench, 'stats')).out).toContain('PAUSED: grants');
    let p = await bench.replayValid();
    expect(p.dispatch(d1)).toMatchObject({ state: 'unresolved', released: false });
    expect(countOps(p, 'Release')).toBe(0);
    // Service returns: each group individually; the lost POST's run binds, nothing is resent.
    const after = await fw(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(after.code, JSON.stringify(after.json)).toBe(0);
    expect(after.json.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: d1, outcome: 'running', state: 'bound' }),
      expect.objectContaining({ dispatch_id: d2, outcome: 'running', state: 'bound' }),
    ]);
    await fw(bench, '--request-id', 'resume', 'control', '--name', 'grants_paused', '--paused', 'false', '--reason', 'restored');
    const next = await launchNext(bench, 'dispatch-run-3');
    expect(next.json.launches).toEqual([expect.objectContaining({ outcome: 'bound' })]);
    p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default')).toBe(3);
    expect(dispatchPosts(bench.fake)).toBe(3);
  });
});
