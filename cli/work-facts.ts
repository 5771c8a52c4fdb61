/**
 * Facts about a Work that the read views share (state rows, the JSON projection): its
 * readiness and reason, its current owner, and commit times.
 */
import type { Projection } from '../engine/replay/index.ts';
import type { ReplayState, WorkRecord } from '../engine/replay/state.ts';
import { eligibility, type BlockingStep } from '../engine/scheduler/eligibility.ts';

/** Readiness of a Work: eligible now, waiting (reason says why), running under a Claim, or terminal. */
export type Readiness = 'ready' | 'waiting' | 'running' | 'terminal';

export interface WorkReadiness {
  readiness: Readiness;
  /** Why it is not ready (an eligibility code), or its terminal/cancellation reason; null when ready or running. */
  reason: string | null;
  blocking_path: BlockingStep[];
}

export function workReadiness(state: ReplayState, w: WorkRecord, asOf: number): WorkReadiness {
  if (w.state === 'claimed') return { readiness: 'running', reason: null, blocking_path: [] };
  if (w.state === 'completed') return { readiness: 'terminal', reason: 'completed', blocking_path: [] };
  if (w.state === 'cancelled') return { readiness: 'terminal', reason: w.cancellationReason ?? 'cancelled', blocking_path: [] };
  const v = eligibility(state, w, asOf);
  return v.eligible ? { readiness: 'ready', reason: null, blocking_path: [] } : { readiness: 'waiting', reason: v.reason, blocking_path: v.blockingPath };
}

/** `at` (Unix ms) of a commit of the ledger, or null. */
export function commitAt(state: ReplayState, commitId: string | null): number | null {
  if (commitId === null) return null;
  const i = state.commitIndex.get(commitId);
  return i === undefined ? null : state.commits[i]!.at;
}

/** The current owner of a Work: its open Claim, that Claim's dispatch group and the bound run. */
export function ownerOf(p: Projection, w: WorkRecord): { claim_id: string; dispatch_id: string; handle: string; run_id: string | null } | null {
  if (w.currentClaim === null) return null;
  const c = p.claim(w.currentClaim);
  if (c === undefined) return null;
  const g = p.dispatch(c.dispatchId);
  const run = g?.run as { run_id?: unknown } | null | undefined;
  return { claim_id: c.claimId, dispatch_id: c.dispatchId, handle: c.handle, run_id: run?.run_id === undefined ? null : String(run.run_id) };
}
