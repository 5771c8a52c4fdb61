/**
 * One isolated measurement per process, so runs never pollute each other's
 * heap or RSS high-water mark:
 *
 *   node --expose-gc --import tsx bench/replay-child.ts MODE FILE [ARG]
 *
 * MODE
 *   baseline  load the engine, replay nothing: the process's own RSS floor
 *   floor     read file + split lines + JSON.parse every line (best of ARG=3)
 *   replay    read file + `replayLedger(bytes)` (best of ARG=3); peak RSS of the first run
 *   append    replay the first N-ARG (20) lines, then `appendLedger` each of the last ARG lines;
 *             then, from the third-last dispatch_next on, append every line (grants cost the most)
 *   ratio     floor and replay interleaved in this one process, ARG (5) rounds after one warm-up
 *             round of each: per-round CPU-time and wall-time ratios replay / floor, and medians
 *   phases    where cold replay spends its time: the `extend` loop of engine/replay/replay.ts with a
 *             timer around each step (decode, split, parse, schema, envelope text, fold by kind)
 *
 * Prints one JSON object on stdout. `maxRssKB` is `process.resourceUsage().maxRSS` (KiB on Linux).
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { canonicalMembers, decodeUtf8, parseLedgerRecord, splitLedger, utf8ByteLength } from '../engine/codec/index.ts';
import type { JsonValue } from '../engine/json.ts';
import { applyCommit } from '../engine/replay/apply.ts';
import { verifyEnvelopeText, type EnvelopeVerdict } from '../engine/replay/envelope.ts';
import type { ChainRecord } from '../engine/replay/chain.ts';
import { CausalChain, Projection, appendLedger, createState, replayLedger } from '../engine/replay/index.ts';
import { OPERATIONS_KINDS } from '../engine/replay/rules.ts';
import { parseQueueCommit, type QueueCommit } from '../engine/schema/index.ts';

const UNVERIFIED: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };
const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
const maxRssKB = (): number => process.resourceUsage().maxRSS;
const now = (): number => performance.now();
/** CPU time of this process (user + system, all threads), ms: far less sensitive than wall time to a shared, loaded machine. */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const round = (ms: number): number => Math.round(ms * 1000) / 1000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

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
  return { mode: 'floor', lines, times: times.map(round), best: round(Math.min(...times)), cpuBest: round(Math.min(...cpu)), maxRssKB: maxRssKB() };
}

/** One floor run: read + split + JSON.parse of every line; answers the line count. */
function floorOnce(file: string): number {
  const text = readFileSync(file, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    JSON.parse(line);
    n += 1;
  }
  return n;
}

/**
 * The goal's measure (docs/performance.md): replay over the floor measured in the same process,
 * interleaved (floor, replay, floor, replay, ...) so both see the same machine load, after one
 * untimed warm-up of each. Reports each round's ratio and the medians.
 */
