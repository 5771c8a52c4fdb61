/**
 * Exact repeats of terminal operations in a later commit.
 *
 * The spec makes exact duplicate COMMIT records idempotent (7.6: "Exact duplicate commit
 * records are idempotent"), Result/DeliveryFailure "individually idempotent" (7.15) and a
 * repeated finish outcome idempotent ("Repeating the same outcome is idempotent; conflicting
 * outcomes fail explicitly", 7.14). It says nothing about a WorkCancellation,
 * ClaimCancellation or Observation repeated inside a NEW commit, so replay follows the
 * reference: an exact repeat is an accepted no-op (it changes no state and charges nothing),
 * a changed cancellation of an already cancelled Work/Claim is `cancellation_conflict`, and
 * a changed Observation reusing an observation id stays `duplicate_observation`.
 */
import { canonicalize } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import type { ClaimRecord, WorkRecord } from '../../state/state.ts';

/** True when `op` exactly repeats the WorkCancellation that cancelled `work`. */
export function repeatsWorkCancellation(ctx: CommitContext, work: WorkRecord, op: OperationOf<'WorkCancellation'>): boolean {
  if (work.state !== 'cancelled' || work.cancellationCommit === null) return false;
  if (op.reason === work.cancellationReason && op.claim_id === work.cancellationClaim) return true;
  fail('cancellation_conflict', `Work ${work.workId} was already cancelled by commit ${work.cancellationCommit} (reason ${String(work.cancellationReason)}${work.cancellationClaim === undefined ? '' : `, claim ${work.cancellationClaim}`}); this WorkCancellation differs`, where(ctx));
}

/** True when `op` exactly repeats the ClaimCancellation that cancelled `claim`. */
export function repeatsClaimCancellation(ctx: CommitContext, claim: ClaimRecord, op: OperationOf<'ClaimCancellation'>): boolean {
  // A Claim closed by a WorkCancellation has no retry-not-before: a ClaimCancellation never
  // repeats it, and cancelling it again stays `claim_terminal`.
  if (claim.state !== 'cancelled' || claim.retryNotBefore === null) return false;
  if (op.reason === claim.cancelReason && op.retry_not_before === claim.retryNotBefore) return true;
  fail('cancellation_conflict', `Claim ${claim.claimId} was already cancelled (reason ${String(claim.cancelReason)}, retry_not_before ${String(claim.retryNotBefore)}); this ClaimCancellation differs`, where(ctx));
}

/** True when `op` exactly repeats the recorded Observation with the same id. */
export function repeatsObservation(ctx: CommitContext, op: OperationOf<'Observation'>): boolean {
  const prior = ctx.state.observations.get(op.observation_id);
  if (prior === undefined) return false;
  if (canonicalize(prior.operation) === canonicalize(op as unknown as JsonObject)) return true;
  fail('duplicate_observation', `observation ${op.observation_id} already exists (commit ${prior.commitId}) with different content`, where(ctx));
}
