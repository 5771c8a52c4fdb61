/**
 * The replay rows of `npm run bench` (bench/run.ts): the JSON reports of
 * bench/replay-child.ts's modes, and the text tables printed from them.
 */

export interface FloorReport { best: number; cpuBest: number; firstCpu: number; times: number[]; lines: number; maxRssKB: number }
export interface ReplayReport { best: number; cpuBest: number; first: number; firstCpu: number; times: number[]; commits: number; tip: string; peakRssKB: number; retainedHeapMB: number; retainedExternalMB: number; maxRssKB: number }
export interface AppendReport { median: number; max: number; times: number[]; kinds: string[]; prefixReplayMs: number; tip: string; grant: { appended: number; grants: number; grantMs: number[]; claims: number[]; ms: number; allMedian: number; allMax: number; allMaxKind: string } | null }
export interface PhasesReport {
  phases: Record<string, number>; overFloor: Record<string, number>; perMiB: Record<string, number>; floorMs: number;
  foldByKind: Record<string, { count: number; ms: number }>; lines: number; slowPaths: { fingerprint: number; parameters: number; canonical: number; schema: number };
}
/** bench/replay-threads.ts: wall ms, steady, in one process. */
export interface ThreadsReport { threads: number; rounds: number; floorMedian: number; aloneMedian: number; threadedMedian: number; aloneRatio: number; threadedRatio: number; aheadFraction: number; first: { floor: number; alone: number; threaded: number; threadedAhead: number } }
/** bench/replay-child.ts `floor-steady`: the floor alone, warm, in a process that replays nothing. */
export interface FloorSteadyReport { rounds: number; wall: number[]; cpu: number[]; wallMedian: number; cpuMedian: number }
export interface RatioReport { cpuRatio: number; wallRatio: number; cpuRatios: number[]; floorCpuMedian: number; replayCpuMedian: number; rounds: number; maxRssKB: number }

/** What run.ts reports per ledger (the fields these tables read). */
export interface ReportedLedger {
  spec: { label: string };
  replay: ReplayReport | { error: string };
  append: AppendReport | { error: string };
  phases: PhasesReport | { error: string } | null;
}

export const failed = (x: object): x is { error: string } => 'error' in x;

/** Steady wall medians over a floor-only process's floor (`floor-steady`): replay alone and with one worker. */
export interface OwnRatio { alone: number; threaded: number }

/** Replay alone and with one worker (bench/replay-threads.ts medians) over the floor of a process that replays nothing; null when either failed. */
export function ownRatios(threads: ThreadsReport | { error: string }, floorOwn: FloorSteadyReport | { error: string }): OwnRatio | null {
  if (failed(threads) || failed(floorOwn) || !(floorOwn.wallMedian > 0)) return null;
  return { alone: threads.aloneMedian / floorOwn.wallMedian, threaded: threads.threadedMedian / floorOwn.wallMedian };
}

/** How `ownRatios` moves from ledger `a` to ledger `b` (1.00 = flat), or null when either is missing. */
export function ownRatioFlatness(rows: ReadonlyArray<{ spec: { label: string }; ownRatio: OwnRatio | null }>, a: string, b: string): string | null {
  const x = rows.find((r) => r.spec.label === a)?.ownRatio;
  const y = rows.find((r) => r.spec.label === b)?.ownRatio;
  if (x === undefined || y === undefined || x === null || y === null) return null;
  return `${b} / ${a}: alone ${(y.alone / x.alone).toFixed(2)} (${x.alone.toFixed(2)}× → ${y.alone.toFixed(2)}×), 1 worker ${(y.threaded / x.threaded).toFixed(2)} (${x.threaded.toFixed(2)}× → ${y.threaded.toFixed(2)}×)`;
}

export const fmt = (n: number | null | undefined, digits = 0): string => (n === null || n === undefined ? '-' : n.toFixed(digits));
export const verdict = (ok: boolean | null): string => (ok === null ? 'n/a' : ok ? 'pass' : 'MISS');

