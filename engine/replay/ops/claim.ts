/**
 * Claim ownership (spec 7.4, 7.8, 7.14): a fair grant opens a logical slot and
 * joins (or opens) its dispatch group; Completion and ClaimCancellation close
 * that slot independently of the group's native reservation.
 */
import { fail } from '../../errors.ts';
import { applyTransition, type ClockTransition } from '../../scheduler/clocks.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { bump, chargeLogical, setWorkState, touch } from '../../state/mutate.ts';
import type { ClaimRecord, WorkRecord } from '../../state/state.ts';
import { executionProfile } from './deployment.ts';
import { poolPolicy } from './policy.ts';
import { repeatsClaimCancellation } from './repeat.ts';

/**
 * Applies one verified Claim: ownership, logical slot, group membership, charge. `superseded`,
 * `classSuperseded`: a later Claim of the same commit moves the same key clock, the class clock
 * (see `applyTransition`).
 */
export function applyClaim(ctx: CommitContext, op: OperationOf<'Claim'>, pool: string, transition: ClockTransition, superseded = false, classSuperseded = false): void {
  const { state, commit } = ctx;
  // The location is built only on failure (one object per Claim otherwise).
  const work = state.works.get(op.work_id);
  if (work === undefined) fail('unknown_work', `Claim names unknown Work ${op.work_id}`, where(ctx));
  if (work.state !== 'available') fail('work_not_available', `Work ${op.work_id} is ${work.state}, not available`, where(ctx));
  if (work.pool !== pool) fail('pool_mismatch', `Work ${op.work_id} belongs to pool ${work.pool}, not ${pool}`, where(ctx));
  if (state.claims.has(op.claim_id)) fail('duplicate_claim', `Claim ${op.claim_id} already exists`, where(ctx));

  let group = state.dispatches.get(op.dispatch_id);
  if (group === undefined) {
    group = {
      dispatchId: op.dispatch_id,
      pool,
      workerProfile: work.workerProfile,
      profile: executionProfile(state, work),
      batchTrustDomain: work.batchTrustDomain,
      claimIds: [],
      commitId: commit.id,
      requestId: commit.request.id,
      policyEpoch: commit.policy_epoch,
      state: 'reserved',
      sender: null,
      run: null,
      released: false,
      releaseCommit: null,
      lifecycleWrites: 0,
      conflict: null,
      reason: null,
    };
    state.dispatches.set(op.dispatch_id, group);
    bump(state.outstandingNative, pool, 1);
  } else if (group.commitId !== commit.id) {
    fail('dispatch_group_closed', `dispatch ${op.dispatch_id} was admitted earlier; groups never grow after their commit`, where(ctx));
  }
  group.claimIds.push(op.claim_id);

  const claim: ClaimRecord = {
    claimId: op.claim_id,
    // The state's own strings (equal to the operation's): a later lookup by them finds its key
    // by identity, and the Claim keeps no copy of them.
    workId: work.workId,
    dispatchId: group.dispatchId,
    handle: op.handle,
    requestId: commit.request.id,
    commitId: commit.id,
    position: { ordinal: ctx.ordinal, operation: ctx.index },
    priority: work.effectivePriority,
    fairnessKey: work.fairnessKey,
    observations: op.observations,
    state: 'open',
    terminalCommitId: null,
    retryNotBefore: null,
    cancelReason: null,
  };
  state.claims.set(op.claim_id, claim);
  state.requests.get(commit.request.id)?.claimIds.push(op.claim_id);
  setWorkState(state, work, 'claimed');
  work.currentClaim = op.claim_id;
  work.claims.push(op.claim_id);
  work.attempts += 1;
  touch(work, commit.id);
  chargeLogical(state, pool, work.fairnessKey, 1);
  applyTransition(state.fairness, transition, superseded, classSuperseded);
}

/** The Claim must be open and still own its Work (the effective Claim). */
function effectiveClaim(ctx: CommitContext, claimId: string, workId: string): { claim: ClaimRecord; work: WorkRecord } {
  const at = where(ctx);
  const claim = ctx.state.claims.get(claimId);
  if (claim === undefined) fail('unknown_claim', `Claim ${claimId} does not exist`, at);
  if (claim.workId !== workId) fail('claim_scope_invalid', `Claim ${claimId} does not own Work ${workId}`, at);
  if (claim.state !== 'open') fail('claim_terminal', `Claim ${claimId} is already ${claim.state}`, at);
  const work = ctx.state.works.get(workId)!;
  return { claim, work };
}

