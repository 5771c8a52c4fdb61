/**
 * `npm run bench`: cold replay, incremental append and peak RSS against the
 * JSON.parse floor, on generated ~1/16/64 MiB ledgers and the two
 * reference-written ledgers. Every measurement runs in a fresh child process
 * (`bench/replay-child.ts`, compiled as the CLI is: bench/build-children.ts) so runs do not
 * pollute each other.
 *
 * Targets: cold replay ≤ 2× floor, each append < 5 ms, peak RSS ≤ 3× bytes + 100 MiB.
 * Writes `bench/results/latest.json`.
 *
 * Then the publication, contention, GitHub-request and start-up figures, and the
 * operating-envelope table (bench/envelope.ts), also written to `bench/results/envelope.md`.
 *
 * Flags: --only=label,label  (e.g. --only=gen-1M,ref-1m)   --no-phases   --seed=N
 *        --quick  (replay at 1/16/64 MiB with fewer rounds, publication at 1 and 16 MiB only, fewer
 *                  contention rounds: minutes, not tens)
 *        --only-section=envelope  only the envelope rows that need no large ledger: the ledger at
 *          the watermark plus its full reserve (small Policy limits) and the observation requests
 *          per refresh; written to bench/results/envelope-section.md (latest.json is left alone)
 *        --only-section=install  only the packages people install and CLI start-up (bench/install.ts):
 *          pack and install sizes and times of the CLI and the console, the installed console's
 *          first page, the Action's install, start-up in the clone and installed; no ledger needed
 *        --only-section=contention  only local Git publication vs hash-object (1/16/64 MiB; --only
 *          picks ledgers), contention at 1/2/4/8 dispatchers and the per-attempt CPU
 *          (bench/contention-section.ts); written to bench/results/contention-section.json
 */
import { buildChildren } from './build-children.ts';
import { formatSchedulerBench, runSchedulerBench } from './scheduler.ts';
import { runContentionSection, type ContentionSection } from './contention-section.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, cachedEnvelopeLedger, cachedLedger, type EnvelopeFillReport, type GenerationStats } from './generate.ts';
import { envelopeMarkdown, finalizeWrites } from './envelope.ts';
import { runObservationRequestsBench } from './observations.ts';
import { runRequestsBench } from './requests.ts';
import { formatInstallBench, runInstallBench, type InstallReport } from './install.ts';
import type { StartupRow } from './startup.ts';
import { failed, fmt, formatAppends, formatPhases, table, verdict, type AppendReport, type FloorReport, type FloorSteadyReport, ownRatioFlatness, ownRatios, type OwnRatio, type PhasesReport, type RatioReport, type ReplayReport, type ThreadsReport } from './replay-report.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const RESULTS = join(HERE, 'results');
const REFERENCE = resolve(ROOT, '../shared/reference/gh-aw-generated');
const MiB = 2 ** 20;

