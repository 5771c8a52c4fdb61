/**
 * Each read surface's answer to the same questions about one ledger, from its real code path
 * (tests/acceptance/surfaces-agree.test.ts compares them):
 *
 * - CLI: the `fairway` entry point in-process (`stats`, `state`, `replay`, `next`, `explain`) on a
 *   ledger file or the queue's Git store; `stats` and `state` read the clock, so it is set to the
 *   decision time;
 * - console: the server-side view functions its pages render, on the projection
 *   `ConsoleRuntime.view(at)` gives a page (live, or pinned to a commit);
 * - MCP: `work_queue_read` and `work_queue_explain` through the official SDK client on an
 *   activation snapshot captured from the same store at the decision time;
 * - TUI: the keyboard browser's backend snapshot (`storeBackend(...).load`).
 *
 * Answers are reduced to the facts the surfaces share (never their formatting); a surface that
 * does not present a fact leaves it out.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { vi } from 'vitest';
import { storeBackend } from '../../cli/tui/backend.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { BlockingStep } from '../../engine/scheduler/eligibility.ts';
import type { LineEntry } from '../../engine/scheduler/line.ts';
import type { LinePosition } from '../../engine/scheduler/line-position.ts';
import { overviewView } from '../../lib/console/views/overview.ts';
import { lineView } from '../../lib/console/views/line.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { captureSnapshot } from '../../lib/intents/snapshot.ts';
import { IntentStore } from '../../lib/intents/store.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import { createIntentServer } from '../../mcp/server.ts';
import { runCaptured, type CapturedRun } from './cli.ts';

/** The shared facts of one ledger at one decision time. Absent: the surface does not present it. */
export interface Facts {
  worksByState?: Record<string, number>;
  claimsByState?: Record<string, number>;
  /** Unreleased dispatch groups (native reservations held) per pool. */
  openGroups?: Record<string, number>;
  unresolvedLaunches?: string[];
  barriers?: Record<string, number>;
  /** Eligible ("ready") Work per pool. */
  ready?: Record<string, number>;
  /** Available Work per (pool, class, key). */
  backlog?: Array<[string, number, string, number]>;
  /** The predicted grant order per pool. */
  line?: Record<string, LineEntry[]>;
  /** The next selection per pool: its Work, or its no-grant code. */
  next?: Record<string, string>;
  /** Available Work that is not eligible: its reason code and blocking path. */
  blocked?: Record<string, { reason: string; path: BlockingStep[] }>;
  /** Where each available Work stands in its pool's line (null: not in it). */
  positions?: Record<string, LinePosition | null>;
  /** When each Work was admitted and cancelled, and each of its Claims granted and ended (Unix ms; null: not yet). */
  times?: Record<string, { admitted: number | null; cancelled: number | null; claims: Array<[string, number | null, number | null]> }>;
  /** A blocked Work's path past itself, when a dependency blocks it: each step's kind, reason, Work and condition. */
  dependencyPath?: Record<string, Array<[string, string, string | null, string | null]>>;
}

const pathSteps = (steps: ReadonlyArray<{ kind: string; reason: string; work_id?: string; condition?: string }>) =>
  steps.map((s): [string, string, string | null, string | null] => [s.kind, s.reason, s.work_id ?? null, s.condition ?? null]);

// ------------------------------------------------------------------ CLI

/** `fairway --json ...args` with the clock at `asOf` (stats and state evaluate readiness at now). */
export async function fairway(asOf: number, ...args: string[]): Promise<any> {
  const r = await fairwayAt(asOf, ['--json', ...args]);
  if (r.code !== 0) throw new Error(`fairway ${args.join(' ')} exited ${r.code}: ${r.out}${r.err}`);
  return r.json;
}

/** `fairway ...argv` (no --json added) with the clock at `asOf`: exit code, output and, when it is JSON, its value. */
export async function fairwayAt(asOf: number, argv: string[]): Promise<CapturedRun> {
  vi.useFakeTimers({ toFake: ['Date'], now: asOf });
  try {
    return await runCaptured(argv);
  } finally {
    vi.useRealTimers();
  }
}

/** Same, answering the error code of a refusal instead of throwing. */
export async function fairwayOrCode(asOf: number, ...args: string[]): Promise<{ code: number; json: any }> {
  const r = await fairwayAt(asOf, ['--json', ...args]);
  return { code: r.code, json: r.json };
}

/** Every row of `state --json`, page after page. */
async function stateRows(source: string[], asOf: number): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  for (let offset: number | null = 0; offset !== null;) {
    const page = await fairway(asOf, ...source, 'state', '--limit', '256', '--offset', String(offset));
    rows.push(...page.rows);
    offset = page.next_offset;
  }
  return rows;
}

function tally(values: Iterable<string>, keys: readonly string[]): Record<string, number> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<string, number>;
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

const WORK_STATES = ['available', 'claimed', 'completed', 'cancelled'] as const;
const CLAIM_STATES = ['open', 'completed', 'cancelled'] as const;

