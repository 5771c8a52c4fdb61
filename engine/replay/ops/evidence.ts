/**
 * Lifecycle evidence a reconciler may cite (spec 7.8 "Run binding and bounded
 * reconciliation", 7.15 "Completion is not yet dependency success"; contract
 * `delivery_verification.required_proof`, `provenance.evidence`).
 *
 * - Every Release/DeliveryFailure evidence fits the group's frozen execution
 *   scope: the queue repository and the approved workflow, ref and principal,
 *   checked no later than the decision.
 * - Exact terminal evidence names the group's BOUND run, original attempt 1,
 *   completed with a conclusion, read from the GitHub API. An unbound group has
 *   no run any terminal evidence could be exact for: a terminal dispatcher (or
 *   any other run) proves nothing about whether the worker launched.
 * - A reserved group is released only by a prelaunch cancellation of the
 *   trusted publisher; a started/uncertain/unresolved group only after its
 *   definitive nonlaunch evidence was persisted as Dispatch(rejected), or once
 *   bound, on exact terminal evidence of that run. A group with a recorded run binding
 *   conflict is released on exact terminal evidence of every candidate (ops/conflict.ts).
 */
import { fail } from '../../errors.ts';
import type { Evidence } from '../../schema/index.ts';
import { where, type CommitContext } from '../context.ts';
import type { DispatchRecord } from '../../state/state.ts';

interface BoundRun {
  run_id: string;
  run_attempt: number;
  repository: string;
  workflow: string;
  ref: string;
  principal: string;
}

/** The fields lifecycle evidence of a bound group must copy exactly from its run binding. */
export const BOUND_RUN_FIELDS = ['repository', 'workflow', 'ref', 'principal', 'run_id', 'run_attempt'] as const;

/**
 * Evidence for a bound group names exactly its bound run: repository, workflow, ref,
 * principal, run id and original attempt (spec 7.8 "release with exact run/attempt terminal
 * evidence"; contract `provenance.native_correlation` "Original native attempt 1 API proof
 * matches approved workflow, immutable revision, repository, event and actor"). Missing
 * run_id/run_attempt is a mismatch: evidence that names no run is evidence of no run.
 */
export function boundRunMismatch(run: BoundRun, evidence: Evidence): string | null {
  for (const field of BOUND_RUN_FIELDS) {
    if (evidence[field] !== run[field]) return `evidence ${field} ${JSON.stringify(evidence[field] ?? null)} is not the bound run's ${JSON.stringify(run[field])}`;
  }
  return null;
}

/**
 * Result evidence is verified delivery (spec 7.15 "Completion is not yet dependency success":
 * "Completion, agent statements, and an overall successful worker conclusion alone do not prove
 * delivery"; contract `permissions.delivery`: "a trusted read-only DeliveryVerifier capability,
 * never a receipt asserted by operator flags"): kind `delivery`, from the verified receipts, with
 * the receipt it verified; and it names the Claim's bound run (`checkBoundRunEvidence`).
 */
export function checkDeliveryEvidence(ctx: CommitContext, group: DispatchRecord, evidence: Evidence, what: string): void {
  const problem = evidence.kind !== 'delivery' ? `evidence kind ${JSON.stringify(evidence.kind)} is not delivery`
    : evidence.source !== 'verified_receipts' ? `delivery evidence source ${JSON.stringify(evidence.source)} is not verified_receipts`
      : evidence.receipt === undefined ? 'delivery evidence names no receipt'
        : null;
  if (problem !== null) fail('evidence_invalid', `${what}: ${problem}; only verified delivery releases a delivery barrier`, where(ctx), { field: problem.startsWith('evidence kind') ? 'kind' : problem.includes('source') ? 'source' : 'receipt' });
  checkBoundRunEvidence(ctx, group, evidence, what);
}

/** Evidence that names the group's bound run, within its approved execution scope. */
export function checkBoundRunEvidence(ctx: CommitContext, group: DispatchRecord, evidence: Evidence, what: string): void {
  const run = group.run as BoundRun | null;
  if (run === null) fail('evidence_invalid', `${what}: dispatch ${group.dispatchId} has no bound run the evidence could name`, where(ctx));
  checkEvidenceScope(ctx, group, evidence);
  const problem = boundRunMismatch(run, evidence);
  if (problem !== null) fail('evidence_invalid', `${what}: ${problem}`, where(ctx), { field: problem.split(' ')[1]! });
}

/**
 * Dispatch(bound) evidence is the proof of the run it binds (7.8 "Validate the response, then
 * fetch that exact run ... before appending Dispatch(bound)"): present, a read of the run (not
 * evidence that no launch happened, prelaunch or nonlaunch, nor a delivery receipt) from the
 * GitHub API or the trusted activation, naming exactly that run, checked by the decision.
 */
export function checkBindingEvidence(ctx: CommitContext, run: BoundRun, evidence: Evidence | undefined): void {
  if (evidence === undefined) fail('evidence_invalid', `a Dispatch(bound) carries the evidence of run ${run.run_id} it read before binding it; this one has none`, where(ctx), { field: 'evidence' });
  if (evidence.kind === 'prelaunch' || evidence.kind === 'nonlaunch') {
    fail('evidence_invalid', `binding evidence of kind ${evidence.kind} says no run launched; it cannot bind run ${run.run_id}`, where(ctx), { field: 'kind' });
  }
  // Spec 7.8: "fetch that exact run ... before appending Dispatch(bound)"; activation
  // "authenticate[s] its native run through the run API and trusted job context". A delivery
  // receipt or the publisher's own word reads no run.
  if (evidence.kind === 'delivery') {
    fail('evidence_invalid', `binding evidence of kind delivery verifies receipts, not run ${run.run_id}`, where(ctx), { field: 'kind' });
  }
  if (evidence.source !== 'github_api' && evidence.source !== 'trusted_activation') {
    fail('evidence_invalid', `binding evidence comes from ${evidence.source}, not the run API or the trusted activation that read run ${run.run_id}`, where(ctx), { field: 'source' });
  }
  const problem = boundRunMismatch(run, evidence);
  if (problem !== null) fail('evidence_invalid', `binding evidence does not prove run ${run.run_id}: ${problem}`, where(ctx), { field: problem.split(' ')[1]! });
  if (evidence.checked_at > ctx.commit.at) {
    fail('evidence_invalid', `evidence checked at ${evidence.checked_at} postdates the decision time ${ctx.commit.at}`, where(ctx));
  }
}

