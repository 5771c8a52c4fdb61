/**
 * Facts about a Work that the read views share (state rows, the JSON projection): its
 * readiness and reason (the engine's one readiness function, in the CLI's documented
 * vocabulary), its current owner, and commit times.
 */
import type { Projection, WorkRecord } from '../engine/replay/index.ts';
import type { BlockingStep } from '../engine/scheduler/eligibility.ts';
import { workReadiness as readinessOf } from '../engine/scheduler/readiness.ts';

/** Readiness of a Work: eligible now, waiting (reason says why), running under a Claim, or terminal. */
export type Readiness = 'ready' | 'waiting' | 'running' | 'terminal';

export interface WorkReadiness {
  readiness: Readiness;
  /** Why it is not ready (an eligibility code), or its terminal/cancellation reason; null when ready or running. */
  reason: string | null;
  blocking_path: BlockingStep[];
}

/** `engine/scheduler/readiness.ts` in the CLI's words (docs/projection-json.md). */
export function workReadiness(p: Projection, w: WorkRecord, asOf: number): WorkReadiness {
  const r = readinessOf(p, w, asOf);
  switch (r.readiness) {
    case 'ready': return { readiness: 'ready', reason: null, blocking_path: [] };
    case 'waiting': return { readiness: 'waiting', reason: r.reason, blocking_path: r.blockingPath };
    case 'running': return { readiness: 'running', reason: null, blocking_path: [] };
    case 'cancelled': return { readiness: 'terminal', reason: w.cancellationReason ?? 'cancelled', blocking_path: [] };
    default: return { readiness: 'terminal', reason: 'completed', blocking_path: [] };
  }
}

/** `at` (Unix ms) of a commit of the ledger (retained, or compacted into its checkpoint), or null: the engine's `commitTime`. */
export { commitTime as commitAt } from '../engine/receipts/committed.ts';

/** The current owner of a Work: its open Claim, that Claim's dispatch group and the bound run. */
export function ownerOf(p: Projection, w: WorkRecord): { claim_id: string; dispatch_id: string; handle: string; run_id: string | null } | null {
  if (w.currentClaim === null) return null;
  const c = p.claim(w.currentClaim);
  if (c === undefined) return null;
  const g = p.dispatch(c.dispatchId);
  const run = g?.run as { run_id?: unknown } | null | undefined;
  return { claim_id: c.claimId, dispatch_id: c.dispatchId, handle: c.handle, run_id: run?.run_id === undefined ? null : String(run.run_id) };
}
