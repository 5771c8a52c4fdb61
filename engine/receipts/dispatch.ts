/**
 * The minimal durable-to-human receipt of a dispatch_next request (spec 7.13),
 * derived from the ledger alone: what was requested and granted, why the
 * prefix stopped, and the current launch state of each group.
 */
import { fail } from '../errors.ts';
import { parseQueueCommit, type QueueCommit } from '../schema/index.ts';
import type { Projection } from '../replay/index.ts';
import { pack, type PackResult } from '../scheduler/pack.ts';
import { projectionAt } from './prefix.ts';
import type { OperationOf } from '../replay/context.ts';
import { applyObservation } from '../replay/ops/observation.ts';

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
  limiting_reason: string;
  observed_tip: string | null;
  claims: Array<{ claim_id: string; work_id: string; dispatch_id: string; handle: string; finish: string }>;
  dispatches: Array<{ dispatch_id: string; claim_ids: string[]; status: string; run_id: string | null; released: boolean }>;
}

/**
 * The grant's commit record. A grant older than the ledger's checkpoint root was compacted
 * away: its record (and its decision state) is only in the pre-compaction ledger at the
 * checkpoint's `prior_git_sha`, which this projection does not hold (spec 7.10 "compact").
 */
function grantCommit(projection: Projection, requestId: string, commitId: string): QueueCommit {
  const text = projection.commitText(commitId);
  if (text === undefined) {
    const prior = projection.state.checkpoint?.priorGitSha ?? null;
    fail('grant_compacted', `the grant of request ${requestId} (commit ${commitId}) was compacted into the checkpoint root; its record and decision state are in the ledger at Git commit ${prior ?? '(unknown)'}`, { commit: commitId }, { prior_git_sha: prior });
  }
  return parseQueueCommit(JSON.parse(text));
}

/** Re-runs the packer on the commit's predecessor prefix (the committed Claims' own explanation). */
export function grantPlan(projection: Projection, requestId: string): PackResult {
  const request = projection.request(requestId);
  if (request === undefined || request.kind !== 'dispatch_next') fail('unknown_request', `no committed dispatch_next request ${requestId}`);
  const commit = grantCommit(projection, requestId, request.commitId);
  const before = projectionAt(projection, request.commitId, false);
  const params = commit.request.parameters as { pool: string; max_claims: number; max_dispatches: number; max_bytes: number };
  const firstClaim = commit.operations.findIndex((op) => op.kind === 'Claim');
  // The commit's leading Observations are part of the verified pre-state of its Claims.
  const ctx = { state: before.state, commit, ordinal: (before.state.checkpoint?.ordinal ?? 0) + before.state.commits.length, index: 0 };
  for (let i = 0; i < firstClaim; i++) {
    ctx.index = i;
    applyObservation(ctx, commit.operations[i] as OperationOf<'Observation'>);
  }
  return pack(before.state, { requestId, commitId: request.commitId, ...params, precedingOperations: firstClaim }, commit.at);
}

function launchStatus(state: string, released: boolean): string {
  if (released) return 'released';
  if (state === 'uncertain') return 'launch_uncertain';
  if (state === 'unresolved') return 'launch_unresolved';
  return state;
}

export function dispatchReceipt(projection: Projection, requestId: string, plan?: PackResult): DispatchReceipt {
  const request = projection.request(requestId);
  if (request === undefined || request.kind !== 'dispatch_next') fail('unknown_request', `no committed dispatch_next request ${requestId}`);
  const commit = grantCommit(projection, requestId, request.commitId);
  const params = commit.request.parameters as { pool: string; max_claims: number; max_dispatches: number };
  const stop = (plan ?? grantPlan(projection, requestId)).stopReason;
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
    commit_id: commit.id,
    policy_epoch: commit.policy_epoch,
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