export function table(header: string[], body: string[][], rightAlign = true): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (rightAlign && i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

const PHASES: Array<[string, string[]]> = [
  ['read + frame + decode', ['read', 'frame', 'decode']],
  ['parse (JSON.parse)', ['parse (JSON.parse)']],
  ['canonical (one-pass check)', ['canonical (one-pass check)']],
  ['validate (generated validator)', ['validate (generated validator)']],
  ['fingerprint + parameters', ['fingerprint + parameters (envelope text)']],
  ['fold (applyCommit)', ['fold (applyCommit)']],
  ['chain + projection bookkeeping', ['chain + projection bookkeeping']],
  ['total (instrumented)', ['total (instrumented loop)']],
  ['  of which GC pauses', ['  of which GC pauses']],
  ['replayLedger (uninstrumented)', ['replayLedger (same process, uninstrumented)']],
];

/** The per-phase split of cold replay (replay-child `phases`) as multiples of the in-process floor, one column per ledger; then each ledger's fold by request kind. */
export function formatPhases(results: readonly ReportedLedger[]): string {
  const phased = results.filter((r) => r.phases !== null && !failed(r.phases)) as Array<ReportedLedger & { phases: PhasesReport }>;
  let phaseText = '';
  if (phased.length > 0) {
    phaseText += '\nCold replay by phase, × the in-process floor (read + split + JSON.parse), after a warm-up replay; the timers themselves add some cost\n';
    phaseText += table(['phase', ...phased.map((r) => r.spec.label)], PHASES.map(([name, keys]) => [
      name,
      ...phased.map((r) => `${keys.reduce((sum, k) => sum + (r.phases.overFloor[k] ?? 0), 0).toFixed(2)}×`),
    ]), true);
    phaseText += `\nfloor ms: ${phased.map((r) => `${r.spec.label} ${r.phases.floorMs.toFixed(0)}`).join(', ')}`;
    for (const r of phased) {
      const slow = r.phases.slowPaths;
      phaseText += `\n\nFold by request kind, ${r.spec.label} (${r.phases.lines} lines; records off the fast paths: canonical ${slow.canonical}, schema ${slow.schema}, fingerprint ${slow.fingerprint}, parameters ${slow.parameters})\n`;
      phaseText += table(
        ['kind', 'count', 'ms', 'µs/commit'],
        Object.entries(r.phases.foldByKind).sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => [k, String(v.count), v.ms.toFixed(0), ((1000 * v.ms) / v.count).toFixed(0)]),
        true,
      );
    }
    phaseText += '\n';
  }
  return phaseText;
}

/** One line per ledger: its last appends, its grant appends and what the projection retains. */
export function formatAppends(results: readonly ReportedLedger[]): string {
  return results
    .filter((r) => !failed(r.append))
    .map((r) => {
      const a = r.append as AppendReport;
      const worst = a.times.indexOf(a.max);
      const g = a.grant;
      const grants = g === null ? '' : `; from the 3rd-last grant: ${g.appended} appends, median ${g.allMedian.toFixed(2)} ms, max ${g.allMax.toFixed(2)} ms (${g.allMaxKind}), grants ${g.grantMs.map((ms, i) => `${ms.toFixed(1)} ms/${g.claims[i]} Claims`).join(', ')}`;
      const rep = r.replay as ReplayReport;
      const mem = failed(r.replay) ? '' : `; projection retains ${rep.retainedHeapMB.toFixed(0)} MiB heap + ${rep.retainedExternalMB.toFixed(0)} MiB external`;
      return `  ${r.spec.label}: last ${a.times.length} appends median ${a.median.toFixed(2)} ms, max ${a.max.toFixed(2)} ms (${a.kinds[worst]}); prefix replay ${a.prefixReplayMs.toFixed(0)} ms${grants}${mem}`;
    })
    .join('\n');
}
