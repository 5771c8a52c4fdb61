/**
 * The derived launch state of a dispatch group (spec 7.8 state diagram) and an
 * operator view of it: reserved, started, bound, uncertain, unresolved, rejected or
 * released, with each member Claim's finish and delivery barrier (7.14, 7.15).
 */
import { fail } from '../errors.ts';
import type { Projection } from '../replay/index.ts';
import type { DispatchRecord } from '../state/state.ts';
import { conflictRecorded } from './dispatch.ts';
import { dispatchHistory } from './history.ts';
import { releaseRequestId } from './ids.ts';

export type LaunchState = 'reserved' | 'started' | 'bound' | 'uncertain' | 'unresolved' | 'rejected' | 'released';

export function launchState(group: DispatchRecord): LaunchState {
  return group.released ? 'released' : group.state;
}

export interface MemberView {
  claim_id: string;
  handle: string;
  work_id: string;
  claim: string;
  /** Why a cancelled Claim closed (worker_cancelled, run_terminal, prelaunch_cancelled, ...); null otherwise. */
  cancel_reason: string | null;
  work: string;
  barrier: string;
}

export interface LaunchView {
  dispatch_id: string;
  state: LaunchState;
  /** The last recorded Dispatch state, also after release. */
  dispatch_state: string;
  pool: string;
  worker_profile: string;
  workflow: string;
  ref: string;
  principal: string;
  request_id: string;
  grant_commit: string;
  started_at: number | null;
  run_id: string | null;
  reported_run_ids: string[];
  /** Every run a recorded run binding conflict named (none without a recorded conflict). */
  conflict_run_ids: string[];
  /** Candidates whose exact terminal evidence is recorded. */
  conflict_terminal_run_ids: string[];
  /** Candidates the conflict's receipt could not name. */
  conflict_unnamed_runs: number;
  /** True while the conflict holds (no operator resolution or release yet). */
  conflict_open: boolean;
  reason: string | null;
  release_commit: string | null;
  claims: MemberView[];
  /**
   * `conclusion`: the worker run's native conclusion that a Release's exact terminal evidence
   * recorded (spec 7.18: shown apart from each Claim's durable outcome); null otherwise. Like every
   * event, it stays with the commits a checkpoint replaced (the prior Git commit keeps them).
   */
  events: Array<{ commit_id: string; at: number; role: string; state: string; reason: string | null; run_id: string | null; conclusion: string | null }>;
}

/** The native conclusion a Release event's exact terminal evidence names. */
function conclusionOf(evidence: { kind?: unknown; conclusion?: unknown } | null): string | null {
  return evidence?.kind === 'terminal_run' && typeof evidence.conclusion === 'string' ? evidence.conclusion : null;
}

export function launchView(projection: Projection, dispatchId: string): LaunchView {
  const group = projection.dispatch(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const history = dispatchHistory(projection, dispatchId);
  return {
    dispatch_id: dispatchId,
    state: launchState(group),
    dispatch_state: group.state,
    pool: group.pool,
    worker_profile: group.workerProfile,
    workflow: String(group.profile.workflow),
    ref: String(group.profile.ref),
    principal: String(group.profile.principal),
    request_id: group.requestId,
    grant_commit: group.commitId,
    started_at: history.startedAt,
    run_id: (group.run as { run_id?: string } | null)?.run_id ?? null,
    reported_run_ids: history.reportedRunIds,
    // From the group's state, so a checkpoint keeps them (also after an operator's resolution).
    conflict_run_ids: group.conflict?.runs ?? [],
    conflict_terminal_run_ids: group.conflict?.terminal ?? [],
    conflict_unnamed_runs: group.conflict?.unnamed ?? 0,
    conflict_open: conflictRecorded(group) && !group.released,
    reason: group.reason,
    release_commit: releaseCommitOf(projection, group),
    claims: group.claimIds.map((id) => {
      const claim = projection.claim(id)!;
      const work = projection.work(claim.workId)!;
      const owns = work.currentClaim === claim.claimId;
      return { claim_id: id, handle: claim.handle, work_id: claim.workId, claim: claim.state, cancel_reason: claim.cancelReason, work: work.state, barrier: owns ? work.barrier : 'none' };
    }),
    events: history.events.map((e) => ({ commit_id: e.commitId, at: e.at, role: e.role, state: e.state, reason: e.reason, run_id: e.runId, conclusion: conclusionOf(e.evidence) })),
  };
}

/** Where a group's launch events that no ledger reached retains are: the ledger at a checkpoint's prior Git commit. */
export interface CompactedLaunchEvents {
  /** The group's grant commit, which the oldest ledger reached compacted away. */
  commit: string;
  /** That ledger's checkpoint root. */
  checkpoint: string;
  prior_git_sha: string;
}

/**
 * The commit of a group's Release, or null. After compaction the checkpoint keeps `released` but
 * not the Release's commit: Fairway's one Release request names it (a reference-written Release
 * is found only in the ledger the checkpoint replaced, `launchViewAcross`).
 */
export function releaseCommitOf(projection: Projection, group: DispatchRecord): string | null {
  return group.releaseCommit ?? (group.released ? projection.request(releaseRequestId(group.dispatchId))?.commitId ?? null : null);
}

/**
 * A group's view over the ledgers that hold its history: `ledgers` oldest first, the current one
 * last, each earlier one the ledger its successor's checkpoint replaced (spec 7.10: the prior Git
 * commit retains earlier evidence). A checkpoint keeps the group's state, not its Dispatch and
 * Release records, and a foreign writer's request ids are not our stable start/release ids, so
 * those come from the ledger that recorded them: the state is the current ledger's; the events are
 * every ledger's in causal order; the start time, reported runs and Release commit are the first
 * ones recorded. `compacted` says where the earlier events are when the oldest ledger reached
 * compacted away the grant itself.
 */
export function launchViewAcross(ledgers: readonly Projection[], dispatchId: string): LaunchView & { compacted?: CompactedLaunchEvents } {
  const views = ledgers.map((l) => launchView(l, dispatchId));
  const current = views[views.length - 1]!;
  if (views.length === 1 && ledgers[0]!.checkpoint === undefined) return current;
  const view: LaunchView = {
    ...current,
    started_at: views.find((v) => v.started_at !== null)?.started_at ?? null,
    reported_run_ids: [...new Set(views.flatMap((v) => v.reported_run_ids))],
    release_commit: current.release_commit ?? views.find((v) => v.release_commit !== null)?.release_commit ?? null,
    events: views.flatMap((v) => v.events),
  };
  const oldest = ledgers[0]!;
  if (oldest.checkpoint === undefined || oldest.commitText(current.grant_commit) !== undefined) return view;
  return { ...view, compacted: { commit: current.grant_commit, checkpoint: oldest.commits[0]!.id, prior_git_sha: oldest.checkpoint.priorGitSha } };
}
