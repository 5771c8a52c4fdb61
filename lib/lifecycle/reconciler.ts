/**
 * Trusted reconciliation of one dispatch group (spec 7.8, 7.18). Bound: exact terminal
 * evidence of the bound run's original attempt cancels only still-open Claims and releases
 * once; a queued/running run (also one with a cancellation requested) keeps its slot.
 * Unbound after a start marker: bind the one valid possible launch (then release it on its
 * exact terminal evidence), keep the reservation on several possible launches
 * (`run_binding_conflict`), and after the bounded attempt/deadline budget record
 * `launch_unresolved` -- the reservation stays. A conflict is recorded durably as
 * Dispatch(unresolved, run_binding_conflict); afterwards no run binds the group, and it is
 * released only once every candidate run is reported completed (conflict-exits.ts) or follows
 * the one candidate an administrator bound. Terminal evidence of a run that was never
 * bound (a mismatching run, the dispatcher's own run) never releases a group. A reserved
 * group (no start marker) is released only by a prelaunch cancellation that wins the CAS race
 * against a start marker: on request (`cancelReserved`), or once the dispatcher run attempt
 * that granted it is terminal (prelaunch.ts; it can no longer start it); one that loses the
 * race is reconciled as the started group it now is. There is no force-release path.
 */
import { fail, isProtocolError } from '../../engine/errors.ts';
import { boundTransition, conflictRecorded, unresolvedTransition } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/evidence.ts';
import { dispatchHistory } from '../../engine/lifecycle/history.ts';
import { bindRequestId, unresolvedRequestId } from '../../engine/lifecycle/ids.ts';
import { launchState, type LaunchState } from '../../engine/lifecycle/launch-state.ts';
import type { GrantingRunView } from '../../engine/lifecycle/prelaunch.ts';
import { budgetExhausted, CONFLICT_NEXT_ACTION, decideUnbound, UNRESOLVED_NEXT_ACTION, type Candidate } from '../../engine/lifecycle/reconcile.ts';
import { checkPrelaunch } from '../../engine/lifecycle/release.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { DispatchRecord } from '../../engine/state/state.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { readStatusOf, type GitHubApi } from '../github/api.ts';
import { launchCandidates } from '../github/candidates.ts';
import { closeGroup } from './closing.ts';
import { settleConflict } from './conflict-exits.ts';
import { markUncertain, recordConflict } from './conflict.ts';
import { reservedRecovery, type GrantingRunReads } from './prelaunch.ts';
import { coordsOf, getFirstAttempt, requestCancel, type RepoCoords } from '../github/runs.ts';
import { publishTransition } from '../publisher/requests.ts';
import { debugEvent } from '../debug/log.ts';
import { configuredPool } from '../../engine/scheduler/policy-view.ts';

export interface ReconcileDeps {
  publisher: Publisher;
  api: GitHubApi;
  reconciler: PublishingActor;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Pause between discovery polls (default 5 s). */
  intervalMs?: number;
  /** Polls at most (default: the pool's reconciliation.max_attempts). */
  maxPolls?: number;
  /**
   * Release a group that has no start marker (prelaunch cancellation) whoever granted it;
   * without it, only one whose granting dispatcher run attempt is terminal is cancelled.
   */
  cancelReserved?: boolean;
  /** Ask GitHub to cancel a bound, still running worker (a request, not evidence). */
  cancelRunning?: boolean;
  /** The pass's reads of granting dispatcher runs, each read once a pass (reconcile-batch.ts); without it each group reads its own. */
  grantingRuns?: GrantingRunReads;
}

export type ReconcileOutcome =
  | ReconcileEnd
  /** `failed`: this group's pass stopped at an error (its `error`); `not_attempted`: a batch stopped before it (reconcile-batch.ts). */
  | 'failed' | 'not_attempted';
/** How a group's reconciliation that did not throw ended. */
export type ReconcileEnd =
  | 'released' | 'already_released' | 'running' | 'reserved' | 'launch_unresolved' | 'run_binding_conflict' | 'run_identity_invalid' | 'evidence_unavailable';

export interface ReconcileReport {
  dispatch_id: string;
  outcome: ReconcileOutcome;
  state: LaunchState;
  polls: number;
  run_id: string | null;
  candidates: Array<{ run_id: string; reported: boolean; status: string | null; mismatches: string[] }>;
  /** Candidates of a recorded conflict without exact terminal evidence yet. */
  open_candidates: string[];
  last_error: string | null;
  /** The bound worker run's native conclusion once GitHub reports its original attempt completed (not a Claim outcome). */
  conclusion: string | null;
  cancel_requested: boolean;
  pending_barriers: string[];
  next_action: string | null;
  commits: string[];
  /** A group reserved at this pass: the dispatcher run attempt that granted it, as GitHub reports it. */
  dispatcher_run: GrantingRunView | null;
  /** Only with outcome `failed`: the error's code and message (and its details). */
  error?: Record<string, unknown>;
}

