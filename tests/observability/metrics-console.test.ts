/**
 * The console's /metrics route handler (lib/console/metrics.ts) on the demo queue: OpenMetrics
 * text whose values agree with `fairway stats --json` on the same ledger (the real CLI entry
 * point) and with the ledger's own records; refused without read authorisation.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { seedDemoDay } from '../../lib/demo/day.ts';
import type { ConsoleConfig } from '../../lib/console/config.ts';
import { MemoryStore } from '../support/memory-store.ts';
import { metricsResponse } from '../../lib/console/metrics.ts';
import { ConsoleRuntime } from '../../lib/console/runtime.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { runFairway } from '../support/cli.ts';
import { ledgerCounts, parseOpenMetrics, total, value } from './openmetrics.ts';

const config: ConsoleConfig = { source: { kind: 'repo', repo: '/nowhere', branch: 'work-queue' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001' };

async function demo(): Promise<{ runtime: ConsoleRuntime; ledger: string; file: string }> {
  const store = new MemoryStore('metrics');
  await seedDemoDay(new Publisher(store), { now: Date.now() });
  const ledger = new TextDecoder().decode((await store.read()).bytes!);
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-metrics-')), 'work-queue.jsonl');
  writeFileSync(file, ledger);
  return { runtime: new ConsoleRuntime(config, store), ledger, file };
}

async function stats(file: string): Promise<any> {
  let out = '';
  expect(await runFairway(['--json', '--ledger', file, 'stats'], { out: (s) => (out += s), err: () => undefined })).toBe(0);
  return JSON.parse(out);
}

describe('GET /metrics (console route handler)', () => {
  it('answers OpenMetrics text whose values match stats --json and the ledger', async () => {
    const { runtime, ledger, file } = await demo();
    const res = await metricsResponse(() => runtime, async () => true);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const samples = parseOpenMetrics(await res.text());
    const s = await stats(file);

    expect(value(samples, 'fairway_ledger_commits')).toBe(s.commits);
    expect(value(samples, 'fairway_ledger_bytes')).toBe(s.envelope.bytes);
    expect(value(samples, 'fairway_ledger_bytes')).toBe(Buffer.byteLength(ledger));
    expect(value(samples, 'fairway_ledger_watermark_bytes')).toBe(s.envelope.ledger_bytes);
    expect(value(samples, 'fairway_ledger_reserve_bytes')).toBe(s.envelope.reserve);
    expect(value(samples, 'fairway_ledger_recovery_bytes')).toBe(s.envelope.recovery_bytes);
    expect(value(samples, 'fairway_ledger_admission_remaining_bytes')).toBe(s.envelope.admission_remaining);
    expect(value(samples, 'fairway_grants_paused')).toBe(s.controls.grants_paused ? 1 : 0);
    expect(s.pools.length).toBeGreaterThan(0);
    for (const p of s.pools) {
      const pool = { pool: p.pool };
      expect(total(samples, 'fairway_work_ready', pool), p.pool).toBe(p.eligible);
      expect(total(samples, 'fairway_work_ready', pool) + total(samples, 'fairway_work_waiting', pool)).toBe(p.available);
      expect(total(samples, 'fairway_work_running', pool)).toBe(p.claimed);
      expect(value(samples, 'fairway_logical_reservations', pool)).toBe(p.logical_outstanding);
      expect(value(samples, 'fairway_native_reservations', pool)).toBe(p.native_outstanding);
      expect(value(samples, 'fairway_logical_limit', pool)).toBe(p.logical_limit ?? undefined);
      // The backlog's (class, key) buckets summed per class: the metrics carry no fairness key (spec 7.13).
      const byClass = new Map<number, number>();
      for (const b of p.backlog) byClass.set(b.priority, (byClass.get(b.priority) ?? 0) + b.available);
      expect(new Set(p.backlog.map((b: any) => b.fairness_key)).size, 'the demo pool has several fairness keys').toBeGreaterThan(1);
      for (const [priority, available] of byClass) {
        const where = { pool: p.pool, class: String(priority) };
        expect(value(samples, 'fairway_work_ready', where)! + value(samples, 'fairway_work_waiting', where)!, JSON.stringify(where)).toBe(available);
      }
    }
    // Counters are the ledger's own records: any process reading it computes the same.
    const counts = ledgerCounts(ledger);
    expect(counts.claims).toBeGreaterThan(0);
    expect(total(samples, 'fairway_grants_total')).toBe(counts.claims);
    expect(total(samples, 'fairway_completions_total')).toBe(counts.completions);
    expect(total(samples, 'fairway_claims_open')).toBe(s.pools.reduce((n: number, p: any) => n + p.claimed, 0));
  });

  it('while the store cannot be read, answers the last good values with fairway_store_stale 1 (a scraper keeps no headers)', async () => {
    const store = new MemoryStore('metrics-stale');
    await seedDemoDay(new Publisher(store), { now: Date.now() });
    const runtime = new ConsoleRuntime(config, store);
    const fresh = parseOpenMetrics(await (await metricsResponse(() => runtime, async () => true)).text());
    expect(value(fresh, 'fairway_store_stale')).toBe(0);

    store.read = async () => {
      throw new ProtocolError('store_unreachable', 'the store is down');
    };
    runtime.invalidate();
    const res = await metricsResponse(() => runtime, async () => true);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-fairway-stale')).toBe('1');
    const stale = parseOpenMetrics(await res.text());
    expect(value(stale, 'fairway_store_stale')).toBe(1);
    expect(value(stale, 'fairway_ledger_commits')).toBe(value(fresh, 'fairway_ledger_commits'));
  });

  it('refuses without read authorisation (401) and never echoes a store failure', async () => {
    const { runtime } = await demo();
    const refused = await metricsResponse(() => runtime, async () => false);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('unauthenticated\n');
    const empty = new ConsoleRuntime(config, new MemoryStore('empty'));
    const absent = await metricsResponse(() => empty, async () => true);
    expect(absent.status).toBe(503);
    expect(await absent.text()).toBe('queue_uninitialized\n');
  });
});
