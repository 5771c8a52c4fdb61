/**
 * The `finish` request (contract `request_parameters.finish`): exactly one
 * Completion or ClaimCancellation for the Claim named by
 * {dispatch_id, claim_handle}, plus a WorkCancellation only when that
 * cancellation exhausts the pool's retry attempts (spec 7.4).
 */
import { fail } from '../errors.ts';
import type { CommitContext } from './context.ts';
import { poolPolicy } from './ops/policy.ts';
import type { ClaimRecord, DispatchRecord, ReplayState } from '../state/state.ts';

/** The group's first member Claim with this handle (every finish and worker commit names one). */
export function memberByHandle(state: ReplayState, group: DispatchRecord, handle: string | undefined): ClaimRecord | undefined {
  for (const id of group.claimIds) {
    const claim = state.claims.get(id)!;
    if (claim.handle === handle) return claim;
  }
  return undefined;
}

export function verifyFinish(ctx: CommitContext): void {
  const { commit, state } = ctx;
  const at = { commit: commit.id, line: ctx.line };
  const params = commit.request.parameters as { dispatch_id: string; claim_handle: string; outcome: 'completed' | 'cancelled' };
  const group = state.dispatches.get(params.dispatch_id);
  if (group === undefined) fail('unknown_dispatch', `finish names unknown dispatch ${params.dispatch_id}`, at);
  const claim = memberByHandle(state, group, params.claim_handle);
  if (claim === undefined) fail('claim_scope_invalid', `dispatch ${params.dispatch_id} has no member ${params.claim_handle}`, at);
  const ops = commit.operations;
  const first = ops[0]!;
  if (params.outcome === 'completed') {
    if (ops.length !== 1 || first.kind !== 'Completion' || first.claim_id !== claim.claimId) {
      fail('parameters_mismatch', 'a completed finish persists exactly one Completion of the named Claim', at);
    }
    return;
  }
  if (first.kind !== 'ClaimCancellation' || first.claim_id !== claim.claimId) {
    fail('parameters_mismatch', 'a cancelled finish persists a ClaimCancellation of the named Claim first', at);
  }
  const work = state.works.get(claim.workId)!;
  const retry = poolPolicy(ctx, group.pool).retry;
  if (first.retry_not_before !== undefined && first.retry_not_before !== commit.at + retry.backoff_ms) {
    fail('retry_invalid', `retry_not_before must be the decision time plus ${retry.backoff_ms} ms`, at);
  }
  const exhausted = work.attempts >= retry.max_attempts && work.currentClaim === claim.claimId && work.state === 'claimed';
  const second = ops[1];
  if (exhausted) {
    if (ops.length !== 2 || second?.kind !== 'WorkCancellation' || second.work_id !== work.workId) {
      fail('retry_exhausted', `Work ${work.workId} used its ${retry.max_attempts} attempts: the finish must also cancel it`, at);
    }
  } else if (ops.length !== 1) {
    fail('parameters_mismatch', 'a cancelled finish with attempts left persists exactly one ClaimCancellation', at);
  }
}
