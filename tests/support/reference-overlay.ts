/**
 * The reference's overlay (reference-pack.ts): the tentative prefix of one pack — the Work it
 * claimed, its logical, per-account and native counts, a forked copy of the pool's clocks and
 * the bucket heads already scanned — and the outstanding counts seen through it.
 */
import type { ReplayState, WorkRecord } from '../../engine/state/state.ts';
import type { ClockTransition } from '../../engine/scheduler/clocks.ts';
import type { FairnessState } from '../../engine/state/fairness.ts';
import { forkPool, referenceApplyTransition } from './reference-clocks.ts';

export interface HeadScan {
  work: WorkRecord | null;
  observations: string[];
  skipped: Map<string, number>;
}

export interface RefOverlay {
  pool: string;
  claimed: Set<string>;
  logical: number;
  byKey: Map<string, number>;
  native: number;
  fairness: FairnessState;
  heads: Map<string, HeadScan>;
  asOf: number;
}

export function createOverlay(state: ReplayState, pool: string, asOf: number): RefOverlay {
  return { pool, claimed: new Set(), logical: 0, byKey: new Map(), native: 0, fairness: forkPool(state.fairness, pool), heads: new Map(), asOf };
}

export function bucketId(priority: number, key: string): string {
  return `${priority}\u0000${key}`;
}

export function admitToOverlay(overlay: RefOverlay, work: WorkRecord, transition: ClockTransition, opensGroup: boolean): void {
  overlay.claimed.add(work.workId);
  overlay.logical++;
  overlay.byKey.set(work.fairnessKey, (overlay.byKey.get(work.fairnessKey) ?? 0) + 1);
  if (opensGroup) overlay.native++;
  referenceApplyTransition(overlay.fairness, transition);
  overlay.heads.delete(bucketId(work.effectivePriority, work.fairnessKey));
}

export function extra(overlay: RefOverlay | undefined, pool: string): RefOverlay | undefined {
  return overlay !== undefined && overlay.pool === pool ? overlay : undefined;
}

export function logicalOutstanding(state: ReplayState, pool: string, overlay?: RefOverlay): number {
  return (state.outstandingClaims.get(pool) ?? 0) + (extra(overlay, pool)?.logical ?? 0);
}

export function accountOutstanding(state: ReplayState, pool: string, key: string, overlay?: RefOverlay): number {
  return (state.outstandingByKey.get(`${pool}\u0000${key}`) ?? 0) + (extra(overlay, pool)?.byKey.get(key) ?? 0);
}

export function nativeOutstanding(state: ReplayState, pool: string, overlay?: RefOverlay): number {
  return (state.outstandingNative.get(pool) ?? 0) + (extra(overlay, pool)?.native ?? 0);
}
