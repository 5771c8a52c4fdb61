/**
 * Spec 7.13: "Keep metrics low-cardinality: counts/latencies by configured pool, priority, mode,
 * and result code, not per Work/Claim/request/tenant label." A fairness key is typically a
 * tenant, so the exposition has no `key` label: each (pool, class) series is the sum over the
 * fairness keys of that pool and class, and the oldest-eligible age the maximum over them.
 *
 * The queue: three fairness keys admitted a minute apart in pool `default`, with Work in classes
 * 2 and 3 under several keys, dependent Work that waits, Claims granted across keys, one
 * completed (delivery pending) and one cancelled. The expected values are tallied here per
 * (pool, class, key) from the replayed projection's own Work and Claim records, then summed; the
 * pure metrics, their exposition and `fairway stats --format openmetrics|prometheus` (the real
 * entry point on the ledger file) must carry exactly those sums under `pool` and `class` only.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { queueMetrics } from '../../engine/metrics/queue-metrics.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { dispatchBound, dispatchStarted } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { renderOpenMetrics, renderPrometheusText } from '../../lib/metrics/exposition.ts';
import { runFairway } from '../support/cli.ts';
import { parseOpenMetrics, type Sample } from './openmetrics.ts';

const REPOSITORY = 'acme/tenants';
const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };

/** The metric families with pool and class labels, and the per-key fact each one sums. */
const CLASS_FACTS = {
  fairway_work_ready: 'ready',
  fairway_work_waiting: 'waiting',
  fairway_work_running: 'running',
  fairway_grants_total: 'grants',
  fairway_completions_total: 'completions',
  fairway_claims_cancelled_total: 'cancellations',
  fairway_delivery_failures_total: 'deliveryFailures',
  fairway_claims_open: 'openClaims',
  fairway_delivery_barriers_pending: 'pendingBarriers',
} as const;
const AGE = 'fairway_work_oldest_eligible_age_seconds';
type Fact = (typeof CLASS_FACTS)[keyof typeof CLASS_FACTS];
type Facts = Record<Fact, number> & { oldestEnqueued: number | null };

let ledger: string;
let file: string;
let lastAt: number;

function tenant(key: string, n: number, priority: number, dependent = false): SubmitNode[] {
  const work: SubmitNode[] = Array.from({ length: n }, (_, i) => ({ node_key: `${key}-p${priority}-${i}`, payload: { key, i }, fairness_key: key, priority }));
  if (dependent) work.push({ node_key: `${key}-p${priority}-after`, payload: { key }, fairness_key: key, priority, depends_on: [{ kind: 'work', node_key: `${key}-p${priority}-0` }] });
  return work;
}

