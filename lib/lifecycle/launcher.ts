/**
 * Launching one reserved dispatch group (spec 7.8): CAS-commit the start marker (this
 * publisher becomes the group's one sender), then send the one `workflow_dispatch` POST
 * with the immutable assignment as `work_queue_assignment`; the worker's run name carries
 * the delimited dispatch id. A validated run id is fetched and checked (repository,
 * workflow, immutable ref, event, principal, attempt 1) before Dispatch(bound); anything
 * less is Dispatch(uncertain) and keeps the reservation. A definitive refusal is
 * Dispatch(rejected) with nonlaunch evidence, then the group is released once. If the
 * marker already exists, even from an earlier run of this same step, nothing is sent.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { fail, isProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { boundTransition, rejectedTransition, startMarker, uncertainTransition } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/evidence.ts';
import { bindRequestId, rejectedRequestId, startRequestId, uncertainRequestId } from '../../engine/lifecycle/ids.ts';
import { launchState, type LaunchState } from '../../engine/lifecycle/launch-state.ts';
import { CONFLICT_NEXT_ACTION, decideUnbound } from '../../engine/lifecycle/reconcile.ts';
import { runMismatches } from '../../engine/lifecycle/run-identity.ts';
import { dispatchAssignment } from '../../engine/receipts/dispatch.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import type { GitHubApi } from '../github/api.ts';
import { launchCandidates } from '../github/candidates.ts';
import { closeGroup } from './closing.ts';
import { recordConflict } from './conflict.ts';
import { ASSIGNMENT_INPUT, postWorkflowDispatch, type DispatchPostOptions, type PostOutcome } from '../github/dispatch-post.ts';
import { coordsOf, getRun } from '../github/runs.ts';
import { publishTransition } from '../publisher/requests.ts';
import { debugEvent } from '../debug/log.ts';

export interface LaunchDeps {
  publisher: Publisher;
  /** Reads of the launched run (retries allowed: safe reads). */
  api: GitHubApi;
  post: DispatchPostOptions;
  /** The dispatcher: the start marker's one sender. */
  sender: Actor;
  /** Publishes the Release after a definitive rejection. */
  reconciler: PublishingActor;
  /** Branch or tag the workflow is dispatched on. */
  ref: string;
  now?: () => number;
}

/**
 * `failed`: this group's launch stopped at an error (its `error`); `not_attempted`: a batch
 * stopped before this group (launch-batch.ts). Both only in a batch's report.
 */
export type LaunchOutcome = LaunchEnd | 'failed' | 'not_attempted';
/** How a launch that did not throw ended. */
export type LaunchEnd = 'bound' | 'uncertain' | 'rejected' | 'marker_exists' | 'grants_paused' | 'run_binding_conflict';

export interface LaunchReport {
  dispatch_id: string;
  outcome: LaunchOutcome;
  state: LaunchState;
  posted: boolean;
  run_id: string | null;
  reason: string | null;
  http_status: number | null;
  mismatches: string[];
  commits: string[];
  /** What the operator does next when the launch is held (outcome `grants_paused`); null otherwise. */
  next_action: string | null;
  /** Only with outcome `failed`: the error's code and message (and its details). */
  error?: Record<string, unknown>;
}

/** A launch held by a grant pause wrote nothing: the group stays reserved (spec 7.18 "obey grant pauses"). */
export function grantsPausedNextAction(dispatchId: string): string {
  return 'grants are paused, nothing was started and the group stays reserved: once an administrator resumes grants '
    + `(fairway control --name grants_paused --paused false --reason CODE), launch it again (fairway launch --dispatch-id ${dispatchId}), `
    + `or cancel it before any start marker (fairway reconcile --dispatch-id ${dispatchId} --cancel-reserved)`;
}

/**
 * What an operator does after a launch whose outcome is not known (spec 7.8: "report
 * launch_unresolved with the last evidence and next operator action"): the POST may have started
 * a run, so nothing is resent; reconciliation finds and binds that run, or records it unresolved.
 */
export function uncertainNextAction(dispatchId: string): string {
  return 'the launch may have started a run: nothing is resent and the reservation is kept; '
    + `run fairway reconcile --dispatch-id ${dispatchId} (it binds the run it finds, or records the launch unresolved), and see fairway evidence --dispatch-id ${dispatchId}`;
}

/** What an operator does when several runs carry one dispatch id (none gets authority). */
export function conflictNextAction(dispatchId: string): string {
  return `${CONFLICT_NEXT_ACTION} (fairway reconcile --dispatch-id ${dispatchId}; fairway evidence --dispatch-id ${dispatchId} names them)`;
}

/** A group's report before anything was done. */
export function launchReport(dispatchId: string): LaunchReport {
  return { dispatch_id: dispatchId, outcome: 'marker_exists', state: 'reserved', posted: false, run_id: null, reason: null, http_status: null, mismatches: [], commits: [], next_action: null };
}

async function current(publisher: Publisher): Promise<Projection> {
  const { projection } = await publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'there is no queue to launch from');
  return projection;
}

/** The group's immutable assignment, exactly as the packer built it at grant time (also after compaction). */
export function groupAssignment(projection: Projection, dispatchId: string): JsonObject {
  return dispatchAssignment(projection, dispatchId);
}