/** Evidence must describe the group's approved execution scope (contract `evidenceFits`). */
export function checkEvidenceScope(ctx: CommitContext, group: DispatchRecord, evidence: Evidence): void {
  const at = where(ctx);
  const profile = group.profile;
  const mismatch = evidence.repository !== ctx.state.repository ? 'repository'
    : evidence.workflow !== profile.workflow ? 'workflow'
      : evidence.ref !== profile.ref ? 'ref'
        : evidence.principal !== profile.principal ? 'principal'
          : null;
  if (mismatch !== null) {
    fail('evidence_invalid', `evidence ${mismatch} ${JSON.stringify(evidence[mismatch])} is not dispatch ${group.dispatchId}'s approved execution scope`, at);
  }
  if (evidence.checked_at > ctx.commit.at) {
    fail('evidence_invalid', `evidence checked at ${evidence.checked_at} postdates the decision time ${ctx.commit.at}`, at);
  }
}

/** Exact native run/attempt terminal evidence for the group's bound run (7.8, 7.15). */
export function checkExactTerminal(ctx: CommitContext, group: DispatchRecord, evidence: Evidence, what: string): void {
  const at = where(ctx);
  const run = group.run as BoundRun | null;
  if (group.state !== 'bound' || run === null) {
    const named = evidence.run_id === undefined ? '' : ` of run ${evidence.run_id}`;
    fail('terminal_evidence_required', `${what}: dispatch ${group.dispatchId} was never bound to a worker run (${group.state}); terminal evidence${named} is not exact evidence for its launch`, at);
  }
  checkEvidenceScope(ctx, group, evidence);
  const problem = evidence.kind !== 'terminal_run' ? `evidence is ${evidence.kind}, not terminal_run`
    : evidence.source !== 'github_api' ? `terminal evidence comes from ${evidence.source}, not the GitHub API`
      : evidence.run_id !== run.run_id ? `evidence names run ${evidence.run_id ?? '(none)'}, not the bound run ${run.run_id}`
        : evidence.run_attempt !== run.run_attempt ? `evidence names attempt ${evidence.run_attempt ?? '(none)'}, not the original attempt ${run.run_attempt}`
          : evidence.status !== 'completed' || evidence.conclusion === undefined ? `run ${run.run_id} is not reported completed with a conclusion`
            : null;
  if (problem !== null) fail('terminal_evidence_required', `${what} needs exact terminal evidence of run ${run.run_id} attempt ${run.run_attempt}: ${problem}`, at);
  const foreign = boundRunMismatch(run, evidence);
  if (foreign !== null) fail('evidence_invalid', `${what}: ${foreign}`, at, { field: foreign.split(' ')[1]! });
}

/** Release evidence by launch state (spec 7.8 state diagram and recovery table). */
export function checkReleaseEvidence(ctx: CommitContext, group: DispatchRecord, evidence: Evidence): void {
  const at = where(ctx);
  switch (group.state) {
    case 'reserved':
      checkEvidenceScope(ctx, group, evidence);
      if (evidence.kind !== 'prelaunch' || evidence.source !== 'trusted_publisher') {
        fail('nonlaunch_evidence_required', `dispatch ${group.dispatchId} has no start marker: it is released only by the trusted publisher's prelaunch cancellation, not ${evidence.kind} evidence from ${evidence.source}`, at);
      }
      return;
    case 'rejected':
      checkEvidenceScope(ctx, group, evidence);
      if (evidence.kind !== 'nonlaunch' || evidence.source !== 'github_api') {
        fail('nonlaunch_evidence_required', `rejected dispatch ${group.dispatchId} is released on its definitive nonlaunch evidence from the GitHub API, not ${evidence.kind} evidence from ${evidence.source}`, at);
      }
      return;
    case 'bound':
      return checkExactTerminal(ctx, group, evidence, `releasing dispatch ${group.dispatchId}`);
    case 'started':
    case 'uncertain':
    case 'unresolved':
      if (evidence.kind === 'nonlaunch' || evidence.kind === 'prelaunch') {
        fail('nonlaunch_evidence_required', `dispatch ${group.dispatchId} is ${group.state}: persist its definitive nonlaunch evidence as Dispatch(rejected) before the Release (a start marker rules out prelaunch cancellation)`, at);
      }
      return checkExactTerminal(ctx, group, evidence, `releasing dispatch ${group.dispatchId}`);
  }
}

/** Dispatch(rejected) persists the definitive nonlaunch evidence a later Release relies on. */
export function checkRejectionEvidence(ctx: CommitContext, group: DispatchRecord, evidence: Evidence | undefined): void {
  if (evidence === undefined || evidence.kind !== 'nonlaunch' || evidence.source !== 'github_api') {
    const found = evidence === undefined ? 'no evidence' : `${evidence.kind} evidence from ${evidence.source}`;
    fail('nonlaunch_evidence_required', `rejecting dispatch ${group.dispatchId} needs definitive nonlaunch evidence from the GitHub API, not ${found}`, where(ctx));
  }
  checkEvidenceScope(ctx, group, evidence);
}