const TARGETS = { coldOverFloor: 2, appendMs: 5, rssPerByte: 3, rssSlackMiB: 100 };

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = flag('only')?.split(',');
const seed = Number(flag('seed') ?? 1);
const quick = args.includes('--quick');
const section = flag('only-section');
if (section !== undefined && section !== 'envelope' && section !== 'install' && section !== 'contention') throw new Error(`--only-section: unknown section ${section} (known: envelope, install, contention)`);
const envelopeOnly = section === 'envelope';
if (section === 'install') {
  const report = await runInstallBench(ROOT, { quick, log });
  console.log(`\n${formatInstallBench(report, (header, body) => table(header, body))}`);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'install-section.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nWrote ${relative(ROOT, join(RESULTS, 'install-section.json'))} (--only-section=install: latest.json and envelope.md left alone)`);
  process.exit(report.errors.length === 0 ? 0 : 1);
}
if (section === 'contention') {
  const MiB1 = 2 ** 20;
  const ledgers = [{ label: 'gen-1M', target: MiB1 }, { label: 'gen-16M', target: 16 * MiB1 }, { label: 'gen-64M', target: 64 * MiB1 - 128 * 1024 }]
    .filter((g) => !(quick && g.label === 'gen-64M') && (only === undefined || only.includes(g.label)))
    .map((g) => ({ label: g.label, path: cachedLedger(g.target, seed).path }));
  const report = { ...(await runContentionSection(ledgers, quick, table)), quick, date: new Date().toISOString(), node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'contention-section.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nWrote ${relative(ROOT, join(RESULTS, 'contention-section.json'))} (--only-section=contention: latest.json and envelope.md left alone)`);
  process.exit(0);
}
/** The replay children, compiled as the CLI is (bench/build-children.ts). */
const children = await buildChildren(ROOT);
const withPhases = !args.includes('--no-phases') && !envelopeOnly;
/** Interleaved floor/replay rounds of the in-process ratio (bench/replay-child.ts `ratio`). */
const RATIO_ROUNDS = quick ? 3 : 5;
/** The "watermark plus its full reserve" ledger's Policy limits (small, so it generates in seconds). */
const FILL = { ledgerBytes: 4 * MiB, recoveryBytes: 1 * MiB };

interface LedgerSpec {
  label: string;
  source: 'generated' | 'reference';
  path: string;
  bytes: number;
  commits: number;
  generation: { targetBytes: number; seed: number; ms: number | null; reused: boolean; stats: GenerationStats | null; originalMs: number | null } | null;
  phases?: boolean;
  /** The watermark-plus-reserve ledger: how it was filled. */
  fill?: EnvelopeFillReport;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Runs one measurement in a fresh process; returns its JSON report or an error. */
function child<T>(mode: string, file: string, arg?: number): T | { error: string } {
  return runChild<T>(mode, ['--expose-gc', children.child, mode, file, ...(arg === undefined ? [] : [String(arg)])]);
}

function runChild<T>(mode: string, argv: string[]): T | { error: string } {
  const run = spawnSync(process.execPath, argv, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * MiB });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !last.startsWith('{')) {
    const reason = (run.stderr || run.stdout || `exit ${run.status}`).trim().split('\n').slice(0, 6).join(' | ');
    log(`  ! ${mode} failed: ${reason}`);
    return { error: reason };
  }
  return JSON.parse(last) as T;
}


// ---------------------------------------------------------------- ledgers

const specs: LedgerSpec[] = [];
const generated: Array<{ label: string; target: number; phases?: boolean }> = [
  { label: 'gen-1M', target: 1 * MiB },
  { label: 'gen-16M', target: 16 * MiB },
  // Stops just under 64 MiB so the ledger stays within its own Policy's ledger_bytes (67108864).
  { label: 'gen-64M', target: 64 * MiB - 128 * 1024 },
];
for (const g of generated) {
  if (envelopeOnly) break;
  if (only !== undefined && !only.includes(g.label)) continue;
  log(`ledger ${g.label}: generating or reusing (target ${g.target} bytes, seed ${seed}) ...`);
  const c = cachedLedger(g.target, seed);
  log(`  ${c.generatedMs === null ? `reused ${relative(ROOT, c.path)}` : `generated in ${(c.generatedMs / 1000).toFixed(2)} s`}: ${c.bytes} bytes, ${c.commits} commits`);
  specs.push({
    label: g.label, source: 'generated', path: c.path, bytes: c.bytes, commits: c.commits, phases: g.phases,
    generation: { targetBytes: g.target, seed, ms: c.generatedMs, reused: c.generatedMs === null, stats: c.stats, originalMs: c.originalMs },
  });
}
const FILL_LABEL = `env-${FILL.ledgerBytes / MiB}M+${FILL.recoveryBytes / MiB}M`;
if (only === undefined || only.includes(FILL_LABEL)) {
  log(`ledger ${FILL_LABEL}: at the watermark plus its full reserve (ledger_bytes ${FILL.ledgerBytes}, recovery_bytes ${FILL.recoveryBytes}), generating or reusing ...`);
  const c = cachedEnvelopeLedger(FILL, seed);
  log(`  ${c.generatedMs === null ? `reused ${relative(ROOT, c.path)}` : `generated in ${(c.generatedMs / 1000).toFixed(2)} s`}: ${c.bytes} bytes, ${c.commits} commits`);
  specs.push({
    label: FILL_LABEL, source: 'generated', path: c.path, bytes: c.bytes, commits: c.commits, fill: c.fill,
    generation: { targetBytes: FILL.ledgerBytes + FILL.recoveryBytes, seed, ms: c.generatedMs, reused: c.generatedMs === null, stats: c.stats, originalMs: c.originalMs },
  });
}
for (const [label, name] of [['ref-1m', 'ledger-1m.jsonl'], ['ref-16m', 'ledger-16m.jsonl']] as const) {
  if (envelopeOnly) break;
  if (only !== undefined && !only.includes(label)) continue;
  const path = join(REFERENCE, name);
  if (!existsSync(path)) {
    log(`ledger ${label}: skipped, ${path} is absent`);
    continue;
  }
  const { size } = statSync(path);
  specs.push({ label, source: 'reference', path, bytes: size, commits: 0, generation: null });
}

