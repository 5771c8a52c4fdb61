/**
 * Scheduler benchmark (issue 3 "Benchmark"): `planNext` + fair-prefix packing
 * of one `dispatch_next {max_claims: 16}` against a real replayed queue with
 * 1,024 fairness keys (weights 1..10) spread over 5 priority classes, at
 * 256 / 1,024 / 4,096 ready Work. Target: < 1 ms per dispatch_next at 4,096.
 *
 * The queue is built through the request builders and validated by replay
 * (LedgerWriter); 128 warm-up Claims are granted and settled first so the
 * clocks carry history.
 * Each timed call is the pure packer on that state (nothing is committed), so
 * every iteration measures the same decision.
 *
 * `runSchedulerBench()` returns the rows and prints a table; standalone:
 * `npx tsx bench/scheduler.ts [--iterations=N]`.
 */
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../engine/json.ts';
import { dispatchBound, dispatchStarted, release, result } from '../engine/requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../engine/requests/operations.ts';
import { LedgerWriter } from '../engine/requests/writer.ts';
import { pack } from '../engine/scheduler/pack.ts';
import { planNext } from '../engine/scheduler/plan.ts';
import { bucketsOf, availableIn } from '../engine/state/ready-index.ts';
import type { Actor } from '../engine/schema/index.ts';
import { parseWorkQueueSettings, policyFromSettings } from '../lib/config/aw.ts';

export interface SchedulerBenchRow {
  ready_work: number;
  buckets: number;
  fairness_keys: number;
  classes: number;
  claims_per_dispatch: number;
  iterations: number;
  /** One dispatch_next: 16 planNext decisions + packing (ms). */
  dispatch_next_ms_median: number;
  dispatch_next_ms_p95: number;
  /** One planNext on the unmodified state (ms). */
  plan_next_ms_median: number;
  target_ms: number;
  meets_target: boolean;
  stop_reason: string;
}

export interface SchedulerBenchOptions {
  sizes?: number[];
  keys?: number;
  claims?: number;
  iterations?: number;
  /** Print the table (default true). */
  print?: boolean;
}

const REPOSITORY = 'bench/scheduler';
const TARGET_MS = 1;
const WARMUP_CLAIMS = 128;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * A replayed queue with `ready` available Work over `keys` fairness keys (key i
 * in class 1 + i % 5). First 128 warm-up Work are granted, completed with a
 * verified Result and released, so the clocks carry history while the
 * pending-node budget (4,096) stays free for the measured backlog.
 */