/** A worker's finish must come from the Claim's own immutable scope. */
function checkWorkerScope(ctx: CommitContext, claim: ClaimRecord): void {
  const actor = ctx.commit.actor;
  if (actor.role !== 'worker') return;
  if (actor.dispatch_id !== claim.dispatchId || actor.claim_handle !== claim.handle) {
    fail('claim_scope_invalid', `worker scope ${actor.dispatch_id ?? '-'}/${actor.claim_handle ?? '-'} does not own Claim ${claim.claimId}`, where(ctx));
  }
}

export function applyCompletion(ctx: CommitContext, op: OperationOf<'Completion'>): void {
  const at = where(ctx);
  const { claim, work } = effectiveClaim(ctx, op.claim_id, op.work_id);
  if (work.state !== 'claimed' || work.currentClaim !== claim.claimId) {
    fail('claim_not_effective', `Claim ${claim.claimId} no longer owns Work ${work.workId} (${work.state})`, at);
  }
  if (op.dispatch_id !== claim.dispatchId || op.claim_handle !== claim.handle) {
    fail('claim_scope_invalid', `Completion scope ${op.dispatch_id}/${op.claim_handle} does not match Claim ${claim.claimId}`, at);
  }
  checkWorkerScope(ctx, claim);
  const group = ctx.state.dispatches.get(claim.dispatchId)!;
  const run = group.run as { run_id?: string } | null;
  if (group.state !== 'bound' || run === null) fail('run_binding_missing', `dispatch ${group.dispatchId} has no durable run binding`, at);
  if (run.run_id !== op.run_id) fail('run_binding_conflict', `Completion run ${op.run_id} is not the bound run ${run.run_id}`, at);
  if (ctx.commit.actor.role === 'worker' && ctx.commit.actor.run_id !== op.run_id) {
    fail('run_binding_conflict', 'the worker actor run differs from the Completion run', at);
  }
  claim.state = 'completed';
  claim.terminalCommitId = ctx.commit.id;
  setWorkState(ctx.state, work, 'completed');
  work.barrier = 'pending';
  work.completionCommit = ctx.commit.id;
  work.completionAt = ctx.commit.at;
  touch(work, ctx.commit.id);
  chargeLogical(ctx.state, group.pool, claim.fairnessKey, -1);
}

export function applyClaimCancellation(ctx: CommitContext, op: OperationOf<'ClaimCancellation'>): void {
  const prior = ctx.state.claims.get(op.claim_id);
  if (prior !== undefined && prior.workId === op.work_id && prior.state === 'cancelled') {
    checkWorkerScope(ctx, prior);
    if (repeatsClaimCancellation(ctx, prior, op)) return;
  }
  const { claim, work } = effectiveClaim(ctx, op.claim_id, op.work_id);
  checkWorkerScope(ctx, claim);
  const rnb = op.retry_not_before;
  const group = ctx.state.dispatches.get(claim.dispatchId)!;
  checkPrelaunchCancellation(ctx, op.reason, `Claim ${op.claim_id}`, group);
  checkTrustedBackoff(ctx, op, group.dispatchId, group.pool);
  claim.state = 'cancelled';
  claim.terminalCommitId = ctx.commit.id;
  claim.cancelReason = op.reason;
  claim.retryNotBefore = rnb ?? null;
  chargeLogical(ctx.state, group.pool, claim.fairnessKey, -1);
  if (work.state === 'claimed' && work.currentClaim === claim.claimId) {
    // Retryable: back to available with its original FIFO position (7.14).
    work.currentClaim = null;
    work.retryNotBefore = rnb ?? null;
    setWorkState(ctx.state, work, 'available');
  }
  touch(work, ctx.commit.id);
}

/**
 * Attempt exhaustion (spec 7.4: "At exhaustion, publish WorkCancellation rather than leave an
 * immediately retryable poison head"; 7.15: "Permanent attempt exhaustion must use an explicit
 * trusted WorkCancellation"). Checked once a commit's operations are applied: a ClaimCancellation
 * that returned a Work with no attempt left (`attempts >= retry.max_attempts`) to available,
 * without a WorkCancellation of it in the same commit, is `retry_exhausted`, whichever request
 * carries it (finish, cancel_claim, release), as the reference replayer answers ("exhausted Claim
 * must be followed by explicit WorkCancellation").
 */