// ---------------------------------------------------------------- measurements

const baseline = child<{ maxRssKB: number; heapUsedMB: number }>('baseline', '-');
const baselineMiB = failed(baseline) ? null : baseline.maxRssKB / 1024;
log(`baseline: node + the compiled engine = ${baselineMiB?.toFixed(1) ?? '?'} MiB RSS`);

interface Row {
  spec: LedgerSpec;
  floor: FloorReport | { error: string };
  replay: ReplayReport | { error: string };
  append: AppendReport | { error: string };
  phases: PhasesReport | { error: string } | null;
  ratio: RatioReport | { error: string };
  /** Interleaved without forced GC, after two warm-ups (replay-child `steady`). */
  steady: RatioReport | { error: string };
  /** Wall time, steady: replay alone and with one worker thread (bench/replay-threads.ts). */
  threads: ThreadsReport | { error: string };
  /** The floor alone, warm, in a process that replays nothing (replay-child `floor-steady`). */
  floorOwn: FloorSteadyReport | { error: string };
  /** The steady replay medians over `floorOwn` (null when either child failed). */
  ownRatio: OwnRatio | null;
}
const rows: Row[] = [];
for (const spec of specs) {
  log(`measuring ${spec.label} (${(spec.bytes / MiB).toFixed(1)} MiB) ...`);
  const floor = child<FloorReport>('floor', spec.path, 3);
  const replay = child<ReplayReport>('replay', spec.path, 3);
  if (!failed(replay)) spec.commits = replay.commits;
  log(`  floor ${failed(floor) ? 'ERR' : floor.best.toFixed(0)} ms, cold ${failed(replay) ? 'ERR' : replay.best.toFixed(0)} ms`);
  const ratio = child<RatioReport>('ratio', spec.path, RATIO_ROUNDS);
  log(`  in-process CPU ratio ${failed(ratio) ? 'ERR' : `${ratio.cpuRatio.toFixed(2)}× (${ratio.cpuRatios.map((r) => r.toFixed(2)).join(' / ')})`}`);
  const steady = child<RatioReport>('steady', spec.path, RATIO_ROUNDS);
  log(`  steady CPU ratio (no forced GC) ${failed(steady) ? 'ERR' : `${steady.cpuRatio.toFixed(2)}×`}`);
  const threads = runChild<ThreadsReport>('threads', [children.threads, spec.path, String(RATIO_ROUNDS), '1']);
  log(`  steady wall ratio, alone / 1 worker thread ${failed(threads) ? 'ERR' : `${threads.aloneRatio.toFixed(2)}× / ${threads.threadedRatio.toFixed(2)}×`}`);
  const floorOwn = child<FloorSteadyReport>('floor-steady', spec.path, 2 * RATIO_ROUNDS - 1);
  const ownRatio = ownRatios(threads, floorOwn);
  log(`  floor alone ${failed(floorOwn) ? 'ERR' : `${floorOwn.wallMedian.toFixed(1)} ms`}; steady wall ratio over it, alone / 1 worker thread ${ownRatio === null ? 'ERR' : `${ownRatio.alone.toFixed(2)}× / ${ownRatio.threaded.toFixed(2)}×`}`);
  const append = child<AppendReport>('append', spec.path, 20);
  const phases = withPhases && spec.fill === undefined ? child<PhasesReport>('phases', spec.path) : null;
  rows.push({ spec, floor, replay, append, phases, ratio, steady, threads, floorOwn, ownRatio });
}


