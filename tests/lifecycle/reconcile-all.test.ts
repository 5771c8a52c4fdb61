/**
 * `reconcile --all` reconciles each group on its own (lib/lifecycle/reconcile-batch.ts, the
 * policy of `launch --next`): a group whose own request is refused with nothing written is
 * reported `failed` and the others are still reconciled; an error that leaves the queue in
 * doubt (here: the queue cannot be written) stops the pass, the rest reported `not_attempted`.
 * Either way every group's report is printed (under --json: error.details).
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
    expect(out).toContain('input_invalid: cannot read');
    expect(err).toMatch(/^fairway: reconcile_failed: 1 of 1 dispatch group\(s\) failed to reconcile/);
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
