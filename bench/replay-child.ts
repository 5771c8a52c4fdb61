/**
 * One isolated measurement per process, so runs never pollute each other's
 * heap or RSS high-water mark:
 *
 *   node --expose-gc --import tsx bench/replay-child.ts MODE FILE [ARG]
 *
 * (`npm run bench` runs it compiled as the CLI is, bench/build-children.ts: node --expose-gc
 * dist/bench/replay-child.js MODE FILE [ARG].)
 *
 * MODE
 *   baseline  load the engine, replay nothing: the process's own RSS floor
 *   floor     read file + split lines + JSON.parse every line (best of ARG=3)
 *   replay    read file + `replayLedger(bytes)` (best of ARG=3); peak RSS of the first run
 *   append    replay the first N-ARG (20) lines, then `appendLedger` each of the last ARG lines;
 *             then, from the third-last dispatch_next on, append every line (grants cost the most)
 *   ratio     floor and replay interleaved in this one process, ARG (5) rounds after one warm-up
 *             round of each: per-round CPU-time and wall-time ratios replay / floor, and medians
 *   steady    as ratio, but without the forced GC before each run and after two warm-up rounds of each: the
 *             ratio a long-lived process (console, MCP server) sees; a forced full GC deoptimizes
 *             the replay's optimized code (V8's "weak objects"), which no natural GC was seen to do
 *   floor-steady  the floor alone, as `steady` runs it (two warm-ups, ARG (7) rounds, no forced GC), in a
 *             process that replays nothing: the denominator of the "over a floor-only process" ratios
 *             (in `steady` and bench/replay-threads.ts the floor runs among replays, and at 16 MiB
 *             their garbage slows it by 10-20%: docs/performance.md, thirteenth round)
 *   phases    where cold replay spends its time: the `extend` loop of engine/replay/replay.ts with a
 *             timer around each step (frame, decode, parse, canonical, validate, fingerprint, fold
 *             by kind, bookkeeping)
 *
 * Prints one JSON object on stdout. `maxRssKB` is `process.resourceUsage().maxRSS` (KiB on Linux).
 */
import { readFileSync } from 'node:fs';
import { Projection, appendLedger, replayLedger } from '../engine/replay/index.ts';
import { readLedgerFile } from '../lib/ledger-file.ts';
import type { QueueCommit } from '../engine/schema/index.ts';
import { cpuNow, floorOnce, gc, maxRssKB, median, now, round } from './replay-measure.ts';
import { phases } from './replay-phases.ts';

/** Physical lines of a ledger, LF included (the generators and the reference write causal order). */
function linesOf(bytes: Buffer): string[] {
  const text = bytes.toString('utf8');
  const out: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\n', pos);
    out.push(text.slice(pos, end + 1));
    pos = end + 1;
  }
  return out;
}

function floor(file: string, runs: number): object {
  const times: number[] = [];
  const cpu: number[] = [];
  let lines = 0;
  for (let r = 0; r < runs; r++) {
    gc();
    const c = cpuNow();
    const t = now();
    const text = readFileSync(file, 'utf8');
    const parts = text.split('\n');
    let n = 0;
    for (const line of parts) {
      if (line.length === 0) continue;
      JSON.parse(line);
      n += 1;
    }
    times.push(now() - t);
    cpu.push(cpuNow() - c);
    lines = n;
  }
  return { mode: 'floor', lines, times: times.map(round), best: round(Math.min(...times)), cpuBest: round(Math.min(...cpu)), firstCpu: round(cpu[0]!), maxRssKB: maxRssKB() };
}

/**
 * The goal's measure (docs/performance.md): replay over the floor measured in the same process,
 * interleaved (floor, replay, floor, replay, ...) so both see the same machine load, after one
 * untimed warm-up of each. Reports each round's ratio and the medians.
 */
