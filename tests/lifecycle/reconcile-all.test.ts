/**
 * `reconcile --all` reconciles each group on its own (lib/lifecycle/reconcile-batch.ts, the
 * policy of `launch --next`): a group whose own request is refused with nothing written is
 * reported `failed` and the others are still reconciled; an error that leaves the queue in
 * doubt (here: the queue cannot be written) stops the pass, the rest reported `not_attempted`.
 * Either way every group's report is printed (under --json: error.details). The dispatcher run
 * attempt that granted several reserved groups is read from GitHub once a pass, not once a group
 * (`launch --next` can reserve up to 256 groups): a failed read too, as a failure, never a success.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileGroups } from '../../lib/lifecycle/reconcile-batch.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { benchCli as cli, dispatcherRun, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { racingStore } from '../support/racing-store.ts';
import { runFairway } from '../support/cli.ts';
import { claimOf, countOps, createBench, dispatchPosts, finish, launchAndActivate, nodes, PRINCIPAL, receipts, TOKEN, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

const ATTEMPT = '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}';
/** GitHub reads of run `runId`'s attempts so far. */
const runReads = (runId: string): number => bench.fake.requests.filter((q) => q.template === ATTEMPT && q.path.includes(`/actions/runs/${runId}/attempts/`)).length;

