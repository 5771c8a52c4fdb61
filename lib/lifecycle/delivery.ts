/**
 * Delivery barrier settlement of one completed Claim (spec 7.15, 7.18 "Completion exists,
 * Result absent"): verify the Claim's trusted effect receipts against its Work's effect
 * contract, WITHOUT rerunning any effect, then publish the immutable Result; or, with
 * exact terminal evidence of the bound run's original attempt and an exhausted budget,
 * the guarded DeliveryFailure. Repeating with the same receipts finds the same Result.
 * A settled barrier is preserved; contradicting later evidence is only a diagnostic.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { fail, isProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { barrierPlan, completedMember, defaultDescriptor, deliveryFailureCommitOf, settlingOperation, type TerminalRun } from '../../engine/lifecycle/barrier.ts';
import { verifyDelivery } from '../../engine/lifecycle/effects.ts';
import { dispatchHistory } from '../../engine/lifecycle/history.ts';
import { deliveryFailureRequestId, resultRequestId } from '../../engine/lifecycle/ids.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import type { GitHubApi } from '../github/api.ts';
import { coordsOf, getFirstAttempt } from '../github/runs.ts';
import { publishTransition } from '../publisher/requests.ts';
import { debugEvent } from '../debug/log.ts';

export interface DeliveryDeps {
  publisher: Publisher;
  /** Reads the bound run's terminal state when the ledger has no terminal Release yet. */
  api: GitHubApi | null;
  reconciler: PublishingActor;
  now?: () => number;
}

export interface DeliveryInput {
  claimId: string;
  /** The Claim's trusted effect receipts (`fairway.delivery/1`); null when none exist. */
  receipts: unknown;
  descriptor?: JsonObject;
  /** Verification attempts made so far by the caller (default 1). */
  attempts?: number;
}

export type DeliveryOutcome = 'result' | 'delivery_failure' | 'pending' | 'already_verified' | 'already_failed' | 'result_conflict';

export interface DeliveryReport {
  claim_id: string;
  work_id: string;
  outcome: DeliveryOutcome;
  verified: boolean;
  reason: string | null;
  effects: string | null;
  terminal: TerminalRun | null;
  commit_id: string | null;
}

/** Exact terminal evidence: the group's terminal Release, else the run API's attempt-1 view. */
export async function terminalEvidence(projection: Projection, api: GitHubApi | null, dispatchId: string): Promise<TerminalRun | null> {
  const group = projection.dispatch(dispatchId)!;
  const runId = (group.run as { run_id?: string } | null)?.run_id;
  if (runId === undefined) return null;
  const release = dispatchHistory(projection, dispatchId).events.find((e) => e.state === 'released');
  if (release?.evidence?.kind === 'terminal_run' && release.runId === runId) return { runId, conclusion: String(release.evidence.conclusion ?? 'unknown') };
  if (api === null) return null;
  try {
    const run = await getFirstAttempt(api, coordsOf(projection.repository ?? ''), runId);
    return run.status === 'completed' ? { runId, conclusion: run.conclusion ?? 'unknown' } : null;
  } catch {
    return null; // unavailable evidence keeps the barrier pending
  }
}

export async function settleDelivery(deps: DeliveryDeps, input: DeliveryInput): Promise<DeliveryReport> {
  const report = await settleOnce(deps, input);
  debugEvent('delivery', 'settle', { outcome: report.outcome, verified: report.verified, terminal: report.terminal !== null, committed: report.commit_id !== null });
  return report;
}

async function settleOnce(deps: DeliveryDeps, input: DeliveryInput): Promise<DeliveryReport> {
  const { projection } = await deps.publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'there is no queue');
  const { claim, work } = completedMember(projection, input.claimId);
  const runId = (projection.dispatch(claim.dispatchId)!.run as { run_id: string }).run_id;
  const verification = verifyDelivery({ dispatchId: claim.dispatchId, claimId: claim.claimId, runId }, work.definition.payload as JsonObject, input.receipts);
  debugEvent('effects', 'verify', { verified: verification.verified, outputs: verification.verified ? verification.outputs.length : 0, receipts: input.receipts !== null });
  const report: DeliveryReport = {
    claim_id: claim.claimId, work_id: work.workId, outcome: 'pending', verified: verification.verified,
    reason: verification.verified ? null : verification.reason, effects: verification.verified ? null : verification.effects, terminal: null, commit_id: null,
  };
  if (work.barrier !== 'pending') {
    const settled = settlingOperation(projection, work.workId);
    // After compaction the checkpoint keeps the settling operation but not its commit id; our own
    // DeliveryFailure request still names that commit (engine/lifecycle/barrier.ts).
    report.commit_id = work.resultCommit ?? deliveryFailureCommitOf([projection], work.workId);
    if (work.barrier === 'failed') report.outcome = 'already_failed';
    else {
      const ours = verification.verified ? input.descriptor ?? defaultDescriptor(runId, verification) : null;
      report.outcome = ours === null || canonicalize(ours) === canonicalize((settled?.descriptor ?? null) as never) ? 'already_verified' : 'result_conflict';
    }
    return report;
  }
  const terminal = verification.verified ? null : await terminalEvidence(projection, deps.api, claim.dispatchId);
  report.terminal = terminal;
  const plan = barrierPlan(projection, {
    claimId: claim.claimId, verification, terminal, attempts: input.attempts ?? 1, ...(input.descriptor === undefined ? {} : { descriptor: input.descriptor }),
  });
  if (plan.kind === 'pending') {
    report.reason = plan.reason;
    return report;
  }
  if (plan.kind === 'settled') return { ...report, outcome: plan.barrier === 'verified' ? 'already_verified' : 'already_failed', commit_id: plan.commitId };
  const requestId = plan.kind === 'result' ? resultRequestId(claim.claimId) : deliveryFailureRequestId(claim.claimId);
  try {
    const t = await publishTransition(deps.publisher, requestId, deps.reconciler, plan.build, deps.now === undefined ? {} : { now: deps.now });
    report.outcome = plan.kind;
    report.commit_id = t.status === 'skipped' ? null : t.commitId;
  } catch (e) {
    if (!isProtocolError(e) || (e.code !== 'reconciliation_pending' && e.code !== 'barrier_settled')) throw e;
    report.reason = e.code;
  }
  return report;
}