// ---------------------------------------------------------------- report

const results = rows.map(({ spec, floor, replay, append, phases, ratio: inProcess, steady, threads, floorOwn, ownRatio }) => {
  const floorMs = failed(floor) ? null : floor.best;
  const coldMs = failed(replay) ? null : replay.best;
  const ratio = floorMs !== null && coldMs !== null ? coldMs / floorMs : null;
  const rssMiB = failed(replay) ? null : replay.peakRssKB / 1024;
  const rssTargetMiB = (TARGETS.rssPerByte * spec.bytes) / MiB + TARGETS.rssSlackMiB;
  const checks = {
    // The goal's measure: CPU time of replay over that of the floor, interleaved in one process.
    cold: failed(inProcess) ? null : inProcess.cpuRatio <= TARGETS.coldOverFloor,
    append: failed(append) ? null : append.max < TARGETS.appendMs,
    appendMedian: failed(append) ? null : append.median < TARGETS.appendMs,
    rss: rssMiB === null ? null : rssMiB <= rssTargetMiB,
  };
  // A fresh process's first replay against a fresh process's first floor run, CPU: what one `fairway verify` pays.
  const freshRatio = failed(floor) || failed(replay) ? null : replay.firstCpu / floor.firstCpu;
  return { spec, floor, replay, append, phases, inProcess, steady, threads, floorOwn, ownRatio, freshRatio, floorMs, coldMs, ratio, rssMiB, rssTargetMiB, checks };
});

const mainTable = table(
  ['ledger', 'MiB', 'bytes', 'commits', 'floor ms', 'cold ms', '1st ms', 'wall ratio', 'CPU ratio (in-process)', 'steady CPU ratio', 'steady wall ratio: alone / 1 worker', 'over a floor-only process', 'fresh-process CPU ratio', 'append med/max ms', 'grant appends ms', 'RSS MiB', 'RSS-base', 'RSS/bytes', 'target MiB', 'cold≤2×', 'append<5', 'RSS'],
  results.map((r) => [
    r.spec.label,
    fmt(r.spec.bytes / MiB, 1),
    String(r.spec.bytes),
    String(r.spec.commits),
    fmt(r.floorMs, 1),
    fmt(r.coldMs, 0),
    failed(r.replay) ? '-' : fmt(r.replay.first, 0),
    r.ratio === null ? '-' : `${r.ratio.toFixed(1)}×`,
    failed(r.inProcess) ? '-' : `${r.inProcess.cpuRatio.toFixed(2)}×`,
    failed(r.steady) ? '-' : `${r.steady.cpuRatio.toFixed(2)}×`,
    failed(r.threads) ? '-' : `${r.threads.aloneRatio.toFixed(2)}× / ${r.threads.threadedRatio.toFixed(2)}×`,
    r.ownRatio === null ? '-' : `${r.ownRatio.alone.toFixed(2)}× / ${r.ownRatio.threaded.toFixed(2)}×`,
    r.freshRatio === null ? '-' : `${r.freshRatio.toFixed(2)}×`,
    failed(r.append) ? 'ERR' : `${fmt(r.append.median, 2)} / ${fmt(r.append.max, 2)}`,
    failed(r.append) || r.append.grant === null ? '-' : r.append.grant.grantMs.map((ms) => ms.toFixed(1)).join(' / '),
    fmt(r.rssMiB, 0),
    r.rssMiB === null || baselineMiB === null ? '-' : fmt(r.rssMiB - baselineMiB, 0),
    r.rssMiB === null ? '-' : `${((r.rssMiB * MiB) / r.spec.bytes).toFixed(2)}×`,
    fmt(r.rssTargetMiB, 0),
    verdict(r.checks.cold),
    verdict(r.checks.append),
    verdict(r.checks.rss),
  ]),
);

