/**
 * Delivery barriers of completed Work (spec 7.15): Result and DeliveryFailure
 * are mutually exclusive, terminal decisions on a pending barrier.
 */
import { canonicalSize } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { recordResult } from '../../state/ready-index.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { bump, touch } from '../../state/mutate.ts';
import type { WorkRecord } from '../../state/state.ts';
import { checkDeliveryEvidence, checkExactTerminal } from './evidence.ts';
import { currentPolicy, poolPolicy } from './policy.ts';

function pendingBarrier(ctx: CommitContext, workId: string, claimId: string, completionId: string): WorkRecord {
  const at = where(ctx);
  const work = ctx.state.works.get(workId);
  if (work === undefined) fail('unknown_work', `Work ${workId} is not admitted`, at);
  if (work.state !== 'completed') fail('work_not_completed', `Work ${workId} is ${work.state}; only completed Work has a delivery barrier`, at);
  if (work.barrier !== 'pending') fail('barrier_settled', `Work ${workId}'s delivery barrier is already ${work.barrier}`, at);
  if (work.currentClaim !== claimId) fail('claim_scope_invalid', `Claim ${claimId} did not complete Work ${workId}`, at);
  if (work.completionCommit !== completionId) fail('completion_mismatch', `completion_id ${completionId} is not the Completion commit ${work.completionCommit}`, at);
  return work;
}


export function applyResult(ctx: CommitContext, op: OperationOf<'Result'>): void {
  const work = pendingBarrier(ctx, op.work_id, op.claim_id, op.completion_id);
  const limit = currentPolicy(ctx).limits.result_bytes ?? 4096;
  // Measured here unless the record's largest descriptor, measured where the record was checked (measures.ts), fits.
  if ((ctx.measures?.descriptorBytes ?? Infinity) > limit) {
    const bytes = canonicalSize(op.descriptor as unknown as JsonObject);
    if (bytes > limit) fail('resource_limit', `Result descriptor is ${bytes} bytes; the limit is ${limit}`, where(ctx), { limit: 'result_bytes', max: limit });
  }
  const claim = ctx.state.claims.get(work.currentClaim!)!;
  checkDeliveryEvidence(ctx, ctx.state.dispatches.get(claim.dispatchId)!, op.evidence, `Result of Work ${op.work_id}`);
  work.barrier = 'verified';
  work.resultCommit = ctx.commit.id;
  recordResult(ctx.state.ready, work.workId, ctx.commit.id, op.descriptor as unknown as JsonObject);
  bump(ctx.state.pendingByPool, work.pool, -1);
  touch(work, ctx.commit.id);
}

/** Contract `delivery_verification`: exhaustion by attempts or deadline, disposition = evidence.effects. */
export function deliveryFailureVerdict(input: {
  at: number; completionAt: number; maxAttempts: number; deadlineMs: number;
  attempts?: number; effects?: string; disposition: string; receipt?: string;
}): 'allowed' | 'reconciliation_pending' | 'evidence_invalid' {
  const effects = input.effects ?? 'unknown';
  if (input.disposition !== effects) return 'evidence_invalid';
  if (input.disposition === 'none' && input.receipt === undefined) return 'evidence_invalid';
  const exhausted = (input.attempts ?? 0) >= input.maxAttempts || input.at - input.completionAt >= input.deadlineMs;
  return exhausted ? 'allowed' : 'reconciliation_pending';
}

export function applyDeliveryFailure(ctx: CommitContext, op: OperationOf<'DeliveryFailure'>): void {
  const at = where(ctx);
  const work = pendingBarrier(ctx, op.work_id, op.claim_id, op.completion_id);
  const evidence = op.evidence;
  // Contract `delivery_verification.required_proof`: exact original run/attempt terminal evidence.
  const claim = ctx.state.claims.get(op.claim_id)!;
  checkExactTerminal(ctx, ctx.state.dispatches.get(claim.dispatchId)!, evidence, `DeliveryFailure of Work ${op.work_id}`);
  const reconciliation = poolPolicy(ctx, work.pool).reconciliation;
  const verdict = deliveryFailureVerdict({
    at: ctx.commit.at,
    completionAt: work.completionAt!,
    maxAttempts: reconciliation.max_attempts,
    deadlineMs: reconciliation.deadline_ms,
    attempts: evidence.attempts,
    effects: evidence.effects,
    disposition: op.disposition,
    receipt: evidence.receipt,
  });
  if (verdict !== 'allowed') fail(verdict, `DeliveryFailure for ${op.work_id} is not admissible: ${verdict}`, at);
  work.barrier = 'failed';
  work.deliveryFailureCommit = ctx.commit.id;
  bump(ctx.state.pendingByPool, work.pool, -1);
  touch(work, ctx.commit.id);
}
