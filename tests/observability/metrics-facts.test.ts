/**
 * The metrics of a queue whose facts are known by construction (issue 15 §4; spec 7.4: "Actual
 * launches, completed Work, failures, and consumed resources MUST be reported as separate
 * metrics"): six Work, five groups granted one Claim each and taken down five different paths
 * (an uncertain launch, an unresolved one, a completion whose delivery is pending, a completion
 * whose delivery failed, a rejected launch), one Work never granted, then admission paused (which leaves it ready). The
 * console's /metrics (evaluated at a pinned time) and `fairway stats --format openmetrics|prometheus`
 * (the real entry point on the same Git repository) must expose exactly those facts; the
 * ledger's own bytes, lines and Policy give the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../../engine/requests/lifecycle.ts';
import type { ConsoleConfig } from '../../lib/console/config.ts';
import { metricsResponse } from '../../lib/console/metrics.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { METRIC_HELP } from '../../lib/metrics/exposition.ts';
import { settleDelivery } from '../../lib/lifecycle/delivery.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { runFairway } from '../support/cli.ts';
import { claimOf, createBench, finish, launchAndActivate, nodes, T0, type Bench } from '../lifecycle/harness.ts';
import { parseOpenMetrics, total, value, type Sample } from './openmetrics.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const CLASS = { pool: 'default', class: '3' };
const POOL = { pool: 'default' };

let bench: Bench;
/** The evaluation time the console is pinned to. */
let evaluatedAt: number;
let ledger: string;
let console: Sample[];

async function cli(...args: string[]): Promise<string> {
  let out = '';
  expect(await runFairway(['--dir', bench.dir, ...args], { out: (s) => (out += s), err: () => undefined })).toBe(0);
  return out;
}

beforeAll(async () => {
  bench = await createBench({ nodes: nodes('a', 'b', 'c', 'd', 'e', 'f') });
  const step = () => (bench.clock.t += 1000);

  step();
  const [uncertain] = await bench.grant('g1');
  bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 204, process: true });
  expect((await launchGroup(bench.launchDeps(), uncertain!)).outcome).toBe('uncertain');

  step();
  const [unresolved] = await bench.grant('g2');
  bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-before' });
  await launchGroup(bench.launchDeps(), unresolved!);
  expect((await reconcileDispatch(bench.reconcileDeps(), unresolved!)).outcome).toBe('launch_unresolved');

  step();
  const [pending] = await bench.grant('g3');
  const pendingRun = await launchAndActivate(bench, pending!);
  expect((await finish(bench, pending!, 'h1', 'completed', pendingRun)).status).toBe('committed');

  step();
  const [failed] = await bench.grant('g4');
  const failedRun = await launchAndActivate(bench, failed!);
  expect((await finish(bench, failed!, 'h1', 'completed', failedRun)).status).toBe('committed');
  setRunStatus(bench.fake.state, failedRun, 'completed', 'failure');
  bench.clock.t += 300_000; // past the reconciliation deadline from the Completion
  const claim = claimOf(await bench.projection(), failed!, 'h1');
  const deps = { publisher: bench.publisher, api: bench.api, reconciler: bench.reconciler, now: bench.now };
  expect((await settleDelivery(deps, { claimId: claim, receipts: null })).outcome).toBe('delivery_failure');

  step();
  const [rejected] = await bench.grant('g5');
  bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'status', status: 422, body: { message: 'Unexpected inputs provided', documentation_url: 'https://docs.github.com/rest' } });
  expect(await launchGroup(bench.launchDeps(), rejected!)).toMatchObject({ outcome: 'rejected', state: 'released' });

  step();
  await bench.publisher.publish({ requestId: 'pause', actor: bench.admin, prepare: () => control('admission_paused', true, 'maintenance'), now: bench.now });

  ledger = new TextDecoder().decode((await bench.store.read()).bytes!);
  evaluatedAt = bench.clock.t + 5000; // within e's 30 s retry backoff from its cancellation
  const config: ConsoleConfig = { source: { kind: 'repo', repo: bench.dir, branch: 'work-queue' }, demo: false, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: evaluatedAt };
  const res = await metricsResponse(() => new ConsoleRuntime(config, bench.store), async () => true);
  expect(res.status).toBe(200);
  console = parseOpenMetrics(await res.text());
}, 60_000);

afterAll(async () => {
  await bench.close();
});