describe('reconcile --all: one group at a time', () => {
  it('a group whose receipts cannot be read is reported failed (input_invalid) and the later groups are still reconciled and settled; exit 3 reconcile_failed with every report in error.details', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const groups = await bench.grant('g1', 3, 3);
    const runs: string[] = [];
    for (const d of groups) {
      const run = await launchAndActivate(bench, d);
      await finish(bench, d, 'h1', 'completed', run);
      setRunStatus(bench.fake.state, run, 'completed', 'success');
      runs.push(run);
    }
    const [g1, g2, g3] = groups as [string, string, string];
    let p = await bench.projection();
    const dir = mkdtempSync(join(tmpdir(), 'fairway-receipts-'));
    for (const [i, d] of groups.entries()) {
      const claim = claimOf(p, d, 'h1');
      writeFileSync(join(dir, `${claim}.json`), d === g2 ? '{ not json' : JSON.stringify(receipts(d, claim, runs[i]!)));
    }
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const r = await cli(bench, 'reconcile', '--all', '--receipts', dir, '--interval-ms', '0');
    expect(r.code, JSON.stringify(r.json)).toBe(3);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'reconcile_failed', details: { failed: [g2], not_attempted: [], unresolved: [] } } });
    expect(r.json.error.details.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: g1, outcome: 'released', state: 'released' }),
      expect.objectContaining({ dispatch_id: g2, outcome: 'failed', state: 'released', commits: [expect.any(String)], error: expect.objectContaining({ code: 'input_invalid' }) }),
      expect.objectContaining({ dispatch_id: g3, outcome: 'released', state: 'released' }),
    ]);
    p = await bench.replayValid();
    expect(r.json.error.details.deliveries).toEqual([
      expect.objectContaining({ claim_id: claimOf(p, g1, 'h1'), outcome: 'result' }),
      expect.objectContaining({ claim_id: claimOf(p, g3, 'h1'), outcome: 'result' }),
    ]);
    expect(groups.map((d) => p.dispatch(d)!.released)).toEqual([true, true, true]);
    expect(countOps(p, 'Result')).toBe(2);
    // Without --json: every group's line first, then the failure.
    let out = '';
    let err = '';
    const human = await runFairway(['--dir', bench.dir, '--principal', PRINCIPAL, 'reconcile', '--all', '--receipts', dir, '--interval-ms', '0'], { out: (t) => (out += t), err: (t) => (err += t) });
    expect(human).toBe(3);
    expect(out).toContain(`${g2}: failed (released)`);
    expect(out).toContain('input_invalid: --receipts file');
    expect(err).toMatch(/^fairway: reconcile_failed: 1 of 1 dispatch group\(s\) failed to reconcile/);
  });

  it('a receipts descriptor that JSON.parse would quietly change (a duplicated key) is refused like result --descriptor: failed with input_invalid, no Result published', async () => {
    bench = await createBench({ nodes: nodes('a') });
    const [d] = await bench.grant('g1', 1, 1) as [string];
    const run = await launchAndActivate(bench, d);
    await finish(bench, d, 'h1', 'completed', run);
    setRunStatus(bench.fake.state, run, 'completed', 'success');
    const claim = claimOf(await bench.projection(), d, 'h1');
    const dir = mkdtempSync(join(tmpdir(), 'fairway-receipts-'));
    writeFileSync(join(dir, `${claim}.json`), JSON.stringify(receipts(d, claim, run)));
    writeFileSync(join(dir, `${claim}.descriptor.json`), '{"summary":"reviewed","summary":"shipped"}');
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const r = await cli(bench, 'reconcile', '--dispatch-id', d, '--receipts', dir, '--interval-ms', '0');
    expect(r.code, JSON.stringify(r.json)).toBe(3);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'reconcile_failed', details: { failed: [d] } } });
    expect(r.json.error.details.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: d, outcome: 'failed', error: expect.objectContaining({ code: 'input_invalid', details: { reason: 'duplicate_key' } }) }),
    ]);
    const p = await bench.replayValid();
    expect(countOps(p, 'Result')).toBe(0);
    expect(p.work(p.claim(claim)!.workId)!.barrier).toBe('pending');
  });

  it('a queue that cannot be written stops the pass: the group reconciled before it keeps its report, the failing one carries store_locked, the rest are not_attempted and keep their reservations (exit 3 store_locked)', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const dead = dispatcherRun(bench);
    const [running, stranded, later] = await bench.grant('g1', 3, 3, dead.actor) as [string, string, string];
    await launchGroup(bench.launchDeps(), running);
    setRunStatus(bench.fake.state, dead.runId, 'completed', 'failure');
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const lock = join(bench.dir, '.git', 'refs', 'heads', 'work-queue.lock');
    writeFileSync(lock, ''); // a stale ref lock: the queue cannot be written
    const r = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    rmSync(lock);
    expect(r.code, JSON.stringify(r.json)).toBe(3);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'store_locked', details: { failed: [stranded], not_attempted: [later] } } });
    expect(r.json.error.details.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: running, outcome: 'running', state: 'bound' }),
      expect.objectContaining({ dispatch_id: stranded, outcome: 'failed', state: 'reserved', commits: [], error: expect.objectContaining({ code: 'store_locked' }) }),
      expect.objectContaining({ dispatch_id: later, outcome: 'not_attempted', state: 'reserved', commits: [] }),
    ]);
    let p = await bench.replayValid();
    expect(countOps(p, 'Release')).toBe(0);
    // The next pass, with the queue writable again, releases both never-started groups once.
    const again = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(again.code, JSON.stringify(again.json)).toBe(0);
    p = await bench.replayValid();
    expect([stranded, later].map((d) => p.dispatch(d)!.released)).toEqual([true, true]);
    expect(countOps(p, 'Release')).toBe(2);
  });

  it('a group whose prelaunch cancellation loses the race to its start marker (refused, nothing written) does not stop the batch: the next group is still cancelled', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c'), retry: { max_attempts: 1, backoff_seconds: 1 } });
    const [g1, g2, g3] = await bench.grant('g1', 3, 3) as [string, string, string];
    // g1's cancellation is the first compare-and-swap; just before g2's, a dispatcher starts g2.
    const store = racingStore(bench.store, async () => void await launchGroup(bench.launchDeps(), g2), 2);
    const batch = await reconcileGroups({ ...bench.reconcileDeps(), publisher: new Publisher(store), cancelReserved: true }, [g1, g2, g3]);
    expect(batch).toMatchObject({ failed: [g2], stopped: null });
    expect(batch.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: g1, outcome: 'released' }),
      expect.objectContaining({ dispatch_id: g2, outcome: 'failed', state: 'bound', commits: [], error: expect.objectContaining({ code: 'launch_already_started' }) }),
      expect.objectContaining({ dispatch_id: g3, outcome: 'released' }),
    ]);
    const p = await bench.replayValid();
    expect([g1, g2, g3].map((d) => p.dispatch(d)!.released)).toEqual([true, false, true]);
    expect(p.dispatch(g2)!.state).toBe('bound');
    expect(dispatchPosts(bench.fake)).toBe(1);
  });
});

