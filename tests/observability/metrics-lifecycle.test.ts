/**
 * `fairway stats --format openmetrics` (the real CLI entry point on a real Git repository) across
 * the launch lifecycle: open Claims, running Work, native reservations, an uncertain and an
 * unresolved launch, a pending delivery barrier, grants and completions, each checked against
 * `stats --json` and the ledger's own records (issue 15 §4).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { queueMetrics } from '../../engine/metrics/queue-metrics.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { runFairway } from '../support/cli.ts';
import { createBench, finish, launchAndActivate, nodes, type Bench } from '../lifecycle/harness.ts';
import { ledgerCounts, parseOpenMetrics, total, value } from './openmetrics.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

async function cli(b: Bench, ...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runFairway(['--repo', b.dir, ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, out };
}

describe('stats --format openmetrics', () => {
  it('exposes Claims, reservations, uncertain and unresolved launches and pending barriers, agreeing with stats --json and the ledger', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c', 'd') });
    const [uncertain] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 204, process: true });
    expect((await launchGroup(bench.launchDeps(), uncertain!)).outcome).toBe('uncertain');
    const [unresolved] = await bench.grant('g2');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-before' });
    await launchGroup(bench.launchDeps(), unresolved!);
    expect((await reconcileDispatch(bench.reconcileDeps(), unresolved!)).outcome).toBe('launch_unresolved');
    const [done] = await bench.grant('g3');
    const runId = await launchAndActivate(bench, done!);
    expect((await finish(bench, done!, 'h1', 'completed', runId)).status).toBe('committed');

    const text = await cli(bench, 'stats', '--format', 'openmetrics');
    expect(text.code).toBe(0);
    const samples = parseOpenMetrics(text.out);
    const json = await cli(bench, 'stats', '--format', 'json');
    const stats = JSON.parse(json.out);
    const [pool] = stats.pools;
    const where = { pool: 'default' };

    expect(total(samples, 'fairway_grants_total', where)).toBe(3);
    expect(total(samples, 'fairway_completions_total', where)).toBe(1);
    expect(total(samples, 'fairway_claims_open', where)).toBe(2);
    expect(total(samples, 'fairway_work_running', where)).toBe(2);
    expect(total(samples, 'fairway_work_running', where)).toBe(pool.claimed);
    expect(total(samples, 'fairway_delivery_barriers_pending', where)).toBe(1);
    expect(value(samples, 'fairway_launches_uncertain', where)).toBe(1);
    expect(value(samples, 'fairway_launches_unresolved', where)).toBe(1);
    expect(value(samples, 'fairway_native_reservations', where)).toBe(3);
    expect(value(samples, 'fairway_native_reservations', where)).toBe(pool.native_outstanding);
    expect(value(samples, 'fairway_logical_reservations', where)).toBe(pool.logical_outstanding);
    expect(total(samples, 'fairway_work_ready', where)).toBe(pool.eligible);
    expect(total(samples, 'fairway_work_ready', where) + total(samples, 'fairway_work_waiting', where)).toBe(pool.available);
    expect(pool.available).toBe(1);
    expect(value(samples, 'fairway_ledger_bytes')).toBe(stats.envelope.bytes);
    expect(value(samples, 'fairway_ledger_reserve_bytes')).toBe(stats.envelope.reserve);
    expect(value(samples, 'fairway_ledger_commits')).toBe(stats.commits);
    const ledger = new TextDecoder().decode((await bench.store.read()).bytes!);
    expect(ledgerCounts(ledger)).toEqual({ claims: 3, completions: 1 });
    // Each series carries pool and class only, no fairness key (spec 7.13); the demo node's class is the default priority 3.
    expect(samples.find((s) => s.name === 'fairway_grants_total')!.labels).toEqual({ pool: 'default', class: '3' });
  }, 60_000);

  it('is a pure function of the projection and the evaluation time: the oldest-eligible age follows the clock, equal inputs give equal metrics', async () => {
    bench = await createBench({ nodes: nodes('a', 'b') });
    const p = await bench.replayValid();
    const enqueued = Math.min(...[...p.works()].map((w) => w.enqueued));
    const at = (ms: number) => queueMetrics(p, enqueued + ms);
    expect(at(90_000).classes[0]).toEqual({ pool: 'default', class: '3', ready: 2, running: 0, completions: 0, cancellations: 0, deliveryFailures: 0, openClaims: 0, pendingBarriers: 0, waiting: 0, grants: 0, oldestEligibleAgeSeconds: 90 });
    expect(at(150_000).classes[0]!.oldestEligibleAgeSeconds).toBe(150);
    expect(at(90_000)).toEqual(queueMetrics(await bench.replayValid(), enqueued + 90_000));
  });
});
