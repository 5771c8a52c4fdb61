import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FifoTree } from './fifo-tree.ts';
import { availableIn, bucketsOf, createReadyIndex, indexWork, isIndexed, unindexWork } from './ready-index.ts';
import { buildState, policyFor } from '../../tests/support/scheduler-state.ts';

describe('FifoTree', () => {
  it('keeps entries in rank order under random inserts and removes (model: sorted array)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 200 })), { maxLength: 400 }), (ops) => {
        const tree = new FifoTree();
        const model = new Map<number, string>();
        for (const [insert, rank] of ops) {
          if (insert) {
            expect(tree.insert(rank, `w${rank}`)).toBe(!model.has(rank));
            model.set(rank, `w${rank}`);
          } else {
            expect(tree.remove(rank)).toBe(model.has(rank));
            model.delete(rank);
          }
        }
        const expected = [...model].sort((a, b) => a[0] - b[0]);
        expect([...tree.entries()]).toEqual(expected);
        expect(tree.size).toBe(model.size);
        // Seeking: first() and after(rank) walk the same order without a generator.
        const walked: Array<[number, string]> = [];
        for (let e = tree.first(); e !== null; e = tree.after(e.rank)) walked.push([e.rank, e.id]);
        expect(walked).toEqual(expected);
        for (const probe of [-Infinity, -1, 0, 57, 100, 199, 200]) {
          const next = expected.find(([rank]) => rank > probe);
          const found = tree.after(probe);
          expect(found === null ? null : [found.rank, found.id]).toEqual(next ?? null);
        }
        // AVL height bound: 1.44 log2(n + 2)
        expect(tree.depth()).toBeLessThanOrEqual(Math.ceil(1.45 * Math.log2(model.size + 2)));
      }),
      { numRuns: 200 },
    );
  });

  it('stays logarithmic for 100,000 appends', () => {
    const tree = new FifoTree();
    for (let i = 0; i < 100_000; i++) tree.insert(i, String(i));
    expect(tree.depth()).toBeLessThanOrEqual(25);
    const first = tree.entries().next().value;
    expect(first).toEqual([0, '0']);
  });
});

describe('ReadyIndex', () => {
  it('buckets available Work by (pool, effective priority, fairness key) in FIFO order', () => {
    const state = buildState(policyFor({ accounting_weights: { '': 1, t: 1 } }), [
      { key: 'a', priority: 3 },
      { key: 'b', priority: 3, account: 't' },
      { key: 'c', priority: 1 },
      { key: 'd', priority: 3 },
      { key: 'e', priority: 3, state: 'completed' },
    ]);
    const buckets = bucketsOf(state.ready, 'default');
    const view = (p: number, k: string) => [...buckets.get(p)!.get(k)!.entries()].map(([, id]) => state.works.get(id)!.nodeKey);
    expect(view(3, '')).toEqual(['a', 'd']);
    expect(view(3, 't')).toEqual(['b']);
    expect(view(1, '')).toEqual(['c']);
    expect(availableIn(state.ready, 'default')).toBe(4);
    expect(availableIn(state.ready, 'other')).toBe(0);
  });

  it('re-buckets on an effective-priority change and removes on any other state', () => {
    const state = buildState(policyFor(), [{ key: 'a' }, { key: 'b' }]);
    const a = [...state.works.values()][0]!;
    a.effectivePriority = 1;
    indexWork(state.ready, a);
    const buckets = bucketsOf(state.ready, 'default');
    expect([...buckets.keys()].sort()).toEqual([1, 3]);
    expect(availableIn(state.ready, 'default')).toBe(2);
    a.state = 'claimed';
    indexWork(state.ready, a);
    expect(isIndexed(state.ready, a.workId)).toBe(false);
    expect([...bucketsOf(state.ready, 'default').keys()]).toEqual([3]);
    unindexWork(state.ready, a); // idempotent
    expect(availableIn(state.ready, 'default')).toBe(1);
  });

  it('a cancelled Claim returns the Work at its original position (ahead of later Work)', () => {
    const state = buildState(policyFor(), [{ key: 'a' }, { key: 'b' }, { key: 'c' }]);
    const [a] = [...state.works.values()];
    a!.state = 'claimed';
    indexWork(state.ready, a!);
    a!.state = 'available';
    indexWork(state.ready, a!);
    const bucket = bucketsOf(state.ready, 'default').get(3)!.get('')!;
    expect([...bucket.entries()].map(([, id]) => state.works.get(id)!.nodeKey)).toEqual(['a', 'b', 'c']);
  });

  it('an empty index has no pools', () => {
    const index = createReadyIndex();
    expect(bucketsOf(index, 'default').size).toBe(0);
  });
});
