/**
 * What bench/replay-fold.ts measures with: a ledger's records through the record stage, as
 * inline replay hands them to the fold (engine/replay/record.ts `parseRecord`), the fold alone
 * over them into a fresh state, the census of its large-table operations by call site, and what
 * it allocates (`foldAllocation`).
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { frameLedger } from '../engine/codec/index.ts';
import { applyCommit, type ApplyOptions } from '../engine/replay/apply.ts';
import { RecordTexts } from '../engine/replay/record-texts.ts';
import { parseRecord } from '../engine/replay/record.ts';
import type { QueueCommit } from '../engine/schema/index.ts';
import { createState } from '../engine/state/state.ts';

/** Entries from which a table's operation is counted (smaller tables stay in cache). */
export const LARGE = 1000;

export interface Checked {
  commit: QueueCommit;
  options: ApplyOptions;
}

/** Every record through the record stage, in file order; refuses a ledger the fold cannot take in that order. */
export function checkAll(bytes: Uint8Array): Checked[] {
  const frames = frameLedger(bytes);
  const texts = new RecordTexts(bytes, frames);
  const out: Checked[] = [];
  let tip: string | null = null;
  for (let n = 0; n < frames.length; n++) {
    const { start, end, line } = frames[n]!;
    const { commit, verdict, measures } = parseRecord(texts.text(n, line), line, end - start);
    if (commit.previous !== tip) throw new Error(`replay-fold: line ${line} does not extend the record before it; this bench takes ledgers in causal order without duplicates`);
    tip = commit.id;
    out.push({ commit, options: { line, fingerprintVerified: verdict.fingerprintVerified, parametersVerified: verdict.parametersVerified, bytes: end - start + 1, measures } });
  }
  return out;
}

export function fold(records: readonly Checked[]): void {
  const state = createState();
  for (const { commit, options } of records) applyCommit(state, commit, options);
}

export interface Census {
  /** Operations on tables of `large` entries or more (every WeakMap operation). */
  total: number;
  /** The same, by the request kind of the commit being folded. */
  byKind: Map<string, number>;
  /** The same, by `Table.method function path:line` of the caller. */
  bySite: Map<string, number>;
}

/**
 * The fold over `records` into a fresh state, counting its operations on tables of `large`
 * entries or more; Map, Set and WeakMap are patched only while it runs.
 */
export function foldCensus(records: readonly Checked[], large: number = LARGE): Census {
  const byKind = new Map<string, number>();
  const bySite = new Map<string, number>();
  let total = 0;
  let current = ''; // the request kind of the commit being folded
  // The census's own small maps are written through the unpatched methods.
  const get = Map.prototype.get;
  const put = Map.prototype.set;
  const add = (counts: Map<string, number>, key: string): void => {
    put.call(counts, key, ((get.call(counts, key) as number | undefined) ?? 0) + 1);
  };
  const restore: Array<() => void> = [];
  const root = new URL('..', import.meta.url).pathname;
  for (const table of [Map, Set, WeakMap] as unknown as Array<{ name: string; prototype: Record<string, unknown> }>) {
    for (const name of ['get', 'has', 'set', 'add', 'delete']) {
      const original = table.prototype[name];
      if (typeof original !== 'function') continue;
      table.prototype[name] = function (this: { size?: number }, ...args: unknown[]): unknown {
        // A WeakMap has no size: every one counts.
        if (this.size === undefined || this.size >= large) {
          total++;
          add(byKind, current);
          add(bySite, `${table.name}.${name} ${callSite(new Error().stack ?? '', root)}`);
        }
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      };
      restore.push(() => {
        table.prototype[name] = original;
      });
    }
  }
  try {
    const state = createState();
    for (const { commit, options } of records) {
      current = commit.request.kind;
      applyCommit(state, commit, options);
    }
  } finally {
    for (const undo of restore) undo();
  }
  return { total, byKind, bySite };
}

/** `function (path:line)` of the caller of the patched method (the stack's third line). */
function callSite(stack: string, root: string): string {
  const frame = stack.split('\n')[2]?.trim() ?? '';
  const m = /^at (?:(\S+) )?\(?(?:file:\/\/)?(.+?):(\d+):\d+\)?$/.exec(frame);
  if (m === null) return frame;
  return `${m[1] ?? '(anonymous)'} ${relative(root, m[2]!)}:${m[3]}`;
}

export interface Allocation {
  /** Bytes the fold allocates per record (what it keeps and what it leaves to the garbage collector). */
  perRecord: number;
  /** The same, by the allocating function (`name path`; V8's own functions have no path). */
  bySite: Map<string, number>;
}

interface SampledNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: SampledNode[];
}

/**
 * What `rounds` folds over `records` allocate, per record, sampled by V8's sampling heap profiler
 * every `interval` bytes on average, objects the garbage collector has already freed included:
 * garbage is what the fold's time pays for twice (allocating it and scavenges that copy what it
 * keeps alive beside it; docs/performance.md, "Replay: tenth round"). A sample, not a count: two
 * runs agree to a few percent.
 */
export async function foldAllocation(records: readonly Checked[], rounds = 3, interval = 1024): Promise<Allocation> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    // The two include flags are V8's (Node's types do not list them yet).
    await session.post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
    for (let r = 0; r < rounds; r++) fold(records);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SampledNode } };
    const bySite = new Map<string, number>();
    let total = 0;
    const walk = (node: SampledNode): void => {
      const { functionName, url } = node.callFrame;
      const path = url === '' ? '' : ` ${relative(process.cwd(), url.startsWith('file:') ? new URL(url).pathname : url)}`;
      const site = `${functionName === '' ? '(anonymous)' : functionName}${path}`;
      if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      total += node.selfSize;
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    const per = rounds * records.length;
    return { perRecord: total / per, bySite: new Map([...bySite].map(([site, bytes]) => [site, bytes / per])) };
  } finally {
    await session.post('HeapProfiler.disable').catch(() => undefined);
    session.disconnect();
  }
}
