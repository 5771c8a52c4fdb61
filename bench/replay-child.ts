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
 *             also the append of the last dispatch_next on its own prefix (the costliest kind)
 *   phases    where cold replay spends its time (decode, split, parse, schema, fold by kind, ...),
 *             after one untimed warm-up replay
 *
 * Prints one JSON object on stdout. `maxRssKB` is `process.resourceUsage().maxRSS` (KiB on Linux).
 */
import { readFileSync } from 'node:fs';
import { canonicalize, decodeUtf8, parseLedgerLine, splitLedger } from '../engine/codec/index.ts';
import type { JsonValue } from '../engine/json.ts';
import { requestFingerprint } from '../engine/identity/index.ts';
import { applyCommit } from '../engine/replay/apply.ts';
import { appendLedger, createState, replayLedger, type Projection } from '../engine/replay/index.ts';
import { OPERATIONS_KINDS } from '../engine/replay/rules.ts';
import { parseQueueCommit, type QueueCommit } from '../engine/schema/index.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
const maxRssKB = (): number => process.resourceUsage().maxRSS;
const now = (): number => performance.now();
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
  let lines = 0;
  for (let r = 0; r < runs; r++) {
    gc();
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
    lines = n;
  }
  return { mode: 'floor', lines, times: times.map(round), best: round(Math.min(...times)), maxRssKB: maxRssKB() };
}

function replay(file: string, runs: number): object {
  const times: number[] = [];
  let firstRssKB = 0;
  let commits = 0;
  let tip: string | null = null;
  let heapUsedMB = 0;
  for (let r = 0; r < runs; r++) {
    gc();
    const t = now();
    const bytes = readFileSync(file);
    let projection: Projection | null = replayLedger(bytes);
    times.push(now() - t);
    if (r === 0) {
      firstRssKB = maxRssKB();
      commits = projection.commitCount;
      tip = projection.tip;
      gc();
      heapUsedMB = process.memoryUsage().heapUsed / 2 ** 20;
    }
    projection = null;
    void projection;
  }
  return {
    mode: 'replay', commits, tip, times: times.map(round), best: round(Math.min(...times)), first: round(times[0]!),
    /** High-water RSS after the first (fresh-process) replay: the peak of one cold replay. */
    peakRssKB: firstRssKB,
    /** JS heap still in use while the first projection is alive (after a GC). */
    retainedHeapMB: round(heapUsedMB),
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

  // The last dispatch_next, appended on its own prefix: replay re-runs the packer on a full-size state.
  let grant: object | null = null;
  let k = -1;
  for (let i = lines.length - 1; i > 0; i--) {
    if (lines[i]!.includes('"kind":"dispatch_next"')) {
      k = i;
      break;
    }
  }
  if (k > 0) {
    gc();
    const p = replayLedger(Buffer.from(lines.slice(0, k).join('')));
    const chunk = Buffer.from(lines[k]!);
    const claims = (JSON.parse(lines[k]!) as QueueCommit).operations.length;
    const t = now();
    appendLedger(p, chunk);
    grant = { line: k + 1, claims, ms: round(now() - t) };
  }
  return {
    mode: 'append', tail: chunks.length, prefixLines: cut, prefixReplayMs: round(prefixMs), commits, tip,
    times: times.map(round), kinds, median: round(median(times)), max: round(Math.max(...times)), grant, maxRssKB: maxRssKB(),
  };
}

function phases(file: string): object {
  const out: Record<string, number> = {};
  const time = <T>(name: string, run: () => T): T => {
    gc();
    const t = now();
    const value = run();
    out[name] = round(now() - t);
    return value;
  };
  // One untimed replay first, so every phase below runs on warm (JIT-compiled) code like the total.
  replayLedger(readFileSync(file));
  const bytes = time('read', () => readFileSync(file));
  const text = time('decodeUtf8', () => decodeUtf8(bytes));
  const lines = time('splitLedger', () => splitLedger(text, { ledgerBytes: undefined }));
  time('JSON.parse', () => {
    for (const l of lines) JSON.parse(l.text);
  });
  const values = time('parseLedgerLine', () => lines.map((l) => parseLedgerLine(l.text)));
  time('canonicalize(value) (inside parseLedgerLine)', () => {
    for (const v of values) canonicalize(v);
  });
  const commits = time('parseQueueCommit', () => values.map((v) => parseQueueCommit(v)));

  // The fold alone, in causal (= physical) order, timed per request kind.
  const byKind: Record<string, { count: number; ms: number }> = {};
  const state = createState();
  time('applyCommit (fold)', () => {
    commits.forEach((commit, i) => {
      const t = now();
      applyCommit(state, commit, { line: i + 1 });
      const s = (byKind[commit.request.kind] ??= { count: 0, ms: 0 });
      s.count += 1;
      s.ms += now() - t;
    });
  });
  for (const s of Object.values(byKind)) s.ms = round(s.ms);

  // Components inside the fold, measured on their own.
  time('  requestFingerprint (envelope check)', () => {
    for (const c of commits) requestFingerprint(c.actor as never, c.request.kind, c.request.parameters as JsonValue);
  });
  time('  parameters binding (2 canonicalize per submit/operations commit)', () => {
    for (const c of commits) {
      const params = c.request.parameters as Record<string, JsonValue>;
      if (c.request.kind === 'submit') {
        canonicalize(params.nodes!);
        canonicalize(c.operations.filter((op) => op.kind === 'Work') as never);
      } else if (OPERATIONS_KINDS.has(c.request.kind)) {
        canonicalize(params.operations!);
        canonicalize(c.operations as never);
      }
    }
  });

  const cold = time('replayLedger (warm code, fresh projection)', () => replayLedger(bytes));
  const parts = out.decodeUtf8! + out.splitLedger! + out.parseLedgerLine! + out.parseQueueCommit! + out['applyCommit (fold)']!;
  out['rest (chain, projection bookkeeping, GC)'] = round(out['replayLedger (warm code, fresh projection)']! - parts);
  return { mode: 'phases', lines: lines.length, commits: cold.commitCount, phases: out, foldByKind: byKind, maxRssKB: maxRssKB() };
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
  case 'phases':
    report = phases(file!);
    break;
  default:
    console.error('usage: replay-child.ts baseline|floor|replay|append|phases FILE [N]');
    process.exit(2);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
