/**
 * bench/fold-census.ts, what bench/replay-fold.ts measures with: the record stage's output in
 * file order (a ledger out of causal order is refused), the fold alone, and the census of its
 * large-table operations, which is deterministic and leaves the table prototypes as they were,
 * and the sample of what it allocates.
 */
import { describe, expect, it } from 'vitest';
import { checkAll, fold, foldAllocation, foldCensus, LARGE } from '../../bench/fold-census.ts';
import { generateLedger } from '../../bench/generate.ts';
import { isProtocolError } from '../../engine/errors.ts';

const text = generateLedger(512 * 1024, 7).text;
const bytes = Buffer.from(text);

describe('fold census (bench/replay-fold.ts)', () => {
  it('hands every record to the fold in order, as replay checked it', () => {
    const records = checkAll(bytes);
    expect(records.length).toBe(text.split('\n').filter((l) => l.length > 0).length);
    expect(records.every((r, i) => r.options.line === i + 1)).toBe(true);
    expect(records.filter((r) => r.options.fingerprintVerified).length).toBeGreaterThan(records.length / 2);
    expect(() => fold(records)).not.toThrow();
  });

  it('refuses a ledger whose records are not in causal order, naming the line', () => {
    const lines = text.split('\n').filter((l) => l.length > 0);
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    expect(() => checkAll(Buffer.from(`${lines.join('\n')}\n`))).toThrow(/line 4 does not extend the record before it/);
  });

  it('counts the same operations on every run, by kind and call site, and restores Map, Set and WeakMap', () => {
    const before = [Map.prototype.get, Map.prototype.set, Set.prototype.has, WeakMap.prototype.get];
    const a = foldCensus(checkAll(bytes), 50);
    const b = foldCensus(checkAll(bytes), 50);
    expect(a.total).toBeGreaterThan(0);
    expect(b.total).toBe(a.total);
    expect([...b.bySite]).toEqual([...a.bySite]);
    expect([...a.byKind.values()].reduce((x, y) => x + y, 0)).toBe(a.total);
    expect([...a.bySite.values()].reduce((x, y) => x + y, 0)).toBe(a.total);
    expect(a.byKind.has('submit')).toBe(true);
    expect([...a.bySite.keys()].some((site) => /^Map\.(get|has|set) \S+ engine\/replay\/\S+\.ts:\d+$/.test(site))).toBe(true);
    expect([Map.prototype.get, Map.prototype.set, Set.prototype.has, WeakMap.prototype.get]).toEqual(before);
    // The default threshold counts fewer: only tables of LARGE entries or more.
    expect(foldCensus(checkAll(bytes)).total).toBeLessThan(a.total);
    expect(LARGE).toBeGreaterThan(50);
  });

  it('restores the prototypes when the fold throws its verdict', () => {
    const before = Map.prototype.get;
    const records = checkAll(bytes);
    let verdict: unknown;
    try {
      foldCensus([...records, records[records.length - 1]!]); // the same commit twice: its request again
    } catch (e) {
      verdict = e;
    }
    expect(isProtocolError(verdict) && verdict.code).toBe('duplicate_request');
    expect(Map.prototype.get).toBe(before);
  });

  it('samples what the fold allocates per record, by allocating function, the sites adding up to the whole', async () => {
    const records = checkAll(bytes);
    const a = await foldAllocation(records, 2);
    expect(a.perRecord).toBeGreaterThan(100);
    const sum = [...a.bySite.values()].reduce((x, y) => x + y, 0);
    expect(Math.abs(sum - a.perRecord)).toBeLessThan(1e-6 * a.perRecord);
    // The fold's own handlers are among the allocating functions, named by their source path.
    expect([...a.bySite.keys()].some((site) => /^applyCommit engine\/replay\/apply\.ts$/.test(site))).toBe(true);
    // More rounds, more samples: the per-record figure stays of the same size.
    const b = await foldAllocation(records, 4);
    expect(b.perRecord).toBeGreaterThan(a.perRecord / 3);
    expect(b.perRecord).toBeLessThan(a.perRecord * 3);
  });
});