export function checkAttemptExhaustion(ctx: CommitContext): void {
  const ops = ctx.commit.operations;
  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    if (op.kind !== 'ClaimCancellation') continue;
    const work = ctx.state.works.get(op.work_id);
    if (work === undefined || work.state !== 'available') continue;
    const max = poolPolicy(ctx, work.pool).retry.max_attempts;
    if (work.attempts < max) continue;
    ctx.index = index;
    fail('retry_exhausted', `Work ${work.workId} used its ${max} attempts: the commit cancelling Claim ${op.claim_id} must also cancel the Work (WorkCancellation)`, where(ctx), {
      work_id: work.workId, attempts: work.attempts, max_attempts: max,
    });
  }
}

/** The reason the trusted publisher's prelaunch cancellation gives its ClaimCancellations. */
const PRELAUNCH_CANCELLED = 'prelaunch_cancelled';

/**
 * Spec 7.8: "once a start marker is committed, prelaunch cancellation is no longer definitive
 * nonlaunch evidence". A ClaimCancellation or fenced WorkCancellation that is part of a
 * prelaunch cancellation (its reason is `prelaunch_cancelled`, or its `release` request releases
 * the group on prelaunch evidence, as the trusted publisher's one-commit close does with an
 * exhausted member's WorkCancellation) is valid only while the group has no start marker: after
 * one it is `launch_already_started` (the loser of the CAS race against the start marker must be
 * rebuilt and refused).
 */
export function checkPrelaunchCancellation(ctx: CommitContext, reason: string, subject: string, group: { dispatchId: string; state: string }): void {
  if (group.state === 'reserved') return;
  const { commit } = ctx;
  const prelaunchRelease = commit.request.kind === 'release'
    && commit.operations.some((o) => o.kind === 'Release' && o.dispatch_id === group.dispatchId && o.evidence.kind === 'prelaunch');
  if (reason === PRELAUNCH_CANCELLED || prelaunchRelease) {
    fail('launch_already_started', `dispatch ${group.dispatchId} is ${group.state}: its start marker rules out a prelaunch cancellation of ${subject}`, where(ctx));
  }
}

/**
 * Trusted retry backoff (spec 7.4 "Failures before Completion MUST use trusted retry backoff",
 * 7.18 "the Work becomes eligible after trusted backoff"): `retry_not_before` is at least the
 * pool's `retry.backoff_ms` after the backoff origin. The origin is the commit's decision time
 * `at`, or, in a `release` request whose Release of this Claim's group carries definitive
 * prelaunch/nonlaunch/terminal-run evidence, that evidence's `checked_at` (as the reference
 * replayer anchors it). A worker's own cancelled finish is additionally pinned to exactly
 * `at + backoff_ms` by finish.ts. A boundary that lets the Work be re-granted sooner (e.g. a
 * zero backoff at `at`), or later than `at + backoff_ms` (a delay no Policy granted), is
 * `retry_invalid`.
 */
function checkTrustedBackoff(ctx: CommitContext, op: OperationOf<'ClaimCancellation'>, dispatchId: string, pool: string): void {
  const { commit } = ctx;
  const retry = poolPolicy(ctx, pool).retry;
  let origin = commit.at;
  if (commit.request.kind === 'release') {
    for (const other of commit.operations) {
      if (other.kind !== 'Release' || other.dispatch_id !== dispatchId) continue;
      const kind = other.evidence.kind;
      if (kind === 'prelaunch' || kind === 'nonlaunch' || kind === 'terminal_run') origin = Math.min(origin, other.evidence.checked_at);
    }
  }
  const earliest = origin + retry.backoff_ms;
  if (!Number.isSafeInteger(earliest) || op.retry_not_before < earliest) {
    fail('retry_invalid', `retry_not_before ${op.retry_not_before} is earlier than the trusted backoff boundary ${earliest} (origin ${origin} + backoff_ms ${retry.backoff_ms})`, where(ctx), {
      retry_not_before: op.retry_not_before, earliest, origin, backoff_ms: retry.backoff_ms,
    });
  }
  // Bounded (spec 7.18 "bounded retry/backoff"): no later than the decision time plus the
  // Policy's backoff, the boundary every trusted writer uses (lifecycle/release.ts, a worker's
  // finish), so a cancelling record cannot hold the Work out of the fair order indefinitely.
  const latest = commit.at + retry.backoff_ms;
  if (op.retry_not_before > latest) {
    fail('retry_invalid', `retry_not_before ${op.retry_not_before} is later than the trusted backoff boundary ${latest} (at ${commit.at} + backoff_ms ${retry.backoff_ms})`, where(ctx), {
      retry_not_before: op.retry_not_before, latest, at: commit.at, backoff_ms: retry.backoff_ms,
    });
  }
}