/**
 * Launches one group. `report` (default a fresh one) is filled in as the launch goes, so a
 * caller that passes its own still knows, when this throws, what was committed and whether the
 * POST was sent.
 */
export async function launchGroup(deps: LaunchDeps, dispatchId: string, report: LaunchReport = launchReport(dispatchId)): Promise<LaunchReport> {
  const opts = deps.now === undefined ? {} : { now: deps.now };
  const finish = async (outcome: LaunchEnd): Promise<LaunchReport> => {
    report.outcome = outcome;
    if (outcome === 'uncertain') report.next_action ??= uncertainNextAction(dispatchId);
    if (outcome === 'run_binding_conflict') report.next_action ??= conflictNextAction(dispatchId);
    debugEvent('native', 'launch', { outcome, status: report.http_status ?? 0, commits: report.commits.length });
    report.state = launchState((await current(deps.publisher)).dispatch(dispatchId)!);
    return report;
  };
  const before = await current(deps.publisher);
  const group = before.dispatch(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (group.released || group.state !== 'reserved') return finish('marker_exists');
  const assignment = groupAssignment(before, dispatchId);
  const repository = before.repository ?? '';

  let marker;
  try {
    marker = await publishTransition(deps.publisher, startRequestId(dispatchId), deps.sender, (s) => startMarker(s, dispatchId, deps.sender), { state: 'started', tolerate: ['launch_already_started', 'dispatch_released'], ...opts });
  } catch (e) {
    if (isProtocolError(e) && e.code === 'grants_paused') {
      report.next_action = grantsPausedNextAction(dispatchId);
      return finish('grants_paused');
    }
    if (isProtocolError(e) && e.code === 'request_id_conflict') return finish('marker_exists');
    throw e;
  }
  // Only a marker this call committed selects it as sender; a found marker means "reconcile".
  if (marker.status !== 'committed') return finish('marker_exists');
  report.commits.push(marker.commitId);

  const coords = coordsOf(repository);
  report.posted = true;
  const posted: PostOutcome = await postWorkflowDispatch(deps.post, {
    ...coords, workflow: String(group.profile.workflow), ref: deps.ref, inputs: { [ASSIGNMENT_INPUT]: canonicalize(assignment) },
  });
  report.http_status = posted.status === 'accepted' ? 200 : posted.httpStatus;

  const uncertain = async (reason: string, runId?: string): Promise<LaunchReport> => {
    report.reason = reason;
    const t = await publishTransition(deps.publisher, uncertainRequestId(dispatchId), deps.sender, (s, at) => uncertainTransition(s, dispatchId, reason,
      runId === undefined ? undefined : groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, runId })), { state: 'uncertain', tolerate: ['dispatch_transition_invalid', 'dispatch_released'], ...opts });
    if (t.status === 'committed') report.commits.push(t.commitId);
    return finish('uncertain');
  };

  if (posted.status === 'rejected') {
    report.reason = posted.reason;
    const t = await publishTransition(deps.publisher, rejectedRequestId(dispatchId), deps.sender, (s, at) => rejectedTransition(s, dispatchId, posted.reason,
      groupEvidence(s, dispatchId, { kind: 'nonlaunch', source: 'github_api', checkedAt: at })), { state: 'rejected', tolerate: ['dispatch_transition_invalid', 'dispatch_released', 'run_binding_conflict'], ...opts });
    if (t.status === 'committed') report.commits.push(t.commitId);
    const closed = await closeGroup(deps.publisher, deps.reconciler, dispatchId, { kind: 'nonlaunch', source: 'github_api' }, 'launch_rejected', deps.now);
    for (const c of [closed.exhaustion, closed.release]) if (c !== null && c.status === 'committed') report.commits.push(c.commitId);
    return finish('rejected');
  }
  if (posted.status === 'uncertain') return uncertain(posted.reason);

  report.run_id = posted.runId;
  let run;
  try {
    run = await getRun(deps.api, coords, posted.runId);
  } catch {
    return uncertain('run_unverified', posted.runId);
  }
  report.mismatches = runMismatches(group, repository, run);
  if (report.mismatches.length > 0) return uncertain(report.mismatches[0]!, posted.runId);
  // "The dispatcher uses the same binding rule" (spec 7.8): a second run carrying the dispatch id
  // makes the response-named run one of several possible launches, a conflict neither run wins.
  let decision;
  try {
    decision = decideUnbound(await launchCandidates(deps.api, await current(deps.publisher), dispatchId, { reported: [posted.runId] }));
  } catch {
    return uncertain('run_unverified', posted.runId);
  }
  if (decision.action === 'conflict') {
    report.reason = 'run_binding_conflict';
    report.commits.push(...await recordConflict(deps.publisher, deps.sender, dispatchId, decision.runIds, 1, opts));
    return finish('run_binding_conflict');
  }
  const bound = await publishTransition(deps.publisher, bindRequestId(dispatchId, posted.runId), deps.sender, (s, at) => boundTransition(s, dispatchId, posted.runId,
    groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, runId: posted.runId })), { state: 'bound', tolerate: ['already_bound', 'run_binding_conflict'], ...opts });
  if (bound.status === 'committed') report.commits.push(bound.commitId);
  if (bound.status === 'skipped' && bound.code === 'run_binding_conflict') {
    report.reason = bound.code;
    return finish('run_binding_conflict');
  }
  return finish('bound');
}
