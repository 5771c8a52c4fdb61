/**
 * Closing a dispatch group (spec 7.8 recovery table, 7.18): with exact worker-terminal or
 * definitive nonlaunch/prelaunch evidence, cancel only the still-open Claims (completed
 * members keep their facts) and release the shared native reservation once. A Claim whose
 * Work used its last attempt is cancelled together with its Work (spec 7.4: no
 * immediately retryable poison head), in a `cancel_work` request before the release: its
 * WorkCancellation, fenced with the Claim id, closes the Claim, so the Release that follows
 * does not cancel it again.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { ClaimRecord, ReplayState, WorkRecord } from '../state/state.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import { dispatchGroup } from './dispatch.ts';
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
 * `cancel_work` for members whose Work has no attempt left: an open effective Claim's Work is
 * cancelled with the Claim as its ownership fence (which closes the Claim); a Work already
 * returned to available by an earlier cancellation of this group's Claim is cancelled
 * terminally. Null when none applies.
 */
export function exhaustionRequest(source: QueueSource, dispatchId: string): BuiltRequest | null {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const retry = retryPolicy(state, group.pool);
  const ops: JsonObject[] = [];
  for (const m of members(state, group.claimIds)) {
    if (m.work.attempts < retry.max_attempts) continue;
    if (effective(m)) {
      // The fenced WorkCancellation closes the Claim and its logical slot too (spec 7.14).
      ops.push({ kind: 'WorkCancellation', work_id: m.work.workId, reason: 'attempts_exhausted', claim_id: m.claim.claimId });
    } else if (m.claim.state === 'cancelled' && m.work.state === 'available' && m.work.claims.at(-1) === m.claim.claimId) {
      ops.push({ kind: 'WorkCancellation', work_id: m.work.workId, reason: 'attempts_exhausted' });
    }
  }
  return ops.length === 0 ? null : operationsRequest('cancel_work', ops);
}

/**
 * `release`: ClaimCancellation of every still-open member, then the one Release with
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
    // A Claim closed by its Work's cancellation (spec 7.14) is not cancelled again.
    if (m.claim.state === 'open') ops.push(cancellation(m, why, at, retry.backoff_ms));
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
 * (A Work cancellation already closes its Claim: such a Claim is not open any more.)
 */
export function cancelClaims(source: QueueSource, claimIds: readonly string[], why: string, at: number): BuiltRequest {
  const state = stateOf(source);
  if (claimIds.length === 0) fail('targets_missing', 'name at least one Claim');
  const ops = claimIds.map((id) => {
    const claim = state.claims.get(id);
    if (claim === undefined) fail('unknown_claim', `Claim ${id} does not exist`);
    if (claim.state !== 'open') fail('claim_terminal', `Claim ${id} is already ${claim.state}`);
    const group = state.dispatches.get(claim.dispatchId)!;
    return cancellation({ claim, work: state.works.get(claim.workId)! }, why, at, retryPolicy(state, group.pool).backoff_ms);
  });
  return operationsRequest('cancel_claim', ops);
}