/** A group's report before anything was done. */
export function reconcileReport(dispatchId: string): ReconcileReport {
  return {
    dispatch_id: dispatchId, outcome: 'reserved', state: 'reserved', polls: 0, run_id: null, candidates: [], open_candidates: [], last_error: null, conclusion: null,
    cancel_requested: false, pending_barriers: [], next_action: null, commits: [], dispatcher_run: null,
  };
}

/**
 * Reconciles one group. `report` (default a fresh one) is filled in as the pass goes, so a
 * caller that passes its own still knows, when this throws, what was committed.
 */
export async function reconcileDispatch(deps: ReconcileDeps, dispatchId: string, report: ReconcileReport = reconcileReport(dispatchId)): Promise<ReconcileReport> {
  const now = deps.now ?? Date.now;
  const opts = deps.now === undefined ? {} : { now: deps.now };
  const load = async (): Promise<{ projection: Projection; group: DispatchRecord }> => {
    const { projection } = await deps.publisher.cache.load();
    const group = projection?.dispatch(dispatchId);
    if (projection === null || group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
    return { projection, group };
  };
  const done = async (outcome: ReconcileEnd, next: string | null = null): Promise<ReconcileReport> => {
    const { projection, group } = await load();
    report.outcome = outcome;
    report.state = launchState(group);
    report.run_id = (group.run as { run_id?: string } | null)?.run_id ?? report.run_id;
    report.next_action = next;
    report.pending_barriers = group.claimIds.filter((id) => projection.claim(id)?.state === 'completed' && projection.work(projection.claim(id)!.workId)?.barrier === 'pending');
    debugEvent('reconciler', 'group', { outcome, commits: report.commits.length, polls: report.polls });
    return report;
  };
  const close = async (evidence: Parameters<typeof closeGroup>[3], reason: string, precheck?: Parameters<typeof closeGroup>[6]) => {
    const closed = await closeGroup(deps.publisher, deps.reconciler, dispatchId, evidence, reason, deps.now, precheck);
    for (const c of [closed.exhaustion, closed.release]) if (c !== null && c.status === 'committed') report.commits.push(c.commitId);
    return done(closed.release.status === 'committed' ? 'released' : 'already_released');
  };

  const loaded = await load();
  const { projection } = loaded;
  let { group } = loaded;
  const where = coordsOf(projection.repository ?? '');
  if (group.released) return close({ kind: 'nonlaunch', source: 'github_api' }, 'exhausted');
  if (group.state === 'reserved') {
    const recovery = await reservedRecovery(deps.api, projection, dispatchId, deps.cancelReserved === true, deps.grantingRuns);
    report.dispatcher_run = recovery.dispatcherRun;
    report.last_error = recovery.readError;
    // A granting run that could not be read is evidence unavailable (exit 3), not a quiet keep:
    // with credentials that stay broken, a stranded group would otherwise pass every run as fine.
    if (recovery.decision.action === 'keep') return done(recovery.readError === null ? 'reserved' : 'evidence_unavailable', recovery.decision.next);
    try {
      return await close({ kind: 'prelaunch', source: 'trusted_publisher' }, 'prelaunch_cancelled', (s) => checkPrelaunch(s, dispatchId));
    } catch (e) {
      // An explicit cancellation that lost the CAS race is refused; a recovery pass goes on to
      // reconcile the start marker that won (spec 7.8: it may have sent its one POST).
      if (deps.cancelReserved === true || !isProtocolError(e) || e.code !== 'launch_already_started') throw e;
      ({ group } = await load());
      if (group.released) return done('already_released');
    }
  }
  if (group.state === 'rejected') return close({ kind: 'nonlaunch', source: 'github_api' }, 'launch_rejected');
  if (conflictRecorded(group)) {
    // Several possible launches were recorded: released only on exact terminal evidence of
    // every candidate, or bound by an administrator's explicit resolution (conflict-exits.ts).
    const settled = await settleConflict(deps.publisher, deps.api, deps.reconciler, dispatchId, deps.now);
    report.polls = 1;
    report.candidates = settled.candidates.map((c) => ({ run_id: c.run.run_id, reported: c.reported, status: c.run.status, mismatches: c.mismatches }));
    report.open_candidates = settled.open;
    report.last_error = settled.last_error;
    report.commits.push(...settled.commits);
    if (settled.outcome === 'released' || settled.outcome === 'already_released') return done(settled.outcome);
    if (settled.outcome === 'evidence_unavailable') return done('evidence_unavailable', 'restore GitHub API access; the reservation is kept');
    return done('run_binding_conflict', `${CONFLICT_NEXT_ACTION} (still open: ${settled.open.join(', ')}), or an administrator binds one candidate: fairway reconcile --dispatch-id ${dispatchId} --resolve-conflict RUN_ID`);
  }
  if (group.state !== 'bound') {
    const unbound = await reconcileUnbound(deps, dispatchId, where, report, now, opts);
    if ('final' in unbound) {
      return done(unbound.final, unbound.final === 'launch_unresolved' ? UNRESOLVED_NEXT_ACTION
        : unbound.final === 'run_binding_conflict' ? `${CONFLICT_NEXT_ACTION}, or an administrator binds one candidate: fairway reconcile --dispatch-id ${dispatchId} --resolve-conflict RUN_ID`
          : 'inspect the listed runs; the reservation is kept until exact terminal or nonlaunch evidence');
    }
    ({ group } = await load());
  }
  // Bound: only the original attempt's own terminal state releases.
  const runId = (group.run as { run_id: string }).run_id;
  report.run_id = runId;
  let attempt1;
  try {
    attempt1 = await getFirstAttempt(deps.api, where, runId);
  } catch (e) {
    report.last_error = readStatusOf(e);
    return done('evidence_unavailable', 'restore GitHub API access; the reservation is kept');
  }
  if (attempt1.status === 'completed') {
    report.conclusion = attempt1.conclusion ?? 'unknown';
    return close({ kind: 'terminal_run', source: 'github_api', runId, conclusion: attempt1.conclusion ?? 'unknown', completed: true }, 'run_terminal');
  }
  if (deps.cancelRunning === true) report.cancel_requested = (await requestCancel(deps.api, where, runId)) === 'requested';
  return done('running', 'the worker run is queued or running: its slot is kept until GitHub reports it terminal');
}

type UnboundResult = { final: ReconcileEnd } | { bound: string };

/** A final outcome or the new binding. */
async function reconcileUnbound(
  deps: ReconcileDeps, dispatchId: string, where: RepoCoords, report: ReconcileReport, now: () => number, opts: { now?: () => number },
): Promise<UnboundResult> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const { projection } = await deps.publisher.cache.load();
  const group = projection!.dispatch(dispatchId)!;
  const history = dispatchHistory(projection!, dispatchId);
  const pool = configuredPool(projection!.policy, group.pool);
  const maxAttempts = deps.maxPolls ?? pool.reconciliation.max_attempts;
  for (;;) {
    report.polls += 1;
    let candidates: Candidate[];
    try {
      candidates = await launchCandidates(deps.api, projection!, dispatchId);
      report.last_error = null;
    } catch (e) {
      report.last_error = readStatusOf(e);
      candidates = [];
    }
    report.candidates = candidates.map((c) => ({ run_id: c.run.run_id, reported: c.reported, status: c.run.status, mismatches: c.mismatches }));
    // A recorded conflict is final for automation: whatever discovery shows now, no run binds.
    if (conflictRecorded(group)) return { final: 'run_binding_conflict' };
    const decision = report.last_error === null ? decideUnbound(candidates) : { action: 'none' as const };
    if (decision.action === 'bind') {
      report.run_id = decision.runId;
      const t = await publishTransition(deps.publisher, bindRequestId(dispatchId, decision.runId), deps.reconciler, (s, at) => boundTransition(s, dispatchId, decision.runId,
        groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, runId: decision.runId, attempts: report.polls })), { state: 'bound', tolerate: ['already_bound'], ...opts });
      if (t.status === 'committed') report.commits.push(t.commitId);
      return { bound: decision.runId };
    }
    if (decision.action === 'conflict') {
      report.commits.push(...await recordConflict(deps.publisher, deps.reconciler, dispatchId, decision.runIds, report.polls, opts));
      return { final: 'run_binding_conflict' };
    }
    if (decision.action === 'invalid') {
      await uncertain(deps, dispatchId, decision.mismatches[0]!, report, opts);
      return { final: 'run_identity_invalid' };
    }
    if (budgetExhausted({ polls: report.polls, maxAttempts, now: now(), startedAt: history.startedAt ?? history.grantAt, deadlineMs: pool.reconciliation.deadline_ms })) break;
    await sleep(deps.intervalMs ?? 5000);
  }
  await uncertain(deps, dispatchId, 'launch_unbound', report, opts);
  const t = await publishTransition(deps.publisher, unresolvedRequestId(dispatchId), deps.reconciler, (s, at) => unresolvedTransition(s, dispatchId, 'launch_unresolved',
    groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, attempts: report.polls })), { state: 'unresolved', tolerate: ['dispatch_transition_invalid'], ...opts });
  if (t.status === 'committed') report.commits.push(t.commitId);
  return { final: 'launch_unresolved' };
}

async function uncertain(deps: ReconcileDeps, dispatchId: string, reason: string, report: ReconcileReport, opts: { now?: () => number }): Promise<void> {
  const commit = await markUncertain(deps.publisher, deps.reconciler, dispatchId, reason, opts);
  if (commit !== null) report.commits.push(commit);
}