async function ratio(file: string, rounds: number): Promise<object> {
  floorOnce(file);
  replayLedger(await readLedgerFile(file));
  const floorCpu: number[] = [];
  const replayCpu: number[] = [];
  const floorWall: number[] = [];
  const replayWall: number[] = [];
  let commits = 0;
  for (let r = 0; r < rounds; r++) {
    gc();
    let c = cpuNow();
    let t = now();
    floorOnce(file);
    floorWall.push(now() - t);
    floorCpu.push(cpuNow() - c);
    gc();
    c = cpuNow();
    t = now();
    commits = replayLedger(await readLedgerFile(file)).commitCount;
    replayWall.push(now() - t);
    replayCpu.push(cpuNow() - c);
  }
  const cpuRatios = replayCpu.map((x, i) => x / floorCpu[i]!);
  const wallRatios = replayWall.map((x, i) => x / floorWall[i]!);
  return {
    mode: 'ratio', rounds, commits,
    floorCpu: floorCpu.map(round), replayCpu: replayCpu.map(round), floorWall: floorWall.map(round), replayWall: replayWall.map(round),
    cpuRatios: cpuRatios.map((x) => round(x)), wallRatios: wallRatios.map((x) => round(x)),
    cpuRatio: round(median(cpuRatios)), wallRatio: round(median(wallRatios)),
    floorCpuMedian: round(median(floorCpu)), replayCpuMedian: round(median(replayCpu)),
    maxRssKB: maxRssKB(),
  };
}

/**
 * Like `ratio`, without the forced GC before each run (natural GCs only) and after two untimed
 * warm-up rounds of each: the warm steady state of a long-lived process. A forced full GC
 * (`gc()`) deoptimizes part of the replay's optimized code (`--trace-deopt`: "weak objects",
 * 15-50 functions per forced GC on gen-16M; none on the natural GCs of the same runs), so
 * `ratio` measures a replay that partly re-warms its JIT every round.
 */
async function steady(file: string, rounds: number): Promise<object> {
  for (let w = 0; w < 2; w++) {
    floorOnce(file);
    replayLedger(await readLedgerFile(file));
  }
  const floorCpu: number[] = [];
  const replayCpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let c = cpuNow();
    floorOnce(file);
    floorCpu.push(cpuNow() - c);
    c = cpuNow();
    replayLedger(await readLedgerFile(file));
    replayCpu.push(cpuNow() - c);
  }
  const cpuRatios = replayCpu.map((x, i) => x / floorCpu[i]!);
  return {
    mode: 'steady', rounds,
    floorCpu: floorCpu.map(round), replayCpu: replayCpu.map(round), cpuRatios: cpuRatios.map(round),
    cpuRatio: round(median(cpuRatios)), floorCpuMedian: round(median(floorCpu)), replayCpuMedian: round(median(replayCpu)),
  };
}

/** The floor alone, warm and without forced GC, in a process that replays nothing: wall and CPU medians. */
function floorSteady(file: string, rounds: number): object {
  for (let w = 0; w < 2; w++) floorOnce(file);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const c = cpuNow();
    const t = now();
    floorOnce(file);
    wall.push(now() - t);
    cpu.push(cpuNow() - c);
  }
  return { mode: 'floor-steady', rounds, wall: wall.map(round), cpu: cpu.map(round), wallMedian: round(median(wall)), cpuMedian: round(median(cpu)) };
}

async function replay(file: string, runs: number): Promise<object> {
  const times: number[] = [];
  const cpu: number[] = [];
  let firstRssKB = 0;
  let commits = 0;
  let tip: string | null = null;
  let heapUsedMB = 0;
  let externalMB = 0;
  for (let r = 0; r < runs; r++) {
    gc();
    const c = cpuNow();
    const t = now();
    const bytes = await readLedgerFile(file);
    let projection: Projection | null = replayLedger(bytes);
    times.push(now() - t);
    cpu.push(cpuNow() - c);
    if (r === 0) {
      firstRssKB = maxRssKB();
      commits = projection.commitCount;
      tip = projection.tip;
      gc();
      const m = process.memoryUsage();
      heapUsedMB = m.heapUsed / 2 ** 20;
      externalMB = m.external / 2 ** 20;
    }
    projection = null;
    void projection;
  }
  return {
    mode: 'replay', commits, tip, times: times.map(round), best: round(Math.min(...times)), first: round(times[0]!), cpuBest: round(Math.min(...cpu)),
    /** CPU of the first replay in this fresh process: what one `fairway verify` pays (cold JIT, fresh heap). */
    firstCpu: round(cpu[0]!),
    /** High-water RSS after the first (fresh-process) replay: the peak of one cold replay. */
    peakRssKB: firstRssKB,
    /** JS heap still in use while the first projection is alive (after a GC). */
    retainedHeapMB: round(heapUsedMB),
    /** Off-heap memory (Buffers: the ledger bytes the projection keeps for refreshLedger). */
    retainedExternalMB: round(externalMB),
    maxRssKB: maxRssKB(),
  };
}