describe('reconcile --all: the granting dispatcher run is read once a pass', () => {
  it('three groups reserved by one dispatcher run: one read of that run attempt per pass, while it runs (all kept) and once it is terminal (all prelaunch-cancelled)', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const granter = dispatcherRun(bench);
    const groups = await bench.grant('g1', 3, 3, granter.actor);
    expect(groups).toHaveLength(3);
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const kept = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(kept.code, JSON.stringify(kept.json)).toBe(0);
    expect(kept.json.reconciled).toEqual(groups.map((d) => expect.objectContaining({ dispatch_id: d, outcome: 'reserved', dispatcher_run: expect.objectContaining({ run_id: granter.runId, status: 'in_progress' }) })));
    expect(runReads(granter.runId)).toBe(1);
    expect(bench.fake.requests).toHaveLength(1); // nothing else was asked of GitHub
    setRunStatus(bench.fake.state, granter.runId, 'completed', 'failure');
    const released = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(released.code, JSON.stringify(released.json)).toBe(0);
    expect(released.json.reconciled).toEqual(groups.map((d) => expect.objectContaining({ dispatch_id: d, outcome: 'released', dispatcher_run: expect.objectContaining({ status: 'completed' }) })));
    expect(runReads(granter.runId)).toBe(2); // the next pass reads it anew, once
    const p = await bench.replayValid();
    expect(groups.map((d) => p.dispatch(d)!.released)).toEqual([true, true, true]);
    expect(bench.fake.violations).toEqual([]);
  });

  it('a failed read of the granting run keeps every group it granted for that pass (last_error, nothing released) after one request, and is not kept beyond the pass', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const granter = dispatcherRun(bench, 'completed');
    const groups = await bench.grant('g1', 3, 3, granter.actor);
    bench.fake.inject({ method: 'GET', path: ATTEMPT, kind: 'status', status: 503, body: { message: 'Service Unavailable', documentation_url: 'x' } });
    const failed = await reconcileGroups(bench.reconcileDeps(), groups);
    expect(failed.reconciled).toEqual(groups.map((d) => expect.objectContaining({ dispatch_id: d, outcome: 'evidence_unavailable', state: 'reserved', dispatcher_run: null, last_error: 'unavailable' })));
    expect(runReads(granter.runId)).toBe(1);
    expect(countOps(await bench.replayValid(), 'Release')).toBe(0);
    // The next pass asks GitHub again: the run is terminal, so every group it granted is cancelled.
    const again = await reconcileGroups(bench.reconcileDeps(), groups);
    expect(again.reconciled).toEqual(groups.map((d) => expect.objectContaining({ dispatch_id: d, outcome: 'released', last_error: null })));
    expect(runReads(granter.runId)).toBe(2);
    expect(countOps(await bench.replayValid(), 'Release')).toBe(3);
  });

  it('the CLI exits 3 with evidence_unavailable while the granting run cannot be read: a stranded group is not reported as fine', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    const granter = dispatcherRun(bench, 'completed');
    const groups = await bench.grant('g1', 2, 2, granter.actor);
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    // Credentials that stay broken (a 401 is not retried).
    bench.fake.inject({ method: 'GET', path: ATTEMPT, kind: 'status', status: 401, body: { message: 'Bad credentials', documentation_url: 'x' }, times: 100 });
    const unread = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(unread.code, JSON.stringify(unread.json)).toBe(3);
    expect(unread.json).toMatchObject({ ok: false, error: { code: 'evidence_unavailable', details: { unresolved: groups.map((d) => expect.objectContaining({ dispatch_id: d, outcome: 'evidence_unavailable', last_error: 'unauthorized', next_action: expect.stringMatching(/could not be read \(unauthorized\): restore GitHub API access/) })) } } });
    expect(countOps(await bench.replayValid(), 'Release')).toBe(0);
  });
});
