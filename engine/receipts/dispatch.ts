/**
 * The minimal durable-to-human receipt of a dispatch_next request (spec 7.13),
 * derived from the ledger alone: what was requested and granted, why the
 * prefix stopped, and the current launch state of each group.
 */
import { fail } from '../errors.ts';
import { parseQueueCommit } from '../schema/index.ts';
import type { Projection } from '../replay/index.ts';
import type { JsonObject } from '../json.ts';
import { assignment, assignmentMember } from '../scheduler/assignment.ts';
import { pack, type PackResult } from '../scheduler/pack.ts';
import { committedRequest, historyCompacted } from './committed.ts';
import { packAfterObservations } from '../replay/observed-pack.ts';
import { replayPrefix } from '../replay/projection.ts';

export interface DispatchReceipt {
  request_id: string;
  source_commit: string | null;
  commit_id: string;
  policy_epoch: string;
  pool: string;
  requested_claims: number;
  granted_claims: number;
  requested_dispatches: number;
  reserved_dispatches: number;
  status: string;
  grant_status: 'granted' | 'partial_batch';
  /** The packer's stop reason, or `history_compacted` when only a checkpoint receipt remains. */
  limiting_reason: string;
  observed_tip: string | null;
  claims: Array<{ claim_id: string; work_id: string; dispatch_id: string; handle: string; finish: string }>;
  dispatches: Array<{ dispatch_id: string; claim_ids: string[]; status: string; run_id: string | null; released: boolean }>;
}

/**
 * Re-runs the packer on the commit's predecessor prefix (the committed Claims' own explanation).
 * A grant that a checkpoint replaced has no retained pre-state here: `history_compacted`.
 */
export function grantPlan(projection: Projection, requestId: string): PackResult {
  const request = projection.request(requestId);
  if (request === undefined || request.kind !== 'dispatch_next') fail('unknown_request', `no committed dispatch_next request ${requestId}`);
  const text = projection.commitText(request.commitId);
  if (text === undefined) return historyCompacted(projection, request.commitId, `the selection of grant ${requestId}`);
  const commit = parseQueueCommit(JSON.parse(text));
  const params = commit.request.parameters as { pool: string; max_claims: number; max_dispatches: number; max_bytes: number };
  const packed = { requestId, commitId: request.commitId, ...params };
  const firstClaim = commit.operations.findIndex((op) => op.kind === 'Claim');
  if (firstClaim <= 0) return pack(projection.before(request.commitId).state, packed, commit.at);
  // The commit's leading Observations are part of the verified pre-state of its Claims: applied to
  // a fresh replay of the predecessor prefix (never to the cached `before`).
  const scratch = replayPrefix(projection, projection.commitPosition(request.commitId)!).state;
  return packAfterObservations(scratch, commit, commit.operations.slice(0, firstClaim) as unknown as JsonObject[], packed);
}

function launchStatus(state: string, released: boolean): string {
  if (released) return 'released';
  if (state === 'uncertain') return 'launch_uncertain';
  if (state === 'unresolved') return 'launch_unresolved';
  return state;
}

/**
 * The receipt of a committed grant. `plan` is its packer run (grantPlan) when the caller has it,
 * e.g. from the pre-compaction history; without it a compacted grant's stop reason is
 * `history_compacted` (the receipt's other fields come from the checkpoint receipt).
 */