function append(file: string, tail: number): object {
  const lines = linesOf(readFileSync(file));
  const cut = Math.max(1, lines.length - tail);
  const prefix = Buffer.from(lines.slice(0, cut).join(''));
  const t0 = now();
  const projection = replayLedger(prefix);
  const prefixMs = now() - t0;
  const chunks = lines.slice(cut).map((l) => Buffer.from(l));
  const kinds = lines.slice(cut).map((l) => (JSON.parse(l) as QueueCommit).request.kind);
  const times: number[] = [];
  for (const chunk of chunks) {
    const t = now();
    appendLedger(projection, chunk);
    times.push(now() - t);
  }
  const tip = projection.tip;
  const commits = projection.commitCount;

  // Grants are the costliest appends (replay re-runs the packer on a full-size state): replay up to
  // the third-last dispatch_next, then append every following line one at a time.
  let grant: object | null = null;
  const grantLines: number[] = [];
  for (let i = lines.length - 1; i > 0 && grantLines.length < 3; i--) {
    if (lines[i]!.includes('"kind":"dispatch_next"')) grantLines.push(i);
  }
  if (grantLines.length > 0) {
    const from = grantLines[grantLines.length - 1]!;
    gc();
    const p = replayLedger(Buffer.from(lines.slice(0, from).join('')));
    const grantMs: number[] = [];
    const claims: number[] = [];
    const all: number[] = [];
    const allKinds: string[] = [];
    for (let i = from; i < lines.length; i++) {
      allKinds.push((JSON.parse(lines[i]!) as QueueCommit).request.kind);
      const chunk = Buffer.from(lines[i]!);
      const t = now();
      appendLedger(p, chunk);
      const ms = now() - t;
      all.push(ms);
      if (grantLines.includes(i)) {
        grantMs.push(ms);
        claims.push((JSON.parse(lines[i]!) as QueueCommit).operations.length);
      }
    }
    grant = { appended: all.length, grants: grantMs.length, grantMs: grantMs.map(round), claims, ms: round(Math.max(...grantMs)), allMedian: round(median(all)), allMax: round(Math.max(...all)), allMaxKind: allKinds[all.indexOf(Math.max(...all))] };
  }
  return {
    mode: 'append', tail: chunks.length, prefixLines: cut, prefixReplayMs: round(prefixMs), commits, tip,
    times: times.map(round), kinds, median: round(median(times)), max: round(Math.max(...times)), grant, maxRssKB: maxRssKB(),
  };
}

const [mode, file, arg] = process.argv.slice(2);
const n = arg === undefined ? undefined : Number(arg);
let report: object;
switch (mode) {
  case 'baseline':
    report = { mode, maxRssKB: maxRssKB(), heapUsedMB: round(process.memoryUsage().heapUsed / 2 ** 20) };
    break;
  case 'floor':
    report = floor(file!, n ?? 3);
    break;
  case 'replay':
    report = await replay(file!, n ?? 3);
    break;
  case 'append':
    report = append(file!, n ?? 20);
    break;
  case 'steady':
    report = await steady(file!, n ?? 5);
    break;
  case 'floor-steady':
    report = floorSteady(file!, n ?? 7);
    break;
  case 'ratio':
    report = await ratio(file!, n ?? 5);
    break;
  case 'phases':
    report = await phases(file!);
    break;
  default:
    console.error('usage: replay-child.ts baseline|floor|floor-steady|replay|append|ratio|steady|phases FILE [N]');
    process.exit(2);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