beforeAll(() => {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', weights: { alpha: 1, beta: 1, gamma: 1 }, logicalLimit: 64, nativeLimit: 64, maxClaims: 1 });
  let t = T0;
  const tick = () => (t += 60_000);
  w.publish('alpha', producer, tick(), bootstrapRequest(policy, 'epoch-1', [...tenant('alpha', 3, 3, true), ...tenant('alpha', 2, 2)], { graphId: 'alpha', at: t }));
  w.publish('beta', producer, tick(), submitRequest(w.state, [...tenant('beta', 3, 3, true), ...tenant('beta', 2, 2)], { graphId: 'beta', at: t }));
  w.publish('gamma', producer, tick(), submitRequest(w.state, tenant('gamma', 2, 3), { graphId: 'gamma', at: t }));
  const dispatches: string[] = [];
  for (let i = 0; i < 8; i++) {
    const { commit, built } = w.dispatchNext(`grant-${i}`, dispatcher, tick(), { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
    expect(commit).not.toBeNull();
    dispatches.push(built.plan.claims[0]!.dispatch_id);
  }
  // One Claim completed (its delivery barrier pending), one cancelled by its worker.
  for (const [i, outcome] of [[0, 'completed'], [1, 'cancelled']] as const) {
    const d = dispatches[i]!;
    w.publish(`start-${i}`, dispatcher, tick(), dispatchStarted(d, dispatcher as unknown as JsonObject));
    w.publish(`bind-${i}`, reconciler, tick(), dispatchBound(w.state, d, String(9000 + i), t));
    const worker: Actor = { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: String(9000 + i), run_attempt: 1, dispatch_id: d, claim_handle: 'h1' };
    w.publish(`finish-${i}`, worker, tick(), finishRequest(w.state, { dispatch_id: d, claim_handle: 'h1', outcome }, t));
  }
  lastAt = t;
  ledger = w.text();
  file = join(mkdtempSync(join(tmpdir(), 'fairway-metrics-keys-')), 'work-queue.jsonl');
  writeFileSync(file, ledger);
});

/** The facts of each (pool, class, fairness key), tallied from the projection's Work and Claim records. */
function perKey(p: Projection, asOf: number): Map<string, Facts> {
  const out = new Map<string, Facts>();
  const at = (pool: string, priority: number, key: string): Facts => {
    const id = JSON.stringify([pool, String(priority), key]);
    if (!out.has(id)) out.set(id, { ready: 0, waiting: 0, running: 0, grants: 0, completions: 0, cancellations: 0, deliveryFailures: 0, openClaims: 0, pendingBarriers: 0, oldestEnqueued: null });
    return out.get(id)!;
  };
  for (const w of p.works()) {
    const f = at(w.pool, w.effectivePriority, w.fairnessKey);
    if (w.state === 'claimed') f.running += 1;
    if (w.state === 'available' && eligibility(p.state, w, asOf).eligible) {
      f.ready += 1;
      f.oldestEnqueued = Math.min(f.oldestEnqueued ?? w.enqueued, w.enqueued);
    } else if (w.state === 'available') f.waiting += 1;
    if (w.state === 'completed' && w.barrier === 'pending') f.pendingBarriers += 1;
    if (w.barrier === 'failed') f.deliveryFailures += 1;
  }
  for (const c of p.state.claims.values()) {
    const f = at(p.work(c.workId)!.pool, c.priority, c.fairnessKey);
    f.grants += 1;
    if (c.state === 'completed') f.completions += 1;
    if (c.state === 'cancelled') f.cancellations += 1;
    if (c.state === 'open') f.openClaims += 1;
  }
  return out;
}

/** `name{"pool","class"}` -> the sum over keys (the age: the maximum over keys), the series an exposition must carry. */
function expectedSeries(p: Projection, asOf: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, f] of perKey(p, asOf)) {
    const [pool, cls] = JSON.parse(id) as [string, string, string];
    const labels = JSON.stringify({ pool, class: cls });
    for (const [name, fact] of Object.entries(CLASS_FACTS)) out.set(`${name}${labels}`, (out.get(`${name}${labels}`) ?? 0) + f[fact]);
    if (f.oldestEnqueued !== null) {
      const age = (asOf - f.oldestEnqueued) / 1000;
      out.set(`${AGE}${labels}`, Math.max(out.get(`${AGE}${labels}`) ?? 0, age));
    }
  }
  return out;
}

/** The samples of the families labelled by class, as `name{"pool","class"}` -> value. */
function classSeries(samples: Sample[]): Map<string, number> {
  const names = new Set<string>([...Object.keys(CLASS_FACTS), AGE]);
  return new Map(samples.filter((s) => names.has(s.name)).map((s) => [`${s.name}${JSON.stringify({ pool: s.labels.pool, class: s.labels.class })}`, s.value]));
}

/** No sample carries a label but pool, class and (fairway_policy_info) epoch; the class families carry exactly pool and class. */
function expectLowCardinality(samples: Sample[]): void {
  expect(samples.length).toBeGreaterThan(0);
  for (const s of samples) {
    expect(Object.keys(s.labels), `${s.name}${JSON.stringify(s.labels)}`).not.toContain('key');
    for (const label of Object.keys(s.labels)) expect(['pool', 'class', 'epoch'], s.name).toContain(label);
    if (s.name in CLASS_FACTS || s.name === AGE) expect(Object.keys(s.labels).sort(), s.name).toEqual(['class', 'pool']);
  }
}