/** What the CLI says about the ledger `source` (`--ledger FILE` or `--repo DIR`) at `asOf`. */
export async function cliFacts(source: string[], asOf: number, pools: readonly string[]): Promise<Facts> {
  const stats = await fairway(asOf, ...source, 'stats');
  const rows = await stateRows(source, asOf);
  const line: Facts['line'] = {};
  const next: Facts['next'] = {};
  for (const pool of pools) {
    line[pool] = (await fairway(asOf, ...source, 'next', '--pool', pool, '--as-of', String(asOf), '--limit', '4096')).entries;
    const e = await fairway(asOf, ...source, 'explain', '--pool', pool, '--as-of', String(asOf));
    next[pool] = e.work?.work_id ?? e.reason;
  }
  const blocked: Facts['blocked'] = {};
  const positions: Facts['positions'] = {};
  const dependencyPath: Facts['dependencyPath'] = {};
  for (const w of rows.filter((r) => r.kind === 'work' && r.state === 'available')) {
    const x = await fairway(asOf, ...source, 'explain', '--pool', w.pool, '--work-id', w.work_id, '--as-of', String(asOf));
    if (!x.eligible) blocked[w.work_id] = { reason: x.reason, path: x.blocking_path };
    if (x.blocking_path.length > 1) dependencyPath[w.work_id] = pathSteps(x.blocking_path.slice(1));
    positions[w.work_id] = (await fairway(asOf, ...source, 'next', '--pool', w.pool, '--work-id', w.work_id, '--as-of', String(asOf))).work.position;
  }
  const openGroups: Record<string, number> = {};
  for (const p of stats.pools) openGroups[p.pool] = p.native_outstanding;
  const times: Facts['times'] = {};
  for (const r of rows) {
    if (r.kind === 'work') times[r.work_id] = { admitted: r.admitted_at, cancelled: r.cancelled_at, claims: [] };
    else if (r.kind === 'claim') times[r.work_id]!.claims.push([r.claim_id, r.granted_at, r.terminal_at]);
  }
  return {
    worksByState: stats.works,
    claimsByState: tally(rows.filter((r) => r.kind === 'claim').map((r) => r.state), CLAIM_STATES),
    openGroups,
    unresolvedLaunches: stats.unresolved_launches.map((u: { dispatch_id: string }) => u.dispatch_id),
    barriers: stats.barriers,
    ready: Object.fromEntries(stats.pools.map((p: { pool: string; eligible: number }) => [p.pool, p.eligible])),
    backlog: stats.pools.flatMap((p: { pool: string; backlog: Array<{ priority: number; fairness_key: string; available: number }> }) =>
      p.backlog.map((b) => [p.pool, b.priority, b.fairness_key, b.available])),
    line,
    next,
    blocked,
    positions,
    dependencyPath,
    times,
  };
}

/** What `replay --json` says of the counts: Work and Claims by state, the unreleased groups (`reservations.held_by`). */
export async function cliReplayFacts(source: string[], asOf: number): Promise<Facts> {
  const replay = await fairway(asOf, ...source, 'replay');
  const s = replay.summary;
  return {
    worksByState: s.works.by_state,
    claimsByState: { open: s.claims.open, completed: s.claims.completed, cancelled: s.claims.cancelled },
    openGroups: tally(replay.reservations.held_by.map((d: { pool: string }) => d.pool), []),
    barriers: s.barriers,
  };
}

// ------------------------------------------------------------------ console

/** What the console's pages show of `projection` (from `ConsoleRuntime.view`) at `asOf`. */
export function consoleFacts(projection: Projection, asOf: number): Facts {
  const o = overviewView(projection, asOf);
  const ready: Record<string, number> = {};
  for (const b of o.backlog) ready[b.pool] = (ready[b.pool] ?? 0) + b.ready;
  const line: Facts['line'] = {};
  for (const pool of projection.poolNames) line[pool] = lineView(projection, asOf, pool)!.line.entries;
  const blocked: Facts['blocked'] = {};
  const positions: Facts['positions'] = {};
  const dependencyPath: Facts['dependencyPath'] = {};
  const times: Facts['times'] = {};
  for (const w of projection.works()) {
    const d = workDetail(projection, w.workId, asOf, 'github.com')!;
    times[w.workId] = { admitted: d.admittedAt, cancelled: d.cancellation?.at ?? null, claims: d.claims.map((c) => [c.claimId, c.at, c.terminalAt]) };
    if (w.state !== 'available') continue;
    if (d.status.readiness === 'waiting') blocked[w.workId] = { reason: d.status.reason, path: d.status.blockingPath };
    positions[w.workId] = d.line;
    // The blocking view's first branch (the diagram and the list beside it) when a dependency blocks the Work.
    if (d.status.blockingPath.length > 1) {
      dependencyPath[w.workId] = (d.blocking?.branches[0] ?? []).map((b): [string, string, string | null, string | null] => [b.kind, b.reason, b.workId, b.condition]);
    }
  }
  return {
    worksByState: { ...o.summary.works.by_state },
    claimsByState: { open: o.summary.claims.open, completed: o.summary.claims.completed, cancelled: o.summary.claims.cancelled },
    openGroups: Object.fromEntries(o.capacity.map((c) => [c.pool, c.native])),
    unresolvedLaunches: o.launches.map((l) => l.dispatchId).sort(),
    barriers: { ...o.summary.barriers },
    ready,
    backlog: o.backlog.map((b) => [b.pool, b.priority, b.key, b.available]),
    line,
    blocked,
    positions,
    dependencyPath,
    times,
  };
}

