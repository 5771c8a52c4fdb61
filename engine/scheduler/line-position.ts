/**
 * Reading the line (docs/console.md "Pages", `/next`): where one Work stands in a predicted line
 * (`predictLine`), and the pool's recent grant rate that turns a position into
 * an estimate in time. Shared by every surface that shows the line (console
 * `/next` and Work pages, `fairway next`, MCP `work_queue_read`/`explain`), so
 * they say the same thing. Pure: reads the replay state, changes nothing.
 */
import type { Line, LineEntry } from './line.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

/** Grants the rate estimate is taken from. */
export const RATE_WINDOW = 20;

export interface GrantRate {
  /** Grants per hour over the window. */
  perHour: number;
  /** Grants the rate was measured over, and the span they cover (ms). */
  grants: number;
  spanMs: number;
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

/**
 * The pool's recent grant rate: the commit times of its last RATE_WINDOW
 * Claims committed at or before `asOf` (null with fewer than 2 or no span).
 */
export function grantRate(source: QueueSource, pool: string, asOf: number): GrantRate | null {
  const state = stateOf(source);
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

/** Where `workId` stands in `line`; null when it is not in it (not ready, held, gated, or past a truncated line). */
export function positionInLine(line: Line, workId: string, rate: GrantRate | null): LinePosition | null {
  const entries = line.entries;
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
    estimateMs: rate === null ? null : Math.round((index / rate.perHour) * 3_600_000),
    rate,
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
