/**
 * Closing a dispatch group (spec 7.8 recovery table, 7.18): with exact worker-terminal or
 * definitive nonlaunch/prelaunch evidence, cancel only the still-open Claims (completed
 * members keep their facts) and release the shared native reservation once. A Claim whose
 * Work used its last attempt is cancelled together with its Work (spec 7.4: no
 * immediately retryable poison head). All of it is one `release` request (spec 7.8: "commit
 * definitive prelaunch cancellation and cancel still-open Claims/release atomically"): the
 * exhausted member's WorkCancellation, fenced with its Claim id, closes that Claim, the
 * other open members get a ClaimCancellation with trusted backoff, and the Release follows.
 * No start marker can land between the steps of one commit.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { ClaimRecord, ReplayState, WorkRecord } from '../state/state.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import { dispatchGroup } from './dispatch.ts';
import { ATTEMPTS_EXHAUSTED } from '../replay/ops/dispatch.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { configuredPool, policyOrNull } from '../scheduler/policy-view.ts';

interface Member {
  claim: ClaimRecord;
  work: WorkRecord;
}

function retryPolicy(state: ReplayState, pool: string): { max_attempts: number; backoff_ms: number } {
  return configuredPool(policyOrNull(state), pool).retry;
}

function members(state: ReplayState, claimIds: readonly string[]): Member[] {
  return claimIds.map((id) => {
    const claim = state.claims.get(id)!;
    return { claim, work: state.works.get(claim.workId)! };
  });
}

/** Open and still effective (its Work is claimed by it). */
function effective(m: Member): boolean {
  return m.claim.state === 'open' && m.work.state === 'claimed' && m.work.currentClaim === m.claim.claimId;
}

/**
 * ClaimCancellation: the retry boundary is anchored at the decision time plus the pool's
 * backoff, the same rule replay enforces for a worker's own cancelled finish (finish.ts).
 */
function cancellation(m: Member, why: string, at: number, backoffMs: number): JsonObject {
  return { kind: 'ClaimCancellation', work_id: m.work.workId, claim_id: m.claim.claimId, reason: why, retry_not_before: at + backoffMs };
}

/**
 * The attempt-exhaustion WorkCancellation of member `m`, or null: an open effective Claim's Work
 * with no attempt left is cancelled with the Claim as its ownership fence (which closes the Claim
 * and its logical slot, spec 7.14); a Work already returned to available by an earlier
 * cancellation of this group's Claim, with no attempt left, is cancelled terminally.
 */
function exhaustion(m: Member, maxAttempts: number): JsonObject | null {
  if (m.work.attempts < maxAttempts) return null;
  if (effective(m)) return { kind: 'WorkCancellation', work_id: m.work.workId, reason: ATTEMPTS_EXHAUSTED, claim_id: m.claim.claimId };
  if (m.claim.state === 'cancelled' && m.work.state === 'available' && m.work.claims.at(-1) === m.claim.claimId) {
    return { kind: 'WorkCancellation', work_id: m.work.workId, reason: ATTEMPTS_EXHAUSTED };
  }
  return null;
}

/**
 * `cancel_work` finishing the exhaustion step of a group released without it (a ledger whose
 * close was interrupted between its former two commits): the terminal WorkCancellation of every
 * member Work left available with no attempt. Only for a released group, whose Claims are all
 * closed: an unreleased group's exhaustion rides in its `release` (`releaseRequest`). Null when
 * none applies.
 */
export function exhaustionRequest(source: QueueSource, dispatchId: string): BuiltRequest | null {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (!group.released) fail('release_pending', `dispatch ${dispatchId} is not released: its attempt exhaustion rides in its release`);
  const retry = retryPolicy(state, group.pool);
  const ops = members(state, group.claimIds).map((m) => exhaustion(m, retry.max_attempts)).filter((op) => op !== null);
  return ops.length === 0 ? null : operationsRequest('cancel_work', ops);
}

/**
 * `release`, one commit: per member, the attempt-exhaustion WorkCancellation when its Work has no
 * attempt left, else a ClaimCancellation of a still-open Claim; then the one Release with
 * `evidence`. Fails when the group was already released (`already_released`).
 */
export function releaseRequest(source: QueueSource, dispatchId: string, evidence: JsonObject, why: string, at: number): BuiltRequest {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (group.released) fail('already_released', `dispatch ${dispatchId} was already released`);
  const retry = retryPolicy(state, group.pool);
  const ops: JsonObject[] = [];
  for (const m of members(state, group.claimIds)) {
    const exhausted = exhaustion(m, retry.max_attempts);
    if (exhausted !== null) ops.push(exhausted);
    // A Claim closed by its Work's cancellation (spec 7.14) is not cancelled again.
    else if (m.claim.state === 'open') ops.push(cancellation(m, why, at, retry.backoff_ms));
  }
  ops.push({ kind: 'Release', dispatch_id: dispatchId, evidence });
  return operationsRequest('release', ops);
}

/** Prelaunch cancellation is valid only while no start marker exists (spec 7.8). */
export function checkPrelaunch(source: QueueSource, dispatchId: string): void {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (group.state !== 'reserved') fail('launch_already_started', `dispatch ${dispatchId} is ${group.state}: prelaunch cancellation needs an unstarted group`);
}

/**
 * Reconciler `cancel_claim`: close exact open Claims (with trusted retry backoff) without
 * touching the group's native reservation, which only a Release with exact evidence frees.
 * (A Work cancellation already closes its Claim: such a Claim is not open any more.) A Claim
 * whose Work used its last attempt is followed by that Work's WorkCancellation in the same
 * commit (spec 7.4, replay's `retry_exhausted`), as a worker's own cancelled finish is.
 */
export function cancelClaims(source: QueueSource, claimIds: readonly string[], why: string, at: number): BuiltRequest {
  const state = stateOf(source);
  if (claimIds.length === 0) fail('targets_missing', 'name at least one Claim');
  const ops = claimIds.flatMap((id) => {
    const claim = state.claims.get(id);
    if (claim === undefined) fail('unknown_claim', `Claim ${id} does not exist`);
    if (claim.state !== 'open') fail('claim_terminal', `Claim ${id} is already ${claim.state}`);
    const group = state.dispatches.get(claim.dispatchId)!;
    const m = { claim, work: state.works.get(claim.workId)! };
    const retry = retryPolicy(state, group.pool);
    const cancelled = cancellation(m, why, at, retry.backoff_ms);
    return effective(m) && m.work.attempts >= retry.max_attempts
      ? [cancelled, { kind: 'WorkCancellation', work_id: m.work.workId, reason: ATTEMPTS_EXHAUSTED }]
      : [cancelled];
  });
  return operationsRequest('cancel_claim', ops);
}