describe('metrics of a queue with known facts', () => {
  it('Work by state, Claims, launches, failures and barriers are the facts the scenario built', () => {
    // Consumed resources: five Claims charged. Completed: c and d. Failures: e's Claim (rejected launch) before a Completion, d's delivery after one.
    expect(value(console, 'fairway_grants_total', CLASS)).toBe(5);
    expect(value(console, 'fairway_completions_total', CLASS)).toBe(2);
    expect(value(console, 'fairway_claims_cancelled_total', CLASS)).toBe(1);
    expect(value(console, 'fairway_delivery_failures_total', CLASS)).toBe(1);
    // Every Claim is open, completed or cancelled.
    expect(value(console, 'fairway_claims_open', CLASS)).toBe(2);
    // Actual launches: the two groups bound to a worker run; the rejected one apart; the uncertain and unresolved are neither yet.
    expect(value(console, 'fairway_launches_total', POOL)).toBe(2);
    expect(value(console, 'fairway_launches_rejected_total', POOL)).toBe(1);
    expect(value(console, 'fairway_launches_uncertain', POOL)).toBe(1);
    expect(value(console, 'fairway_launches_unresolved', POOL)).toBe(1);
    // a and b run; f is ready; e waits out its retry backoff; c's delivery is pending.
    expect(value(console, 'fairway_work_running', CLASS)).toBe(2);
    expect(value(console, 'fairway_work_ready', CLASS)).toBe(1);
    expect(value(console, 'fairway_work_waiting', CLASS)).toBe(1);
    expect(value(console, 'fairway_delivery_barriers_pending', CLASS)).toBe(1);
    // f was admitted with the genesis at T0.
    expect(value(console, 'fairway_work_oldest_eligible_age_seconds', CLASS)).toBeCloseTo((evaluatedAt - T0) / 1000, 3);
  });

  it('reservations: two logical slots (the open Claims), four native (every group but the released rejected one)', () => {
    expect(value(console, 'fairway_logical_reservations', POOL)).toBe(2);
    expect(value(console, 'fairway_native_reservations', POOL)).toBe(4);
  });

  it('ledger, Policy and Controls are what the ledger itself says', () => {
    const lines = ledger.split('\n').filter((l) => l !== '');
    const genesis = JSON.parse(lines[0]!) as { policy_epoch: string; operations: Array<{ kind: string; policy?: { limits: { ledger_bytes: number; recovery_bytes: number } } }> };
    const { limits } = genesis.operations.find((op) => op.kind === 'Policy')!.policy!;
    const tip = JSON.parse(lines.at(-1)!) as { at: string | number };
    expect(value(console, 'fairway_ledger_bytes')).toBe(Buffer.byteLength(ledger));
    expect(value(console, 'fairway_ledger_commits')).toBe(lines.length);
    expect(value(console, 'fairway_ledger_watermark_bytes')).toBe(limits.ledger_bytes);
    expect(value(console, 'fairway_ledger_recovery_bytes')).toBe(limits.recovery_bytes);
    expect(value(console, 'fairway_ledger_last_commit_timestamp_seconds')).toBe(Number(tip.at) / 1000);
    expect(value(console, 'fairway_ledger_last_commit_timestamp_seconds')).toBe(bench.clock.t / 1000);
    expect(value(console, 'fairway_policy_info', { epoch: genesis.policy_epoch })).toBe(1);
    expect(genesis.policy_epoch).toBe('epoch-1');
    expect(value(console, 'fairway_grants_paused')).toBe(0);
    expect(value(console, 'fairway_admission_paused')).toBe(1);
    expect(value(console, 'fairway_metrics_evaluated_at_seconds')).toBe(evaluatedAt / 1000);
    expect(value(console, 'fairway_store_stale')).toBe(0);
  });

  it('the CLI exposes the same values in both formats (the real entry point on the same repository)', async () => {
    // Evaluated now, not at the console's pinned time: e's retry backoff is over, so ready and waiting differ, not their sum.
    const timely = new Set(['fairway_metrics_evaluated_at_seconds', 'fairway_work_oldest_eligible_age_seconds', 'fairway_work_ready', 'fairway_work_waiting']);
    const values = (list: Sample[]) => new Map(list.filter((s) => !timely.has(s.name)).map((s) => [`${s.name}${JSON.stringify(s.labels)}`, s.value]));
    const expected = values(console);
    const openMetrics = parseOpenMetrics(await cli('stats', '--format', 'openmetrics'));
    expect(values(openMetrics)).toEqual(expected);
    expect(total(openMetrics, 'fairway_work_ready') + total(openMetrics, 'fairway_work_waiting')).toBe(2);
    const prometheus = (await cli('stats', '--format', 'prometheus')).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(values(parseOpenMetrics(`${prometheus.join('\n')}\n# EOF\n`))).toEqual(expected);
    // Sanity of the sums the scenario implies: 5 grants = 2 completed + 1 cancelled + 2 open.
    expect(total(console, 'fairway_grants_total')).toBe(total(console, 'fairway_completions_total') + total(console, 'fairway_claims_cancelled_total') + total(console, 'fairway_claims_open'));
  });

  it('every exported metric family is documented in docs/observability.md, and every documented one is exported', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    const documented = new Set([...doc.matchAll(/`(fairway_[a-z_]+)`/g)].map((m) => m[1]!));
    expect([...documented].sort()).toEqual(Object.keys(METRIC_HELP).sort());
    // Every family of METRIC_HELP is in the exposition (a sample, or its # TYPE line when it has none).
    const text = await cli('stats', '--format', 'prometheus');
    for (const name of Object.keys(METRIC_HELP)) expect(text, name).toContain(`# TYPE ${name} `);
  });
});
