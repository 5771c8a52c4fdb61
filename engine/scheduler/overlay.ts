/**
 * Tentative packing state (spec 7.3): the Claims, charges, reservations and
 * clock transitions of a candidate prefix, held beside the untouched replay
 * state. Only the packed pool's clocks are copied.
 *
 * The packer itself keeps its prefix inside one `PrefixPlanner`
 * (prefix-planner.ts), which updates its indexes incrementally; an overlay is
 * for a caller that holds its own prefix across `planNext(…, overlay)` calls
 * (each such call walks the pool once, reusing the cached bucket heads), and
 * for the capacity reads of the eligibility checks.
 */
import type { ReplayState, WorkRecord } from '../state/state.ts';
import { accountKey } from '../state/mutate.ts';
import { applyTransition, forkPool, type ClockTransition } from './clocks.ts';
import type { FairnessState } from '../state/fairness.ts';

/** First Work of a bucket that passes the Work-level gates (cached per overlay prefix). */
export interface HeadScan {
  work: WorkRecord | null;
  observations: string[];
  /** Ineligible heads skipped before it, by reason. */
  skipped: Map<string, number>;
}

export interface PlanOverlay {
  pool: string;
  /** Work tentatively claimed by this prefix: no longer available. */
  claimed: Set<string>;
  /** Extra outstanding logical Claims in `pool`, in total and per fairness key. */
  logical: number;
  byKey: Map<string, number>;
  /** Extra native reservations (groups opened by this prefix). */
  native: number;
  /** Clocks with `pool`'s sibling sets forked. */
  fairness: FairnessState;
  /** Bucket head scans keyed by `${priority}\u0000${key}`; valid while asOf and the prefix are fixed. */
  heads: Map<string, HeadScan>;
  asOf: number;
}

export function createOverlay(state: ReplayState, pool: string, asOf: number): PlanOverlay {
  return {
    pool,
    claimed: new Set(),
    logical: 0,
    byKey: new Map(),
    native: 0,
    fairness: forkPool(state.fairness, pool),
    heads: new Map(),
    asOf,
  };
}

export function bucketId(priority: number, key: string): string {
  return `${priority}\u0000${key}`;
}

/** Record an admitted tentative Claim: ownership, logical charge, optional native slot, clocks. */
export function admitToOverlay(overlay: PlanOverlay, work: WorkRecord, transition: ClockTransition, opensGroup: boolean): void {
  overlay.claimed.add(work.workId);
  overlay.logical++;
  overlay.byKey.set(work.fairnessKey, (overlay.byKey.get(work.fairnessKey) ?? 0) + 1);
  if (opensGroup) overlay.native++;
  applyTransition(overlay.fairness, transition);
  overlay.heads.delete(bucketId(work.effectivePriority, work.fairnessKey));
}

function extra(overlay: PlanOverlay | undefined, pool: string): PlanOverlay | undefined {
  return overlay !== undefined && overlay.pool === pool ? overlay : undefined;
}

/** Outstanding logical Claims of `pool` (spec 7.8). */
export function logicalOutstanding(state: ReplayState, pool: string, overlay?: PlanOverlay): number {
  return (state.outstandingClaims.get(pool) ?? 0) + (extra(overlay, pool)?.logical ?? 0);
}

/** Outstanding logical Claims of one fairness key in `pool`. */
export function accountOutstanding(state: ReplayState, pool: string, key: string, overlay?: PlanOverlay): number {
  return (state.outstandingByKey.get(accountKey(pool, key)) ?? 0) + (extra(overlay, pool)?.byKey.get(key) ?? 0);
}

/** Unreleased native dispatch reservations of `pool`. */
export function nativeOutstanding(state: ReplayState, pool: string, overlay?: PlanOverlay): number {
  return (state.outstandingNative.get(pool) ?? 0) + (extra(overlay, pool)?.native ?? 0);
}

export function isClaimed(work: WorkRecord, overlay?: PlanOverlay): boolean {
  return overlay !== undefined && overlay.claimed.has(work.workId);
}