const genRows = results.filter((r) => r.spec.generation !== null);
const genTable = table(
  ['ledger', 'target bytes', 'bytes', 'commits', 'generation s', 'source'],
  genRows.map((r) => {
    const g = r.spec.generation!;
    const ms = g.ms ?? g.originalMs;
    return [r.spec.label, String(g.targetBytes), String(r.spec.bytes), String(r.spec.commits), ms === null ? '?' : (ms / 1000).toFixed(2), g.reused ? 'cache (time of original run)' : 'this run'];
  }),
  true,
);

const phaseText = formatPhases(results);
const appendText = formatAppends(results);

console.log(`\nFairway replay benchmark — node ${process.version}, ${cpus().length} CPU (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
console.log(`Targets: cold ≤ ${TARGETS.coldOverFloor}× floor in CPU time, in-process (floor = read + split + JSON.parse), every append < ${TARGETS.appendMs} ms, peak RSS ≤ ${TARGETS.rssPerByte}× bytes + ${TARGETS.rssSlackMiB} MiB`);
console.log(`Process baseline RSS (node + the compiled engine, no ledger): ${fmt(baselineMiB, 1)} MiB; "RSS-base" = peak minus that.\n`);
console.log(mainTable);
console.log('\n"cold ms" = best of 3 (read + replayLedger(bytes)) in one fresh process; "1st ms" = its first run (cold JIT); "wall ratio" = cold ms / floor ms of two fresh processes.');
console.log(`"CPU ratio (in-process)" = the goal's measure: one process runs the floor and read + replayLedger interleaved, ${RATIO_ROUNDS} rounds after a warm-up of each; median of the per-round ratios of CPU time (user + system).`);
console.log(`"steady CPU ratio" = the same without the forced GC before each run, after two warm-ups of each: a long-lived process. A forced full GC marks all at once, so V8 keeps none of the maps (hidden classes) of the replay's short-lived objects and deoptimizes the code specialized on them; the "in-process" ratio pays that re-optimization every round (docs/performance.md).`);
console.log('"steady wall ratio" = wall time of replay over the floor in one process, no forced GC, after two warm-ups: replay alone, then with its per-record checks on one worker thread (lib/replay/thread-verifier.ts, FAIRWAY_REPLAY_THREADS=1; bench/replay-threads.ts). Wall time, since CPU time counts the worker too.');
console.log('"over a floor-only process" = the same replay medians over the steady floor of a process that replays nothing (replay-child `floor-steady`): replay\'s garbage slows a floor run beside it, by 10-20% at 16 MiB and a few % at 64 MiB (docs/performance.md, thirteenth round), which flatters the column before it at 16 MiB.');
console.log('"fresh-process CPU ratio" = CPU of the first replay in a fresh process over the first floor run in another: what one `fairway verify` pays (cold JIT), start-up excluded.');
const flat = (a: string, b: string): string | null => {
  const x = results.find((r) => r.spec.label === a);
  const y = results.find((r) => r.spec.label === b);
  if (x === undefined || y === undefined || failed(x.inProcess) || failed(y.inProcess)) return null;
  return `${b} / ${a}: ${(y.inProcess.cpuRatio / x.inProcess.cpuRatio).toFixed(2)} (ratio ${x.inProcess.cpuRatio.toFixed(2)}× → ${y.inProcess.cpuRatio.toFixed(2)}×)`;
};
const flatness = [flat('gen-16M', 'gen-64M'), flat('gen-1M', 'gen-16M')].filter((x) => x !== null);
if (flatness.length > 0) console.log(`Flatness of the CPU ratio (1.00 = flat): ${flatness.join('; ')}`);
const ownFlatness = [ownRatioFlatness(results, 'gen-16M', 'gen-64M'), ownRatioFlatness(results, 'gen-1M', 'gen-16M')].filter((x) => x !== null);
if (ownFlatness.length > 0) console.log(`Flatness of the steady wall ratio over a floor-only process (1.00 = flat): ${ownFlatness.join('; ')}`);
console.log('"grant appends ms" = appendLedger of each of the last 3 dispatch_next (replay re-runs the packer), appending every line from the third-last one.');
console.log('"RSS MiB" = peak RSS of the first cold replay in a fresh process (process.resourceUsage().maxRSS).\n');
console.log('Incremental append and retained memory:');
console.log(appendText);
if (genRows.length > 0) console.log(`\nGenerated ledgers (generator v${GENERATOR_VERSION}, seed ${seed}):\n${genTable}`);
if (phaseText !== '') console.log(phaseText);

// Scheduler and publication benchmarks (issues 3 and 4).
// A ready queue of 4,096 Works owes more recovery reserve than the default envelope allows
// (spec 7.17: ledger + owed reserve ≤ watermark + reserve), so that size can be refused with
// ledger_limit; the sizes that fit are still measured.
let schedulerRows: ReturnType<typeof runSchedulerBench> = [];
let publishRows: ContentionSection['publication'] = [];
let throughputRows: ContentionSection['throughput'] = [];
let attemptRows: ContentionSection['attemptCost'] = [];
let requestRows: Awaited<ReturnType<typeof runRequestsBench>> = [];
let startupRows: StartupRow[] = [];
let installReport: InstallReport | null = null;
if (!envelopeOnly) {
  try {
    schedulerRows = runSchedulerBench({ print: false });
  } catch (e) {
    if ((e as { code?: string }).code !== 'ledger_limit') throw e;
    log(`scheduler: the 4096-Work queue is outside the default operating envelope (ledger_limit): measuring 256 and 1024 only`);
    schedulerRows = runSchedulerBench({ print: false, sizes: [256, 1024] });
  }
  console.log(`\nScheduler: planNext + packing of 16 Claims (target < 1 ms per dispatch_next)\n${formatSchedulerBench(schedulerRows)}`);
  // --quick publishes at 1 and 16 MiB only.
  const publishLedgers = results.filter((r) => r.spec.source === 'generated' && r.spec.fill === undefined && !(quick && r.spec.label === 'gen-64M')).map((r) => ({ label: r.spec.label, path: r.spec.path }));
  ({ publication: publishRows, throughput: throughputRows, attemptCost: attemptRows } = await runContentionSection(publishLedgers, quick, table));

  requestRows = await runRequestsBench();
  console.log('\nGitHub requests per publication (real Publisher, schema-validated fake GitHub; goal ≤ 2)');
  console.log(table(['store', 'operation', 'requests', 'schema violations'], requestRows.map((r) => [r.store, r.operation, String(r.requests), String(r.violations)]), true));

  // The packages people install and CLI start-up, clone and installed (bench/install.ts).
  installReport = await runInstallBench(ROOT, { quick, log });
  startupRows = installReport.startup;
  console.log(`\n${formatInstallBench(installReport, (header, body) => table(header, body))}`);
}

const observationRows = await runObservationRequestsBench([1, 10, 25]);
console.log('\nGitHub requests per gate-observation refresh (real observePool, schema-validated fake GitHub; N Works each gated on its own Issue or PR)');
console.log(table(['gates', 'refresh', 'requests', 'per gate', 'resources read', 'Observations written', 'unchanged (not written)', 'schema violations'], observationRows.map((r) => [String(r.gates), r.refresh, String(r.requests), (r.requests / r.gates).toFixed(2), String(r.reads), String(r.written), String(r.unchanged), String(r.violations)]), true));

const finalizeRows = results.filter((r) => r.spec.source === 'generated').map((r) => finalizeWrites(r.spec.label, r.spec.path));
const envelope = envelopeMarkdown({
  date: new Date().toISOString(),
  node: process.version,
  quick,
  ledgers: results.map((r) => ({
    label: r.spec.label, bytes: r.spec.bytes, commits: r.spec.commits, floorMs: r.floorMs, coldMs: r.coldMs,
    floorCpuMs: failed(r.floor) ? null : r.floor.cpuBest, coldCpuMs: failed(r.replay) ? null : r.replay.cpuBest,
    floorRssMiB: failed(r.floor) ? null : r.floor.maxRssKB / 1024, replayRssMiB: r.rssMiB,
    appendMedianMs: failed(r.append) ? null : r.append.median, appendMaxMs: failed(r.append) ? null : r.append.max,
  })),
  contention: throughputRows,
  finalize: finalizeRows,
  requests: requestRows,
  observations: observationRows,
  fill: results.filter((r) => r.spec.fill !== undefined).map((r) => ({ label: r.spec.label, bytes: r.spec.bytes, ...r.spec.fill! })),
  startup: startupRows,
  publication: publishRows,
  attemptCost: attemptRows,
});
console.log(`\n${envelope}`);

mkdirSync(RESULTS, { recursive: true });
if (envelopeOnly) {
  writeFileSync(join(RESULTS, 'envelope-section.md'), `${envelope}\n`);
  console.log(`\nWrote ${relative(ROOT, join(RESULTS, 'envelope-section.md'))} (--only-section=envelope: latest.json and envelope.md left alone)`);
  process.exit(0);
}
const latest = {
  scheduler: schedulerRows,
  publication: publishRows,
  throughput: throughputRows,
  attemptCost: attemptRows,
  requests: requestRows,
  observations: observationRows,
  startup: startupRows,
  install: installReport,
  finalize: finalizeRows,
  quick,
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? null,
  totalMemGiB: Math.round(totalmem() / 2 ** 30),
  targets: TARGETS,
  baselineRssMiB: baselineMiB,
  generatorVersion: GENERATOR_VERSION,
  seed,
  ledgers: results.map((r) => ({
    label: r.spec.label,
    source: r.spec.source,
    path: relative(ROOT, r.spec.path),
    bytes: r.spec.bytes,
    commits: r.spec.commits,
    generation: r.spec.generation,
    floorMs: r.floorMs,
    coldMs: r.coldMs,
    coldOverFloor: r.ratio,
    peakRssMiB: r.rssMiB,
    rssTargetMiB: r.rssTargetMiB,
    rssPerByte: r.rssMiB === null ? null : (r.rssMiB * MiB) / r.spec.bytes,
    checks: r.checks,
    inProcess: r.inProcess,
    steady: r.steady,
    threads: r.threads,
    floorOwn: r.floorOwn,
    ownRatio: r.ownRatio,
    floor: r.floor,
    replay: r.replay,
    append: r.append,
    phases: r.phases,
  })),
};
writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(latest, null, 2)}\n`);
writeFileSync(join(RESULTS, 'envelope.md'), `${envelope}\n`);
console.log(`\nWrote ${relative(ROOT, join(RESULTS, 'latest.json'))}`);
