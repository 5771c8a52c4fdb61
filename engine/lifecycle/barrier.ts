/**
 * Delivery barrier settlement of one completed Claim (spec 7.15): verified delivery
 * permits a Result (also after native release); otherwise exact worker-terminal evidence
 * plus an exhausted reconciliation budget (contract `delivery_verification`) permits a
 * DeliveryFailure whose disposition equals the evidence's effects. Without terminal
 * evidence, or before exhaustion, the barrier stays pending. Result and DeliveryFailure
 * are mutually exclusive; a settled barrier is reported, never rewritten.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import { deliveryFailureVerdict } from '../replay/ops/barrier.ts';
import type { ClaimRecord, ReplayState, WorkRecord } from '../state/state.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import type { Verification } from './effects.ts';
import { groupEvidence } from './evidence.ts';
import { deliveryFailureRequestId } from './ids.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { configuredPool, policyOrNull } from '../scheduler/policy-view.ts';

export interface TerminalRun {
  runId: string;
  conclusion: string;
}

export interface BarrierInput {
  claimId: string;
  verification: Verification;
  /** The Result descriptor; default: a deterministic summary of the verified receipts. */
  descriptor?: JsonObject;
  /** Exact original-attempt terminal evidence of the bound run, when established. */
  terminal: TerminalRun | null;
  /** Verification attempts made by this reconciler (evidence.attempts). */
  attempts: number;
}

export type BarrierPlan =
  | { kind: 'result'; build: (source: QueueSource, at: number) => BuiltRequest }
  | { kind: 'delivery_failure'; build: (source: QueueSource, at: number) => BuiltRequest }
  | { kind: 'pending'; reason: string }
  | { kind: 'settled'; barrier: 'verified' | 'failed'; commitId: string };

export function completedMember(source: QueueSource, claimId: string): { claim: ClaimRecord; work: WorkRecord } {
  const state = stateOf(source);
  const claim = state.claims.get(claimId);
  if (claim === undefined) fail('unknown_claim', `Claim ${claimId} does not exist`);
  const work = state.works.get(claim.workId)!;
  if (claim.state !== 'completed' || work.currentClaim !== claimId || work.completionCommit === null) {
    fail('claim_not_completed', `Claim ${claimId} is ${claim.state}: only a completed Claim has a delivery barrier`);
  }
  return { claim, work };
}

export function defaultDescriptor(runId: string, verification: Extract<Verification, { verified: true }>): JsonObject {
  return { schema: 'fairway.result/1', run_id: runId, receipt: verification.receipt, outputs: verification.outputs as unknown as JsonObject[] };
}

function boundRun(state: ReplayState, claim: ClaimRecord): string {
  const run = (state.dispatches.get(claim.dispatchId)!.run as { run_id?: string } | null)?.run_id;
  if (run === undefined) fail('run_binding_missing', `dispatch ${claim.dispatchId} has no run binding`);
  return run;
}

export function barrierPlan(source: QueueSource, input: BarrierInput): BarrierPlan {
  const state = stateOf(source);
  const { claim, work } = completedMember(state, input.claimId);
  if (work.barrier === 'verified') return { kind: 'settled', barrier: 'verified', commitId: work.resultCommit! };
  if (work.barrier === 'failed') return { kind: 'settled', barrier: 'failed', commitId: work.deliveryFailureCommit! };
  const runId = boundRun(state, claim);
  const v = input.verification;
  if (v.verified) {
    const descriptor = input.descriptor ?? defaultDescriptor(runId, v);
    return {
      kind: 'result',
      build: (s, at) => {
        const evidence = groupEvidence(s, claim.dispatchId, { kind: 'delivery', source: 'verified_receipts', checkedAt: at, runId, receipt: v.receipt });
        return operationsRequest('result', [{ kind: 'Result', work_id: work.workId, claim_id: claim.claimId, completion_id: work.completionCommit!, descriptor, evidence }]);
      },
    };
  }
  if (input.terminal === null || input.terminal.runId !== runId) return { kind: 'pending', reason: `delivery_unverified:${v.reason}` };
  const terminal = input.terminal;
  return {
    kind: 'delivery_failure',
    build: (s, at) => {
      const budget = configuredPool(policyOrNull(s), work.pool).reconciliation;
      const verdict = deliveryFailureVerdict({
        at, completionAt: work.completionAt!, maxAttempts: budget.max_attempts, deadlineMs: budget.deadline_ms,
        attempts: input.attempts, effects: v.effects, disposition: v.effects, ...(v.receipt === undefined ? {} : { receipt: v.receipt }),
      });
      if (verdict !== 'allowed') fail(verdict, `DeliveryFailure of ${work.workId} is not admissible yet: ${verdict}`);
      const evidence = groupEvidence(s, claim.dispatchId, {
        kind: 'terminal_run', source: 'github_api', checkedAt: at, runId, conclusion: terminal.conclusion, completed: true,
        attempts: input.attempts, effects: v.effects, ...(v.receipt === undefined ? {} : { receipt: v.receipt }),
      });
      return operationsRequest('delivery_failure', [{
        kind: 'DeliveryFailure', work_id: work.workId, claim_id: claim.claimId, completion_id: work.completionCommit!,
        reason: v.reason, disposition: v.effects, evidence,
      }]);
    },
  };
}

/** The settling Result/DeliveryFailure operation of a Work, if any (for "already settled" reports). */
export function settlingOperation(projection: Projection, workId: string): JsonObject | null {
  const work = projection.work(workId);
  if (work === undefined || (work.barrier !== 'verified' && work.barrier !== 'failed')) return null;
  const commitId = work.resultCommit ?? work.deliveryFailureCommit;
  const text = commitId === null ? undefined : projection.commitText(commitId);
  // A settling commit that a checkpoint replaced: the checkpoint keeps its operation (`terminal_barriers`),
  // not a DeliveryFailure's commit id (restore leaves `deliveryFailureCommit` null).
  if (text === undefined) return (projection.checkpoint?.terminalBarriers[workId] as JsonObject | undefined) ?? null;
  const ops = (JSON.parse(text) as { operations: JsonObject[] }).operations;
  return ops.find((op) => (op.kind === 'Result' || op.kind === 'DeliveryFailure') && op.work_id === workId) ?? null;
}

/**
 * The commit of Work `workId`'s DeliveryFailure, or null. After compaction the checkpoint keeps
 * the operation (`terminal_barriers`) but not its commit: Fairway's one DeliveryFailure request of
 * the Claim names it, and a foreign writer's is found only in the ledger that recorded it:
 * `ledgers` are the current ledger (last) and, oldest first before it, the ledgers earlier
 * checkpoints replaced that the caller could read (lib/publisher/history.ts `ledgersBackTo`).
 */
export function deliveryFailureCommitOf(ledgers: readonly Projection[], workId: string): string | null {
  const current = ledgers[ledgers.length - 1]!;
  const work = current.work(workId);
  if (work === undefined || work.barrier !== 'failed') return null;
  if (work.deliveryFailureCommit !== null) return work.deliveryFailureCommit;
  const claimId = settlingOperation(current, workId)?.claim_id;
  const ours = typeof claimId === 'string' ? current.request(deliveryFailureRequestId(claimId))?.commitId : undefined;
  if (ours !== undefined) return ours;
  for (let i = ledgers.length - 2; i >= 0; i--) {
    const recorded = ledgers[i]!.work(workId)?.deliveryFailureCommit;
    if (recorded !== undefined && recorded !== null) return recorded;
  }
  return null;
}
