/**
 * The fold alone (issue 13 §1): `applyCommit` over a ledger's records already framed, decoded,
 * checked and measured by the record stage, as inline replay hands them over
 * (engine/replay/record.ts `parseRecord`), timed against the floor in one process, with no
 * worker, no causal chain and no projection bookkeeping:
 *
 *   node --import tsx bench/replay-fold.ts FILE [ROUNDS=8] [--census] [--alloc]
 *
 * Each round checks every record untimed, then times the fold over them into a fresh state;
 * floor and fold alternate, after two warm-ups; medians (wall time: nothing else runs). The
 * checked records are all alive while the fold runs, which replay never holds at once: at 64
 * MiB their garbage collection makes the fold a little slower and noisier than in replay. Only
 * for a ledger whose records are in causal order without duplicates (what Fairway and the
 * reference write); any other is refused before timing (`fairway verify` replays it).
 *
 * `--census` also counts, in one more untimed fold, the operations on large maps, sets and
 * weak maps (LARGE entries or more: the probes that can miss the cache) by call site and by
 * request kind. It is deterministic, unlike the times, and it is a count, not a cost: lookups
 * of state the record already touched are cheap (docs/performance.md, "Replay: ninth round").
 *
 * `--alloc` also reports what the fold allocates per record, in all and by function (sampled by
 * V8's heap profiler over three more untimed folds, freed objects included: fold-census.ts
 * `foldAllocation`). Garbage is where the fold's time went (docs/performance.md, "Replay: tenth round").
 */
import { readFileSync } from 'node:fs';
import { checkAll, fold, foldAllocation, foldCensus, LARGE } from './fold-census.ts';
import { floorOnce, median, timed } from './replay-measure.ts';

const args = process.argv.slice(2);
const wantCensus = args.includes('--census');
const wantAlloc = args.includes('--alloc');
const [file, roundsArg] = args.filter((a) => a !== '--census' && a !== '--alloc');
if (file === undefined) throw new Error('usage: replay-fold FILE [ROUNDS] [--census] [--alloc]');
const rounds = Number(roundsArg ?? 8);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`replay-fold: ROUNDS must be a positive integer, not ${JSON.stringify(roundsArg)}`);

const floorMs: number[] = [];
const foldMs: number[] = [];
let records = 0;
for (let r = 0; r < rounds + 2; r++) {
  const f = timed(() => floorOnce(file));
  const checked = checkAll(readFileSync(file));
  records = checked.length;
  const t = timed(() => fold(checked));
  if (r >= 2) {
    floorMs.push(f);
    foldMs.push(t);
  }
}
const floor = median(floorMs);
const foldMedian = median(foldMs);
const report: Record<string, unknown> = {
  mode: 'fold',
  file,
  records,
  rounds,
  floorMedian: Math.round(floor * 10) / 10,
  foldMedian: Math.round(foldMedian * 10) / 10,
  foldPerFloor: Math.round((foldMedian / floor) * 100) / 100,
  foldWall: foldMs.map((ms) => Math.round(ms)),
};
if (wantCensus) {
  const checked = checkAll(readFileSync(file));
  const count = foldCensus(checked);
  const perKind: Record<string, number> = {};
  const recordsOf = new Map<string, number>();
  for (const { commit } of checked) recordsOf.set(commit.request.kind, (recordsOf.get(commit.request.kind) ?? 0) + 1);
  for (const [k, n] of [...recordsOf].sort((a, b) => b[1] - a[1])) perKind[k] = Math.round(((count.byKind.get(k) ?? 0) / n) * 10) / 10;
  report.census = {
    large: LARGE,
    total: count.total,
    perRecord: Math.round((count.total / checked.length) * 10) / 10,
    perRecordByKind: perKind,
    sites: Object.fromEntries([...count.bySite].sort((a, b) => b[1] - a[1]).slice(0, 20)),
  };
}
if (wantAlloc) {
  const allocation = await foldAllocation(checkAll(readFileSync(file)));
  report.allocation = {
    bytesPerRecord: Math.round(allocation.perRecord),
    sites: Object.fromEntries([...allocation.bySite].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([site, bytes]) => [site, Math.round(bytes)])),
  };
}
console.log(JSON.stringify(report, null, 2));