export function dispatchReceipt(projection: Projection, requestId: string, plan?: PackResult): DispatchReceipt {
  const request = projection.request(requestId);
  const commit = committedRequest(projection, requestId);
  if (request === undefined || commit === undefined || request.kind !== 'dispatch_next') fail('unknown_request', `no committed dispatch_next request ${requestId}`);
  const params = commit.parameters as { pool: string; max_claims: number; max_dispatches: number };
  const stop = plan?.stopReason ?? (commit.compacted ? 'history_compacted' : grantPlan(projection, requestId).stopReason);
  const claims = request.claimIds.map((id) => projection.claim(id)!);
  const groupIds = [...new Set(claims.map((c) => c.dispatchId))];
  const dispatches = groupIds.map((id) => {
    const g = projection.dispatch(id)!;
    return {
      dispatch_id: id,
      claim_ids: g.claimIds,
      status: launchStatus(g.state, g.released),
      run_id: (g.run as { run_id?: string } | null)?.run_id ?? null,
      released: g.released,
    };
  });
  const finished = claims.every((c) => c.state !== 'open');
  const cancelled = claims.filter((c) => c.state === 'cancelled').length;
  let status: string;
  if (dispatches.some((d) => d.status === 'launch_uncertain')) status = 'launch_uncertain';
  else if (dispatches.some((d) => d.status === 'launch_unresolved')) status = 'launch_unresolved';
  else if (finished) status = cancelled === 0 ? 'completed' : cancelled === claims.length ? 'cancelled' : 'completed_with_cancellations';
  else if (dispatches.every((d) => d.status === 'reserved')) status = 'reserved';
  else status = 'in_progress';
  return {
    request_id: requestId,
    source_commit: commit.previous,
    commit_id: commit.commitId,
    policy_epoch: commit.policyEpoch,
    pool: params.pool,
    requested_claims: params.max_claims,
    granted_claims: claims.length,
    requested_dispatches: params.max_dispatches,
    reserved_dispatches: groupIds.length,
    status,
    grant_status: claims.length < params.max_claims ? 'partial_batch' : 'granted',
    limiting_reason: stop,
    observed_tip: projection.tip,
    claims: claims.map((c) => ({ claim_id: c.claimId, work_id: c.workId, dispatch_id: c.dispatchId, handle: c.handle, finish: c.state })),
    dispatches,
  };
}

/** The receipt of a dispatch_next that granted nothing and wrote nothing (spec 7.7 "a no-grant evaluation"). */
export interface NoGrantReceipt {
  request_id: string;
  /** The tip the packer evaluated. */
  source_commit: string | null;
  commit_id: null;
  policy_epoch: string | null;
  requested_claims: number;
  granted_claims: 0;
  requested_dispatches: number;
  reserved_dispatches: 0;
  status: 'no_grant';
  grant_status: 'no_grant';
  /** Why the prefix stopped before its first Claim (the packer's stop reason). */
  limiting_reason: string;
  claims: [];
  dispatches: [];
  /** The packer's explanation of the candidate it could not grant. */
  explanation: unknown;
}

/** The no-grant receipt of `requestId`: `plan` is the packer run on `projection` that granted nothing. */
export function noGrantReceipt(projection: Projection, requestId: string, requested: { max_claims: number; max_dispatches: number }, plan: PackResult): NoGrantReceipt {
  return {
    request_id: requestId,
    source_commit: projection.tip,
    commit_id: null,
    policy_epoch: projection.policyEpoch,
    requested_claims: requested.max_claims,
    granted_claims: 0,
    requested_dispatches: requested.max_dispatches,
    reserved_dispatches: 0,
    status: 'no_grant',
    grant_status: 'no_grant',
    limiting_reason: plan.stopReason,
    claims: [],
    dispatches: [],
    explanation: plan.next.explanation,
  };
}

/**
 * The immutable worker assignment of dispatch group `dispatchId` (spec 7.14), exactly as the
 * packer built it at grant time. While the grant commit is retained, the packer is re-run on
 * its pre-state. A grant that a checkpoint replaced is rebuilt from the checkpoint's dispatch
 * record (provenance plus one member per Claim, as in fixtures/checkpoint.json `dispatches`),
 * whose members restoration verified against the restored Work and Results.
 */
export function dispatchAssignment(projection: Projection, dispatchId: string): JsonObject {
  const group = projection.dispatch(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (projection.commitText(group.commitId) !== undefined) {
    const found = grantPlan(projection, group.requestId).groups.find((g) => g.dispatch_id === dispatchId);
    if (found === undefined) fail('assignment_invalid', `the grant of ${dispatchId} does not reproduce its group`);
    return found.assignment;
  }
  const members = group.claimIds.map((id) => {
    const claim = projection.claim(id)!;
    return assignmentMember(projection.state, projection.work(claim.workId)!, id, claim.handle);
  });
  return assignment({
    dispatch_id: group.dispatchId, request_id: group.requestId, commit_id: group.commitId,
    policy_epoch: group.policyEpoch, pool: group.pool, worker_profile: group.workerProfile,
  }, members);
}