async function cli(format: string): Promise<string> {
  let out = '';
  expect(await runFairway(['--ledger', file, 'stats', '--format', format], { out: (s) => (out += s), err: () => undefined })).toBe(0);
  return out;
}

describe('metrics carry no fairness-key label (spec 7.13): per pool and class, summed over keys', () => {
  it('the scenario puts several fairness keys in one pool and class, with differing oldest ages', () => {
    const asOf = lastAt + 600_000;
    const keys = perKey(replayLedger(ledger), asOf);
    const of = (cls: string, fact: Fact) => [...keys].filter(([id, f]) => JSON.parse(id)[1] === cls && f[fact] > 0).map(([id]) => JSON.parse(id)[2] as string).sort();
    expect(of('3', 'ready')).toEqual(['alpha', 'beta', 'gamma']);
    expect(of('3', 'waiting').length + of('2', 'waiting').length).toBeGreaterThan(0);
    expect(of('3', 'grants').length + of('2', 'grants').length).toBeGreaterThan(2);
    expect(of('2', 'grants').length).toBeGreaterThanOrEqual(2);
    const completed = of('3', 'completions').length + of('2', 'completions').length;
    const cancelled = of('3', 'cancellations').length + of('2', 'cancellations').length;
    expect([completed, cancelled]).toEqual([1, 1]);
    const oldest = [...keys].filter(([id, f]) => JSON.parse(id)[1] === '3' && f.oldestEnqueued !== null).map(([, f]) => f.oldestEnqueued!);
    expect(new Set(oldest).size).toBe(3); // admitted a minute apart: the maximum age is one key's, not every key's
  });

  it('the pure metrics and their OpenMetrics / Prometheus texts: labels pool and class only, sums over keys, the maximum age', async () => {
    const p = replayLedger(ledger);
    const asOf = lastAt + 600_000;
    const metrics = queueMetrics(p, asOf);
    for (const s of metrics.classes) expect(Object.keys(s)).not.toContain('key');
    const expected = expectedSeries(p, asOf);
    // One series per (pool, class), whatever the number of keys.
    expect(metrics.classes.map((s) => `${s.pool}/${s.class}`)).toEqual(['default/2', 'default/3']);
    expect(expected.get(`${AGE}${JSON.stringify({ pool: 'default', class: '3' })}`)).toBe((asOf - (T0 + 60_000)) / 1000);

    const om = parseOpenMetrics(await renderOpenMetrics(metrics));
    expectLowCardinality(om);
    expect(classSeries(om)).toEqual(expected);
    const prometheus = (await renderPrometheusText(metrics)).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    const classic = parseOpenMetrics(`${prometheus.join('\n')}\n# EOF\n`);
    expectLowCardinality(classic);
    expect(classSeries(classic)).toEqual(expected);
  });

  it('fairway stats --format openmetrics and --format prometheus (the real CLI on the ledger) carry the same sums', async () => {
    const p = replayLedger(ledger);
    for (const format of ['openmetrics', 'prometheus']) {
      const before = Date.now();
      const text = await cli(format);
      const after = Date.now();
      const samples = format === 'openmetrics' ? parseOpenMetrics(text) : parseOpenMetrics(`${text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).join('\n')}\n# EOF\n`);
      expect(text, format).not.toMatch(/\bkey="/);
      expectLowCardinality(samples);
      // Counts do not move with the clock here (no backoff left, no gates): exact. The ages are bracketed by the run.
      const early = expectedSeries(p, before);
      const late = expectedSeries(p, after);
      const got = classSeries(samples);
      expect([...got.keys()].sort(), format).toEqual([...early.keys()].sort());
      for (const [series, v] of got) {
        if (series.startsWith(AGE)) {
          expect(v, series).toBeGreaterThanOrEqual(early.get(series)!);
          expect(v, series).toBeLessThanOrEqual(late.get(series)!);
        } else expect(v, `${format} ${series}`).toBe(early.get(series));
      }
    }
  });
});
