/**
 * The replay tables `npm run bench` prints (bench/replay-report.ts), from the JSON reports of
 * bench/replay-child.ts: each phase as a multiple of the floor, the fold by kind, the appends.
 */
import { describe, expect, it } from 'vitest';
import { failed, formatAppends, formatPhases, ownRatioFlatness, ownRatios, table, type AppendReport, type PhasesReport, type ReplayReport, type ThreadsReport } from '../../bench/replay-report.ts';

const phases: PhasesReport = {
  phases: {},
  perMiB: {},
  overFloor: { read: 0.25, frame: 0.25, decode: 0.5, 'parse (JSON.parse)': 1.2, 'fold (applyCommit)': 3 },
  floorMs: 150.4,
  foldByKind: { finish: { count: 4, ms: 2 }, submit: { count: 2, ms: 8 } },
  lines: 6,
  slowPaths: { fingerprint: 0, parameters: 1, canonical: 0, schema: 2 },
};
const replay: ReplayReport = { best: 1, cpuBest: 1, first: 1, firstCpu: 1, times: [1], commits: 6, tip: 'q', peakRssKB: 1, retainedHeapMB: 24.3, retainedExternalMB: 17.9, maxRssKB: 1 };
const append: AppendReport = {
  median: 0.5, max: 3.25, times: [0.5, 3.25, 0.25], kinds: ['finish', 'dispatch_next', 'result'], prefixReplayMs: 40, tip: 'q',
  grant: { appended: 5, grants: 2, grantMs: [2.5, 3.25], claims: [4, 7], ms: 3.25, allMedian: 0.5, allMax: 3.25, allMaxKind: 'dispatch_next' },
};

describe('bench replay report', () => {
  it('sums a row’s phases as multiples of the floor, per ledger column', () => {
    const text = formatPhases([{ spec: { label: 'gen-1M' }, replay, append, phases }]);
    expect(text).toMatch(/read \+ frame \+ decode\s+1\.00×/);
    expect(text).toMatch(/parse \(JSON\.parse\)\s+1\.20×/);
    expect(text).toMatch(/canonical \(one-pass check\)\s+0\.00×/); // absent phases count as zero
    expect(text).toContain('floor ms: gen-1M 150');
    expect(text).toContain('records off the fast paths: canonical 0, schema 2, fingerprint 0, parameters 1');
  });

  it('lists the fold by kind, costliest first, with µs per commit', () => {
    const lines = formatPhases([{ spec: { label: 'gen-1M' }, replay, append, phases }]).split('\n');
    const submit = lines.findIndex((l) => /^submit\s/.test(l));
    const finish = lines.findIndex((l) => /^finish\s/.test(l));
    expect(submit).toBeGreaterThan(0);
    expect(finish).toBeGreaterThan(submit);
    expect(lines[submit]).toMatch(/^submit\s+2\s+8\s+4000$/);
    expect(lines[finish]).toMatch(/^finish\s+4\s+2\s+500$/);
  });

  it('prints nothing for ledgers without phases or whose child failed', () => {
    expect(formatPhases([{ spec: { label: 'x' }, replay, append, phases: null }, { spec: { label: 'y' }, replay, append, phases: { error: 'boom' } }])).toBe('');
  });

  it('names the worst append’s kind, the grant appends and what the projection retains', () => {
    const text = formatAppends([{ spec: { label: 'ref-1m' }, replay, append, phases: null }, { spec: { label: 'bad' }, replay, append: { error: 'boom' }, phases: null }]);
    expect(text).toBe(
      '  ref-1m: last 3 appends median 0.50 ms, max 3.25 ms (dispatch_next); prefix replay 40 ms; from the 3rd-last grant: 5 appends, median 0.50 ms, max 3.25 ms (dispatch_next), grants 2.5 ms/4 Claims, 3.3 ms/7 Claims; projection retains 24 MiB heap + 18 MiB external',
    );
  });

  it('aligns table columns and tells failed reports apart', () => {
    expect(table(['a', 'bb'], [['xyz', '1'], ['q', '22']])).toBe('a    bb\n---  --\nxyz   1\nq    22');
    expect(failed({ error: 'x' })).toBe(true);
    expect(failed(replay)).toBe(false);
  });

  it('divides the steady replay medians by a floor-only process’s floor, and tells how the ratio moves between sizes', () => {
    const threads = (alone: number, threaded: number): ThreadsReport => ({
      threads: 1, rounds: 5, floorMedian: 999, aloneMedian: alone, threadedMedian: threaded, aloneRatio: 0, threadedRatio: 0, aheadFraction: 1,
      first: { floor: 0, alone: 0, threaded: 0, threadedAhead: 0 },
    });
    const floorOwn = (wallMedian: number) => ({ rounds: 9, wall: [wallMedian], cpu: [wallMedian], wallMedian, cpuMedian: wallMedian });
    // Over the floor-only process's floor, not the in-process one (999) the threads report carries.
    const small = ownRatios(threads(150, 100), floorOwn(50));
    expect(small).toEqual({ alone: 3, threaded: 2 });
    const large = ownRatios(threads(660, 420), floorOwn(200));
    expect(large).toEqual({ alone: 3.3, threaded: 2.1 });
    expect(ownRatios({ error: 'x' }, floorOwn(50))).toBeNull();
    expect(ownRatios(threads(1, 1), { error: 'x' })).toBeNull();
    expect(ownRatios(threads(1, 1), floorOwn(0))).toBeNull();
    const rows = [{ spec: { label: 'gen-16M' }, ownRatio: small }, { spec: { label: 'gen-64M' }, ownRatio: large }, { spec: { label: 'gen-1M' }, ownRatio: null }];
    expect(ownRatioFlatness(rows, 'gen-16M', 'gen-64M')).toBe('gen-64M / gen-16M: alone 1.10 (3.00× → 3.30×), 1 worker 1.05 (2.00× → 2.10×)');
    expect(ownRatioFlatness(rows, 'gen-1M', 'gen-16M')).toBeNull();
    expect(ownRatioFlatness(rows, 'gen-16M', 'ref-16m')).toBeNull();
  });
});
