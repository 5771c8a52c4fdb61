/**
 * Trusted worker activation (spec 7.8 "Run binding", 7.14): before any agent step, the
 * worker proves which run it is from its own job context (GITHUB_RUN_ID / ATTEMPT /
 * REPOSITORY), authenticates that run through the run API against the group's frozen
 * profile, checks the exact assignment against the ledger and the recorded start marker,
 * and proposes Dispatch(bound) through the checked publisher when the dispatcher's
 * response was lost -- unless discovery shows a second possible launch of the group, which is
 * recorded as a run binding conflict that neither run wins. Only then is the immutable assignment emitted. A Re-run (attempt 2),
 * a foreign or edited assignment, a missing marker or another bound run fail closed.
 */
import { fail } from '../../engine/errors.ts';
import { checkAssignmentAgainstLedger, parseAssignment, type WorkerAssignment } from '../../engine/intents/assignment.ts';
import { bindingStatus, boundTransition, conflictRecorded } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/evidence.ts';
import { workerActor } from '../../engine/lifecycle/finish.ts';
import { bindRequestId } from '../../engine/lifecycle/ids.ts';
import { decideUnbound } from '../../engine/lifecycle/reconcile.ts';
import type { Publisher } from '../publisher/publisher.ts';
import type { GitHubApi } from '../github/api.ts';
import { launchCandidates } from '../github/candidates.ts';
import { recordConflict } from './conflict.ts';
import type { ActionsRun } from '../github/context.ts';
import { authenticateRun, refuseForeignRun } from './run-auth.ts';
import { publishTransition } from '../publisher/requests.ts';
import { debugEvent } from '../debug/log.ts';

export interface ActivationInput {
  publisher: Publisher;
  api: GitHubApi;
  /** The worker's own job context (never an agent-supplied run id). */
  run: ActionsRun;
  /** The raw `work_queue_assignment` input. */
  assignment: unknown;
  now?: () => number;
}

export interface Activation {
  assignment: WorkerAssignment;
  run_id: string;
  binding: 'bound_now' | 'already_bound';
  commit_id: string | null;
}

export async function activateWorker(input: ActivationInput): Promise<Activation> {
  const assignment = parseAssignment(input.assignment);
  const { run } = input;
  if (run.runAttempt !== 1) fail('run_attempt_invalid', `run attempt ${run.runAttempt} is a Re-run: it cannot inherit the original attempt's authority; new execution needs a fresh fair Claim`);
  const { projection } = await input.publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'the worker queue does not exist');
  checkAssignmentAgainstLedger(projection, assignment);
  const group = projection.dispatch(assignment.dispatch_id)!;
  const repository = projection.repository ?? '';
  if (group.released) fail('dispatch_released', `dispatch ${group.dispatchId} was already released`);
  if (group.state === 'reserved') fail('launch_marker_missing', `dispatch ${group.dispatchId} has no start marker: this run was not launched by its sender`);
  if (group.state === 'rejected') fail('launch_rejected', `dispatch ${group.dispatchId} was definitively rejected`);
  refuseForeignRun(run, repository);
  if (conflictRecorded(group)) fail('run_binding_conflict', `dispatch ${group.dispatchId} recorded a run binding conflict: run ${run.runId} gets no authority`);
  const status = bindingStatus(group, run.runId);
  if (status === 'conflict') fail('run_binding_conflict', `dispatch ${group.dispatchId} is bound to another run; run ${run.runId} gets no authority`);

  const native = await authenticateRun(input.api, group, repository, run);
  if (status === 'same') return bindingEvent({ assignment, run_id: run.runId, binding: 'already_bound', commit_id: null });

  // Spec 7.8 "Multiple matching runs are a binding conflict": before binding itself, the worker
  // discovers every possible launch of its group (the same paged discovery reconcile uses). A
  // second one -- a duplicate that may activate too -- makes this a conflict that neither run wins.
  const actor = workerActor(projection, group.dispatchId, run.runId);
  const opts = input.now === undefined ? {} : { now: input.now };
  // A failed listing propagates: activation fails closed, the reservation stays.
  const candidates = await launchCandidates(input.api, projection, group.dispatchId, { known: [native] });
  const decision = decideUnbound(candidates);
  if (decision.action === 'conflict') {
    await recordConflict(input.publisher, actor, group.dispatchId, decision.runIds, 1, opts);
    fail('run_binding_conflict', `dispatch ${group.dispatchId} has ${decision.runIds.length} possible launches (${decision.runIds.join(', ')}): run ${run.runId} gets no authority`, {}, { run_ids: decision.runIds });
  }
  if (decision.action !== 'bind' || decision.runId !== run.runId) {
    fail('run_binding_invalid', `run ${run.runId} is not the one valid possible launch of dispatch ${group.dispatchId}`);
  }

  const t = await publishTransition(input.publisher, bindRequestId(group.dispatchId, run.runId), actor, (s, at) => boundTransition(s, group.dispatchId, run.runId,
    groupEvidence(s, group.dispatchId, { kind: 'reconciliation', source: 'trusted_activation', checkedAt: at, runId: run.runId })),
  { state: 'bound', tolerate: ['already_bound'], ...opts });
  if (t.status === 'skipped') return bindingEvent({ assignment, run_id: run.runId, binding: 'already_bound', commit_id: null });
  return bindingEvent({ assignment, run_id: run.runId, binding: 'bound_now', commit_id: t.commitId });
}

/** `native binding`: this run's binding verified from its own job context. */
function bindingEvent(activation: Activation): Activation {
  debugEvent('native', 'binding', { bound_now: activation.binding === 'bound_now', claims: activation.assignment.claims.length });
  return activation;
}