function buildQueue(ready: number, keys: number, claims: number): LedgerWriter {
  // 1,024 registered keys is the Policy ceiling, the default empty key included (key 0).
  const keyName = (k: number): string => (k === 0 ? '' : `tenant-${k}`);
  const weights: Record<string, number> = {};
  for (let k = 0; k < keys; k++) weights[keyName(k)] = 1 + (k % 10);
  const settings = parseWorkQueueSettings({ concurrency: 4096, pending_limit: 4096, accounting_weights: weights });
  const policy = policyFromSettings(settings, { repository: REPOSITORY, principal: '1', profile: { ref: '1'.repeat(40), max_claims: claims, share_keys: true } });
  const producer: Actor = { role: 'producer', principal: '1', repository: REPOSITORY };
  const dispatcher: Actor = { role: 'dispatcher', principal: '1', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '1', run_attempt: 1 };
  const reconciler: Actor = { role: 'reconciler', principal: '1', repository: REPOSITORY };
  const node = (j: number, prefix: string): SubmitNode => {
    const k = j % keys;
    return { node_key: `${prefix}${j}`, payload: { task: j }, fairness_key: keyName(k), priority: 1 + (k % 5) };
  };
  const w = new LedgerWriter();
  let t = 1_800_000_000_000;
  let seq = 0;
  const submit = (count: number, prefix: string): void => {
    for (let start = 0; start < count; start += 256) {
      const chunk = Array.from({ length: Math.min(256, count - start) }, (_, i) => node(start + i, prefix));
      const id = `submit-${seq++}`;
      if (w.state.policy === null) w.publish(id, producer, (t += 1000), bootstrapRequest(policy as JsonObject, 'bench', chunk, { graphId: id, at: t }));
      else w.publish(id, producer, (t += 1000), submitRequest(w.state, chunk, { graphId: id, at: t }));
    }
  };
  submit(WARMUP_CLAIMS, 'warm');
  for (let i = 0; i < WARMUP_CLAIMS / claims; i++) {
    const { built } = w.dispatchNext(`warmup-${i}`, dispatcher, (t += 1000), { pool: 'default', max_claims: claims, max_dispatches: 1, max_bytes: 49152 });
    const dispatchId = built.plan.claims[0]!.dispatch_id;
    const runId = String(1000 + i);
    w.publish(`start-${i}`, dispatcher, (t += 1000), dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
    w.publish(`bind-${i}`, reconciler, (t += 1000), dispatchBound(w.state, dispatchId, runId, t));
    for (const claim of built.plan.claims) {
      const worker: Actor = { role: 'worker', principal: '1', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: runId, run_attempt: 1, dispatch_id: dispatchId, claim_handle: claim.handle };
      w.publish(`finish-${claim.claim_id}`, worker, (t += 1000), finishRequest(w.state, { dispatch_id: dispatchId, claim_handle: claim.handle, outcome: 'completed' }, t));
      w.publish(`result-${claim.claim_id}`, reconciler, (t += 1000), result(w.state, claim.work_id, { ok: true }, t, `receipt-${claim.claim_id}`));
    }
    w.publish(`release-${i}`, reconciler, (t += 1000), release(w.state, dispatchId, t));
  }
  submit(ready, 'w');
  return w;
}

export function runSchedulerBench(options: SchedulerBenchOptions = {}): SchedulerBenchRow[] {
  const sizes = options.sizes ?? [256, 1024, 4096];
  const keys = options.keys ?? 1024;
  const claims = options.claims ?? 16;
  const iterations = options.iterations ?? 200;
  const rows: SchedulerBenchRow[] = [];
  for (const size of sizes) {
    const w = buildQueue(size, keys, claims);
    const state = w.state;
    const asOf = state.commits[state.commits.length - 1]!.at + 1000;
    const request = { requestId: 'bench-request', commitId: 'bench-commit', pool: 'default', max_claims: claims, max_dispatches: 1, max_bytes: 49152 };
    let buckets = 0;
    for (const byKey of bucketsOf(state.ready, 'default').values()) buckets += byKey.size;
    let stop = '';
    for (let i = 0; i < 20; i++) stop = pack(state, request, asOf).stopReason; // warm the JIT
    const packTimes: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      const plan = pack(state, request, asOf);
      packTimes.push(performance.now() - t0);
      if (plan.claims.length !== claims) throw new Error(`expected ${claims} Claims, packed ${plan.claims.length} (${plan.stopReason})`);
    }
    const planTimes: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      planNext(state, 'default', asOf);
      planTimes.push(performance.now() - t0);
    }
    packTimes.sort((a, b) => a - b);
    planTimes.sort((a, b) => a - b);
    const median = quantile(packTimes, 0.5);
    rows.push({
      ready_work: availableIn(state.ready, 'default'),
      buckets,
      fairness_keys: keys,
      classes: 5,
      claims_per_dispatch: claims,
      iterations,
      dispatch_next_ms_median: round(median),
      dispatch_next_ms_p95: round(quantile(packTimes, 0.95)),
      plan_next_ms_median: round(quantile(planTimes, 0.5)),
      target_ms: TARGET_MS,
      meets_target: median < TARGET_MS,
      stop_reason: stop,
    });
  }
  if (options.print !== false) process.stdout.write(`${formatSchedulerBench(rows)}\n`);
  return rows;
}

export function formatSchedulerBench(rows: readonly SchedulerBenchRow[]): string {
  const header = ['ready Work', 'buckets', 'keys', 'classes', 'Claims', 'dispatch_next median ms', 'p95 ms', 'planNext median ms', `target < ${TARGET_MS} ms`];
  const body = rows.map((r) => [
    String(r.ready_work), String(r.buckets), String(r.fairness_keys), String(r.classes), String(r.claims_per_dispatch),
    r.dispatch_next_ms_median.toFixed(3), r.dispatch_next_ms_p95.toFixed(3), r.plan_next_ms_median.toFixed(3), r.meets_target ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  return ['scheduler: planNext + fair-prefix packing of one dispatch_next', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const flag = process.argv.find((a) => a.startsWith('--iterations='));
  runSchedulerBench({ iterations: flag === undefined ? undefined : Number(flag.slice('--iterations='.length)) });
}
