import { describe, expect, it } from 'vitest';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { workId } from '../../engine/identity/index.ts';
import { LedgerWriter } from '../../engine/requests/writer.ts';
import { Publisher } from '../publisher/publisher.ts';
import { runFairway } from '../../tests/support/cli.ts';
import { MemoryStore } from '../../tests/support/memory-store.ts';
import { seedDemoDay, PROBE_TEXT } from './day.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);

describe('demo day', () => {
  it('seeds a valid queue through the publisher that tells the section-0 story', async () => {
    const store = new MemoryStore('demo');
    const summary = await seedDemoDay(new Publisher(store), { now: NOW, probe: true });
    const projection = replayLedger(store.text());
    expect(projection.tip).toBe(summary.tip);
    const s = summarize(projection);
    expect(s.works.total).toBe(6 + 500 + 10 + 6 + 1 + 1);
    const state = projection.state;
    const review = state.works.get(workId('sdk-migration', 'review-proposals'))!;
    expect(eligibility(state, review, NOW)).toMatchObject({ eligible: false, reason: 'external_wait' });
    const docs = state.works.get(workId('sdk-migration', 'propose-docs-changes'))!;
    expect(eligibility(state, docs, NOW)).toMatchObject({ eligible: false, reason: 'retry_delayed' });
    const classes = new Set([...state.works.values()].map((w) => w.priority));
    expect([...classes].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(s.barriers.failed).toBe(1);
    expect([...state.works.values()].some((w) => (w.definition as { replacement_of?: unknown }).replacement_of !== undefined)).toBe(true);
    expect(s.controls.grants_paused).toBe(false);
    expect(state.works.get(workId('xss-probe', PROBE_TEXT))).toBeDefined();
    const shared = [...state.dispatches.values()].find((d) => d.claimIds.length === 3)!;
    expect(shared.claimIds.map((id) => state.claims.get(id)!.state)).toEqual(['completed', 'cancelled', 'completed']);
    expect(summary.requests).toBeGreaterThan(40);
  });
});

describe('one demo story', () => {
  it('the in-memory writer (fairway demo) and the publisher (the console\'s demo repository) write the same day, byte for byte', async () => {
    const store = new MemoryStore('demo-publisher');
    const published = await seedDemoDay(new Publisher(store), { now: NOW });
    const writer = new LedgerWriter();
    const written = await seedDemoDay(writer, { now: NOW });
    expect(writer.text()).toBe(store.text());
    expect(written).toEqual(published);
    expect(written.grants.length).toBeGreaterThan(8);
    expect(written.grants.every((g) => g.reason.length > 0)).toBe(true);
  });

  it('fairway demo --json tells that day through the real entry point', async () => {
    let out = '';
    expect(await runFairway(['demo', '--json'], { out: (s) => (out += s), err: () => undefined })).toBe(0);
    const doc = JSON.parse(out) as { ok: boolean; summary: { works: { total: number } }; grants: Array<{ request_id: string }> };
    expect(doc.ok).toBe(true);
    expect(doc.summary.works.total).toBe(6 + 500 + 10 + 6 + 1);
    expect(doc.grants.map((g) => g.request_id)).toContain('dispatch-0935-sdk-shared');
  });
});