// ------------------------------------------------------------------ MCP

export interface McpSession {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** An observer activation snapshot of `store` captured at `asOf`, served by the MCP intent server. */
export async function mcpSession(store: LedgerStore, asOf: number): Promise<McpSession> {
  const loaded = await captureSnapshot({ store, branch: 'work-queue', role: 'observer', principal: '1', now: asOf });
  const server = createIntentServer({ loaded, intents: new IntentStore(mkdtempSync(join(tmpdir(), 'fairway-surfaces-intents-'))) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'fairway-surfaces', version: '0.0.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return result.structuredContent as any;
  };
  return { client, call, close: () => client.close() };
}

/** What `work_queue_read` and `work_queue_explain` say of the snapshot. */
export async function mcpFacts(mcp: McpSession): Promise<Facts> {
  // Pages of at most 100 rows (the tool's bound); every page says the same counts and line.
  const read = await mcp.call('work_queue_read', { limit: 100, line_limit: 100 });
  if (read.ok !== true) throw new Error(`work_queue_read: ${JSON.stringify(read)}`);
  const items = [...read.works.items] as Array<{ work_id: string; pool: string; state: string; eligible: boolean }>;
  for (let offset = read.works.next_offset; offset !== null;) {
    const page = await mcp.call('work_queue_read', { limit: 100, offset });
    items.push(...page.works.items);
    offset = page.works.next_offset;
  }
  for (const p of read.predictions) if (p.line.truncated) throw new Error(`the line of ${p.pool} is longer than work_queue_read's line_limit bound`);
  const ready: Record<string, number> = {};
  for (const w of items) if (w.state === 'available') ready[w.pool] = (ready[w.pool] ?? 0) + (w.eligible ? 1 : 0);
  const line: Facts['line'] = {};
  const next: Facts['next'] = {};
  for (const p of read.predictions) {
    line[p.pool] = p.line.entries;
    const x = await mcp.call('work_queue_explain', { pool: p.pool });
    next[p.pool] = x.explanation.work?.work_id ?? x.reason;
  }
  const blocked: Facts['blocked'] = {};
  const positions: Facts['positions'] = {};
  for (const w of items.filter((i) => i.state === 'available')) {
    const x = await mcp.call('work_queue_explain', { work_id: w.work_id });
    if (!x.eligibility.eligible) blocked[w.work_id] = { reason: x.eligibility.reason, path: x.eligibility.blocking_path };
    positions[w.work_id] = x.line_position;
  }
  const r = read.counts.reservations;
  return {
    worksByState: read.counts.works.by_state,
    claimsByState: { open: read.counts.claims.open, completed: read.counts.claims.completed, cancelled: read.counts.claims.cancelled },
    openGroups: { ...r.native_outstanding },
    ready,
    line,
    next,
    blocked,
    positions,
  };
}

// ------------------------------------------------------------------ TUI

/** What the keyboard browser's snapshot holds of `store` read at `asOf`. */
export async function tuiFacts(store: LedgerStore, asOf: number): Promise<Facts> {
  const s = await storeBackend(store, { principal: '1', basis: 'test' }, () => asOf).load([]);
  const works = [...s.works.values()];
  const ready: Record<string, number> = {};
  const blocked: Facts['blocked'] = {};
  for (const w of works) {
    if (w.state !== 'available') continue;
    ready[w.pool] = (ready[w.pool] ?? 0) + (w.readiness === 'ready' ? 1 : 0);
    const waiting = /^waiting \((.+)\)$/.exec(w.readiness);
    if (waiting !== null) blocked[w.id] = { reason: waiting[1]!, path: w.blockingPath };
  }
  return {
    worksByState: tally(works.map((w) => w.state), WORK_STATES),
    claimsByState: tally([...s.claims.values()].map((c) => c.state), CLAIM_STATES),
    ready,
    blocked,
  };
}

/** Per-pool counts without their zero entries (surfaces list different sets of pools: configured, with Work, with a reservation). */
export function nonZero(counts: Record<string, number> | undefined): Record<string, number> | undefined {
  return counts === undefined ? undefined : Object.fromEntries(Object.entries(counts).filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A ledger text as a file the CLI reads with `--ledger`. */
export function ledgerFile(text: string, name = 'ledger.jsonl'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-surfaces-')), name);
  writeFileSync(file, text);
  return file;
}

/** The first `count` retained commits of `projection` as ledger text (its causal prefix). */
export function prefixText(projection: Projection, count: number): string {
  return projection.commits.slice(0, count).map((c) => `${projection.commitText(c.id)}\n`).join('');
}
