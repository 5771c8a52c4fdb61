/**
 * The line (issue 14 §1, page `/next` and each ready Work's page): the
 * predicted grant order of a pool's ready backlog from `predictLine` (the
 * engine's real selector run forward on the live clocks), with names, and a
 * time estimate from the pool's recent grant rate, labelled as an estimate.
 */
import type { Projection } from '../../../engine/replay/index.ts';
import { predictLine, type Line, type LineEntry } from '../../../engine/scheduler/line.ts';
import { installedPolicy } from '../../../engine/scheduler/policy-view.ts';

/** Grants the rate estimate is taken from. */
export const RATE_WINDOW = 20;

export interface GrantRate {
  /** Grants per hour over the window. */
  perHour: number;
  /** Grants the rate was measured over, and the span they cover (ms). */
  grants: number;
  spanMs: number;
}

export interface LineView {
  pool: string;
  pools: string[];
  line: Line;
  rate: GrantRate | null;
}

export interface LinePosition {
  position: number;
  /** Grants ahead of it in the whole pool, and of those in its own class. */
  ahead: number;
  aheadInClass: number;
  priority: number;
  /** The Work picked just before it (null: it is next). */
  after: { workId: string; nodeKey: string } | null;
  /** Estimated wait from the recent grant rate (ms), or null without a rate. */
  estimateMs: number | null;
  rate: GrantRate | null;
  reason: LineEntry['reason'];
}

/** The pool's recent grant rate: the last RATE_WINDOW Claims' commit times (null when fewer than 2 or no span). */
export function grantRate(projection: Projection, pool: string, asOf: number): GrantRate | null {
  const { state } = projection;
  const times: number[] = [];
  for (const claim of state.claims.values()) {
    if (state.dispatches.get(claim.dispatchId)?.pool !== pool) continue;
    const i = state.commitIndex.get(claim.commitId);
    if (i === undefined) continue;
    const at = state.commits[i]!.at;
    if (at <= asOf) times.push(at);
  }
  if (times.length < 2) return null;
  times.sort((a, b) => a - b);
  const recent = times.slice(-RATE_WINDOW);
  const spanMs = recent[recent.length - 1]! - recent[0]!;
  if (spanMs <= 0) return null;
  return { perHour: ((recent.length - 1) / spanMs) * 3_600_000, grants: recent.length, spanMs };
}

export function poolNames(projection: Projection): string[] {
  if (projection.state.policy === null) return [];
  return Object.keys(installedPolicy(projection.state).pools).sort();
}

/**
 * Full lines are reused for requests within this many ms on the same tip (a
 * 4,096-Work line costs a few hundred ms on a busy machine; every ready Work's
 * page reads it).
 */
export const LINE_REUSE_MS = 5_000;
const cache = new WeakMap<Projection, Map<string, { tip: string | null; asOf: number; line: Line }>>();

function cachedLine(projection: Projection, pool: string, asOf: number): Line {
  let byPool = cache.get(projection);
  if (byPool === undefined) cache.set(projection, (byPool = new Map()));
  const hit = byPool.get(pool);
  const tip = projection.state.tip;
  if (hit !== undefined && hit.tip === tip && asOf >= hit.asOf && asOf - hit.asOf < LINE_REUSE_MS) return hit.line;
  const line = predictLine(projection.state, pool, asOf);
  byPool.set(pool, { tip, asOf, line });
  return line;
}

/** The line of `pool` (default: the first configured pool); null when the pool does not exist. */
export function lineView(projection: Projection, asOf: number, pool: string | null, limit?: number): LineView | null {
  const pools = poolNames(projection);
  const chosen = pool ?? pools[0];
  if (chosen === undefined || !pools.includes(chosen)) return null;
  const line = limit === undefined ? cachedLine(projection, chosen, asOf) : predictLine(projection.state, chosen, asOf, limit);
  return { pool: chosen, pools, line, rate: grantRate(projection, chosen, asOf) };
}

/** Where `workId` stands in its pool's line; null when it is not in it (not ready, held or gated). */
export function linePosition(projection: Projection, asOf: number, workId: string): LinePosition | null {
  const work = projection.state.works.get(workId);
  if (work === undefined || work.state !== 'available' || projection.state.policy === null) return null;
  const view = lineView(projection, asOf, work.pool);
  if (view === null) return null;
  const entries = view.line.entries;
  const index = entries.findIndex((e) => e.work_id === workId);
  if (index < 0) return null;
  const entry = entries[index]!;
  let aheadInClass = 0;
  for (let i = 0; i < index; i++) if (entries[i]!.priority === entry.priority) aheadInClass++;
  const before = index > 0 ? entries[index - 1]! : null;
  return {
    position: entry.position,
    ahead: index,
    aheadInClass,
    priority: entry.priority,
    after: before === null ? null : { workId: before.work_id, nodeKey: before.node_key },
    estimateMs: view.rate === null ? null : Math.round((index / view.rate.perHour) * 3_600_000),
    rate: view.rate,
    reason: entry.reason,
  };
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st … */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** "37th; 12 grants ahead in P3; next after security-check-003" */
export function positionText(p: LinePosition): string {
  const parts = [ordinal(p.position), `${p.aheadInClass} grant${p.aheadInClass === 1 ? '' : 's'} ahead in P${p.priority}`];
  parts.push(p.after === null ? 'next to be granted' : `next after ${p.after.nodeKey}`);
  return parts.join('; ');
}
