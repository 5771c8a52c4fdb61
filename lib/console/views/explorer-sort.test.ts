/**
 * The explorer sorts by any column and shows age, time waiting and time
 * running (issue 14 §5): the sort model (URL round trip, header toggles,
 * comparator) and the durations on the demo day.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../../engine/replay/index.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { compareRows, parseExplorerQuery, serializeExplorerQuery, sortedBy, type SortableRow } from './explorer-query.ts';
import { explorerView } from './explorer.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
let projection: Projection;

beforeAll(async () => {
  const store = new MemoryStore('explorer-sort');
  await seedDemoDay(new Publisher(store), { now: NOW });
  const runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

function row(fifo: number, patch: Partial<SortableRow> = {}): SortableRow {
  return { fifo, nodeKey: `n${fifo}`, graphId: 'g', priority: 3, key: '', state: 'available', readiness: 'ready', reason: 'ready', attempts: 0, ageMs: 0, waitingMs: 0, runningMs: null, ...patch };
}

describe('explorer sort model', () => {
  it('round-trips in the URL; FIFO ascending is the default and is omitted', () => {
    const q = parseExplorerQuery(new URLSearchParams('sort=waiting&dir=desc&state=available'));
    expect(q).toMatchObject({ sort: 'waiting', dir: 'desc', state: 'available' });
    expect(serializeExplorerQuery(q, 'q_1')).toBe('?state=available&sort=waiting&dir=desc&at=q_1');
    expect(parseExplorerQuery(new URLSearchParams(serializeExplorerQuery(q).slice(1)))).toEqual(q);
    expect(parseExplorerQuery(new URLSearchParams('sort=evil&dir=up'))).toMatchObject({ sort: 'fifo', dir: 'asc' });
    expect(serializeExplorerQuery(parseExplorerQuery(new URLSearchParams('')))).toBe('');
  });

  it('a header sorts by its column (durations longest first), flips on a second click, and goes back to page 1', () => {
    const q = { ...parseExplorerQuery(new URLSearchParams('page=4')) };
    expect(sortedBy(q, 'node')).toMatchObject({ sort: 'node', dir: 'asc', page: 1 });
    expect(sortedBy(q, 'running')).toMatchObject({ sort: 'running', dir: 'desc' });
    expect(sortedBy(sortedBy(q, 'node'), 'node').dir).toBe('desc');
    expect(sortedBy(sortedBy(sortedBy(q, 'node'), 'node'), 'node').dir).toBe('asc');
  });

  it('orders by the column either way, rows without a value last, ties in FIFO order', () => {
    const rows = [row(1, { runningMs: 5 }), row(2), row(3, { runningMs: 9 }), row(4, { runningMs: 5 })];
    expect([...rows].sort(compareRows('running', 'desc')).map((r) => r.fifo)).toEqual([3, 1, 4, 2]);
    expect([...rows].sort(compareRows('running', 'asc')).map((r) => r.fifo)).toEqual([1, 4, 3, 2]);
    const named = [row(1, { nodeKey: 'b' }), row(2, { nodeKey: 'a' }), row(3, { nodeKey: 'b' })];
    expect([...named].sort(compareRows('node', 'asc')).map((r) => r.fifo)).toEqual([2, 1, 3]);
    expect([...named].sort(compareRows('node', 'desc')).map((r) => r.fifo)).toEqual([1, 3, 2]);
  });
});

describe('explorer sorting and durations on the demo day', () => {
  it('sorts the whole result before paginating: page 1 of "waiting, longest first" holds the longest waits', () => {
    const v = explorerView(projection, NOW, parseExplorerQuery(new URLSearchParams('sort=waiting&dir=desc')));
    const all = [...projection.works()].length;
    expect(v.total).toBe(all);
    const waits = v.rows.map((r) => r.waitingMs);
    const known = waits.filter((w): w is number => w !== null);
    expect(known.length).toBeGreaterThan(0);
    expect([...known].sort((a, b) => b - a)).toEqual(known);
    const last = explorerView(projection, NOW, parseExplorerQuery(new URLSearchParams(`sort=waiting&dir=desc&page=${v.pages}`)));
    const lastKnown = last.rows.map((r) => r.waitingMs).filter((w): w is number => w !== null);
    if (lastKnown.length > 0) expect(Math.max(...lastKnown)).toBeLessThanOrEqual(known[known.length - 1]!);
  });

  it('running Work has a running time from its Claim\'s grant; available Work has none and waits since admission or its last Claim', () => {
    const v = explorerView(projection, NOW, parseExplorerQuery(new URLSearchParams('state=claimed')));
    expect(v.rows.length).toBeGreaterThan(0);
    for (const r of v.rows) {
      const work = projection.work(r.workId)!;
      const claim = projection.state.claims.get(work.currentClaim!)!;
      const granted = projection.state.commits[projection.state.commitIndex.get(claim.commitId)!]!.at;
      expect(r.runningMs).toBe(NOW - granted);
      expect(r.ageMs).toBe(NOW - r.admittedAt);
      expect(r.waitingMs).toBeLessThanOrEqual(r.ageMs);
    }
    const ready = explorerView(projection, NOW, parseExplorerQuery(new URLSearchParams('state=available')));
    for (const r of ready.rows) {
      expect(r.runningMs).toBeNull();
      expect(r.waitingMs).not.toBeNull();
      if (r.attempts === 0) expect(r.waitingMs).toBe(r.ageMs);
    }
  });
});