function ratio(file: string, rounds: number): object {
  floorOnce(file);
  replayLedger(readFileSync(file));
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
    commits = replayLedger(readFileSync(file)).commitCount;
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

function replay(file: string, runs: number): object {
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
    const bytes = readFileSync(file);
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

/**
 * Where cold replay spends its time: the loop of `extend` (engine/replay/replay.ts) re-run here
 * with a timer around each step, streaming like the engine (nothing extra retained), after one
 * untimed warm-up replay. `parseLedgerRecord` is split into its JSON.parse and its canonical
 * re-serialization check (`canonicalMembers`). GC pauses are included in whichever step
 * triggered them and also reported as a total.
 */
async function phases(file: string): Promise<object> {
  replayLedger(readFileSync(file));
  gc();
  const pauses: Array<{ start: number; duration: number }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, duration: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });

  const out: Record<string, number> = {};
  const add = (name: string, ms: number): void => {
    out[name] = (out[name] ?? 0) + ms;
  };
  const byKind: Record<string, { count: number; ms: number }> = {};
  const slow = { fingerprint: 0, parameters: 0 };

  const begin = now();
  let t = begin;
  const lap = (name: string): void => {
    const n = now();
    add(name, n - t);
    t = n;
  };
  const bytes = readFileSync(file);
  lap('read');
  const text = decodeUtf8(bytes);
  lap('decodeUtf8');
  const lines = splitLedger(text, { ledgerBytes: undefined });
  lap('splitLedger');

  const projection = new Projection(createState());
  const { state } = projection;
  const chain = new CausalChain<ChainRecord & { commit: QueueCommit; verdict: EnvelopeVerdict }>(
    null,
    (id) => projection.commitText(id),
    (id) => projection.successorOf(id),
  );
  for (const { text: lineText, line } of lines) {
    let value = JSON.parse(lineText) as JsonValue;
    lap('parseLedgerRecord: JSON.parse');
    const members = value !== null && typeof value === 'object' && !Array.isArray(value) ? canonicalMembers(value) : null;
    let spans = members !== null && members.text === lineText ? members.spans : null;
    if (spans === null) ({ value, spans } = parseLedgerRecord(lineText)); // non-canonical line: the engine's own path
    lap('parseLedgerRecord: canonicalMembers check');
    if ((value as { version?: unknown }).version !== 3) throw new Error(`line ${line}: not version 3`);
    const commit = parseQueueCommit(value);
    lap('parseQueueCommit (zod)');
    const verdict = spans === null ? UNVERIFIED : verifyEnvelopeText(lineText, spans, commit);
    lap('verifyEnvelopeText');
    for (const next of chain.offer({ id: commit.id, previous: commit.previous, text: lineText, line, commit, verdict })) {
      lap('chain + projection bookkeeping');
      applyCommit(state, next.commit, { line: next.line, ...next.verdict });
      const kind = next.commit.request.kind;
      const ms = now() - t;
      lap('applyCommit (fold)');
      const s = (byKind[kind] ??= { count: 0, ms: 0 });
      s.count += 1;
      s.ms += ms;
      if (!next.verdict.fingerprintVerified) slow.fingerprint += 1;
      if ((kind === 'submit' || OPERATIONS_KINDS.has(kind)) && !next.verdict.parametersVerified) slow.parameters += 1;
      projection.remember(next.id, next.previous, next.text);
    }
    lap('chain + projection bookkeeping');
  }
  chain.finish();
  projection.accept(bytes, lines.length);
  lap('chain + projection bookkeeping');
  const lineCount = lines.length;
  const end = now();
  out['total (instrumented loop)'] = end - begin;

  // The whole-ledger UTF-8 recount inside splitLedger (string input), measured on its own.
  const u = now();
  utf8ByteLength(text);
  const utf8Ms = now() - u;

  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const e of observer.takeRecords()) pauses.push({ start: e.startTime, duration: e.duration });
  observer.disconnect();
  out['  of which GC pauses'] = pauses.filter((p) => p.start >= begin && p.start < end).reduce((sum, p) => sum + p.duration, 0);
  out['  splitLedger: utf8ByteLength(whole text) alone'] = utf8Ms;

  const tip = projection.tip;
  chain.finish(); // (idempotent) keep `chain` alive only until here
  lines.length = 0;
  projection.state.works.clear(); // let the instrumented projection's state go before the comparison run
  gc();
  const r = now();
  const cold = replayLedger(bytes);
  out['replayLedger (same process, uninstrumented)'] = now() - r;
  if (cold.tip !== tip) throw new Error('instrumented loop and replayLedger disagree on the tip');

  for (const k of Object.keys(out)) out[k] = round(out[k]!);
  for (const s of Object.values(byKind)) s.ms = round(s.ms);
  return { mode: 'phases', lines: lineCount, commits: cold.commitCount, phases: out, foldByKind: byKind, slowEnvelopeChecks: slow, maxRssKB: maxRssKB() };
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
    report = replay(file!, n ?? 3);
    break;
  case 'append':
    report = append(file!, n ?? 20);
    break;
  case 'ratio':
    report = ratio(file!, n ?? 5);
    break;
  case 'phases':
    report = await phases(file!);
    break;
  default:
    console.error('usage: replay-child.ts baseline|floor|replay|append|ratio|phases FILE [N]');
    process.exit(2);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
