/**
 * The per-Claim effect gate (spec 7.14 "Individual finalization and
 * effects", 7.15 delivery barriers). A correct handle only ASSOCIATES a
 * message with a Claim; it authorizes effects (and fresh worker queue
 * controls) only when, on the authoritative projection:
 *
 * - the Claim belongs to this dispatch under this handle (its own scope);
 * - the dispatch is durably bound to the actual run, original attempt 1;
 * - THIS Claim has a verified Completion and still owns its Work;
 * - its Work's delivery barrier is still pending (a Result or
 *   DeliveryFailure closes fresh authority).
 *
 * A sibling's Completion never lends authority: every check is on the named
 * Claim only.
 */
import { fail } from '../errors.ts';
import type { Projection } from '../replay/index.ts';
import type { ClaimScope } from './scope.ts';

/** The native run of the worker as established by trusted activation. */
export interface NativeRun {
  run_id: string;
  run_attempt: number;
}

export interface EffectAuthorization {
  dispatch_id: string;
  claim_handle: string;
  claim_id: string;
  work_id: string;
  run_id: string;
  completion_commit: string;
}

/** The durable run binding of a dispatch, checked against the worker's actual run. */
export function requireRunBinding(projection: Projection, dispatchId: string, run: NativeRun | null): { run_id: string } {
  const group = projection.dispatch(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const bound = group.run as { run_id?: string } | null;
  if (group.state !== 'bound' || bound?.run_id === undefined) {
    fail('run_binding_missing', `dispatch ${dispatchId} has no durable run binding (${group.state}); worker authority needs one`);
  }
  // Operator reference: "Assignment input alone does not authorize effects"; spec 7.14: execution
  // rechecks the actual run/attempt binding. Without the worker's own run there is nothing to recheck.
  if (run === null) {
    fail('run_context_missing', `the worker's native run is unknown (snapshot --run-id/--run-attempt, e.g. $GITHUB_RUN_ID and $GITHUB_RUN_ATTEMPT): the assignment alone does not authorize dispatch ${dispatchId}'s effects`);
  }
  if (run.run_id !== bound.run_id) fail('run_binding_conflict', `the worker runs as ${run.run_id}, but dispatch ${dispatchId} is bound to run ${bound.run_id}`);
  if (run.run_attempt !== 1) fail('run_attempt_invalid', `run attempt ${run.run_attempt} cannot inherit the original attempt's authority`);
  if (group.released) fail('dispatch_released', `dispatch ${dispatchId} was already released`);
  return { run_id: bound.run_id };
}

export function authorizeClaimEffect(projection: Projection, scope: ClaimScope, run: NativeRun | null): EffectAuthorization {
  const claim = projection.claim(scope.claim_id);
  if (claim === undefined || claim.dispatchId !== scope.dispatch_id || claim.handle !== scope.claim_handle || claim.workId !== scope.work_id) {
    fail('claim_scope_invalid', `${scope.dispatch_id}/${scope.claim_handle} does not name Claim ${scope.claim_id}`);
  }
  const { run_id } = requireRunBinding(projection, scope.dispatch_id, run);
  const work = projection.work(claim.workId)!;
  if (claim.state !== 'completed' || work.currentClaim !== claim.claimId || work.completionCommit === null) {
    fail('claim_not_completed', `Claim ${scope.claim_handle} is ${claim.state}: only a verified Completion of this Claim authorizes its effects`, {}, { state: claim.state });
  }
  if (work.barrier !== 'pending') {
    fail('delivery_barrier_closed', `Work ${work.workId} delivery is ${work.barrier}: its Result closed fresh effects and controls`, {}, { barrier: work.barrier });
  }
  return {
    dispatch_id: scope.dispatch_id,
    claim_handle: scope.claim_handle,
    claim_id: scope.claim_id,
    work_id: scope.work_id,
    run_id,
    completion_commit: work.completionCommit,
  };
}
