/**
 * Native dispatch lifecycle (spec 7.8): one start marker and sender per group,
 * a binding to the original run attempt, uncertainty that keeps the
 * reservation, and exactly one Release with termination or nonlaunch evidence
 * (the evidence rules by launch state are in `evidence.ts`).
 */
import { sameJson } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { bump } from '../../state/mutate.ts';
import type { DispatchRecord, DispatchState, ReplayState } from '../../state/state.ts';

import { checkConflictRelease, checkResolution, isCandidateTerminal, isConflicted, isResolution, recordCandidateTerminal, recordConflict, RUN_BINDING_CONFLICT } from './conflict.ts';
import { checkBindingEvidence, checkRejectionEvidence, checkReleaseEvidence } from './evidence.ts';

/** Allowed predecessor states of each Dispatch state. */
const FROM: Readonly<Record<Exclude<DispatchState, 'reserved'>, readonly DispatchState[]>> = {
  started: ['reserved'],
  bound: ['started', 'uncertain', 'unresolved'],
  uncertain: ['started'],
  unresolved: ['uncertain'],
  rejected: ['started', 'uncertain', 'unresolved'],
};

function group(ctx: CommitContext, dispatchId: string): DispatchRecord {
  const found = ctx.state.dispatches.get(dispatchId);
  if (found === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} was never granted`, where(ctx));
  return found;
}

export function applyDispatch(ctx: CommitContext, op: OperationOf<'Dispatch'>): void {
  const at = where(ctx);
  const g = group(ctx, op.dispatch_id);
  if (g.released) fail('dispatch_released', `dispatch ${g.dispatchId} was already released`, at);
  if (op.state === 'bound' && g.state === 'bound') {
    if (sameJson(op.run as unknown as JsonObject, g.run!)) fail('duplicate_binding', `dispatch ${g.dispatchId} is already bound to this run`, at);
    fail('run_binding_conflict', `dispatch ${g.dispatchId} is already bound to another run`, at);
  }
  // Spec 7.8, §8.2 "Launch recovery": once several possible launches are recorded, neither
  // run may bind the group (a bind after the recorded conflict), and the conflict stays recorded
  // until its exits (ops/conflict.ts): every candidate's exact terminal evidence, or an
  // administrator's resolution in a `control` request binding one named candidate.
  const conflicted = isConflicted(g);
  const resolution = isResolution(ctx);
  if (resolution) checkResolution(ctx, g, op);
  if (conflicted && op.state === 'bound' && !resolution) {
    fail('run_binding_conflict', `dispatch ${g.dispatchId} recorded a run binding conflict: run ${op.run?.run_id ?? '(none)'} gets no authority`, at);
  }
  // Candidate runs were seen: nonlaunch evidence cannot account for them (§8.2 "Launch recovery").
  if (conflicted && op.state === 'rejected') {
    fail('run_binding_conflict', `dispatch ${g.dispatchId} recorded a run binding conflict: it cannot be rejected as a nonlaunch; it leaves only on every candidate's exact terminal evidence or an administrator's resolution`, at);
  }
  if (isCandidateTerminal(g, op)) {
    recordCandidateTerminal(ctx, g, op);
    g.lifecycleWrites += 1;
    return;
  }
  const newConflict = op.state === 'unresolved' && op.reason === RUN_BINDING_CONFLICT && !conflicted;
  if (newConflict) recordConflict(ctx, g, op);
  if (!FROM[op.state].includes(g.state) && !(newConflict && g.state === 'unresolved')) {
    fail('dispatch_transition_invalid', `dispatch ${g.dispatchId} cannot go from ${g.state} to ${op.state}`, at);
  }
  // Spec 7.8: "Record Dispatch(started) once for that group before the single API call". A
  // binding, uncertainty or rejection is what that call caused: it cannot share the commit that
  // makes the marker durable (the call would have been sent before the marker won its CAS).
  if (g.state === 'started' && startedEarlierInCommit(ctx, g.dispatchId)) {
    fail('dispatch_transition_invalid', `dispatch ${g.dispatchId} cannot go from started to ${op.state} in the commit that records its start marker: the single send follows a durable marker`, at);
  }
  // Spec 7.8: "record Dispatch(uncertain) with a sanitized reason code"; "report launch_unresolved
  // with the last evidence and next operator action".
  if ((op.state === 'uncertain' || op.state === 'unresolved') && op.reason === undefined) {
    fail('reason_required', `Dispatch(${op.state}) of ${g.dispatchId} records why, as a sanitized reason code`, at);
  }
  if (op.state === 'unresolved' && op.evidence === undefined) {
    fail('evidence_invalid', `Dispatch(unresolved) of ${g.dispatchId} reports the last evidence reconciliation read`, at, { field: 'evidence' });
  }
  if (op.state === 'rejected') checkRejectionEvidence(ctx, g, op.evidence);
  if (op.state === 'started') {
    if (ctx.state.controls.grants_paused) fail('grants_paused', 'grants are paused: no new start marker may be recorded', at);
    if (op.sender === undefined) fail('sender_required', 'a start marker names its single sender', at);
    if (!sameJson(op.sender as unknown as JsonObject, ctx.commit.actor as unknown as JsonObject)) {
      fail('sender_mismatch', 'the start marker sender must be the publishing actor', at);
    }
    checkSenderRun(op.sender, at);
    const exhausted = exhaustedMember(ctx.state, g);
    if (exhausted !== null) {
      fail('group_closing', `dispatch ${g.dispatchId}'s Claim ${exhausted} was cancelled for attempt exhaustion: its closing began, so only its Release may follow, not a start marker`, at, { claim_id: exhausted });
    }
    g.sender = op.sender as unknown as JsonObject;
  }
  if (op.state === 'bound') {
    if (op.run === undefined) fail('run_required', 'a bound Dispatch carries its run binding', at);
    const profile = g.profile;
    const run = op.run;
    if (run.workflow !== profile.workflow || run.ref !== profile.ref || run.principal !== profile.principal) {
      fail('run_binding_invalid', `run ${run.run_id} does not match the frozen approved profile (workflow, ref, principal)`, at);
    }
    if (ctx.state.repository !== null && run.repository !== ctx.state.repository) {
      fail('run_binding_invalid', `run ${run.run_id} belongs to ${run.repository}, not the queue repository`, at);
    }
    // Spec 7.8: "Bind the actual worker run, not the dispatcher's run" (8.1: releasing an unbound
    // launch on the dispatcher's terminal run is rejected); one native run binds one group.
    if ((g.sender as { run_id?: unknown } | null)?.run_id === run.run_id) {
      fail('run_binding_invalid', `run ${run.run_id} is the dispatcher run that sent dispatch ${g.dispatchId}'s start marker, not its worker run`, at);
    }
    const holder = ctx.state.boundRuns.get(run.run_id);
    if (holder !== undefined && holder !== g.dispatchId) fail('run_binding_conflict', `run ${run.run_id} is already bound to dispatch ${holder}: one native run binds one group`, at);
    checkBindingEvidence(ctx, run, op.evidence);
    g.run = run as unknown as JsonObject;
    ctx.state.boundRuns.set(run.run_id, g.dispatchId);
  }
  g.state = op.state;
  // A resolution's binding ends the conflict state (its candidate list stays for the record).
  g.reason = op.reason ?? (resolution ? null : g.reason);
  g.lifecycleWrites += 1;
}

/** Whether an operation before the current one in this commit records `dispatchId`'s start marker. */
function startedEarlierInCommit(ctx: CommitContext, dispatchId: string): boolean {
  const ops = ctx.commit.operations;
  for (let i = 0; i < ctx.index; i++) {
    const o = ops[i]!;
    if (o.kind === 'Dispatch' && o.dispatch_id === dispatchId && o.state === 'started') return true;
  }
  return false;
}

/**
 * Spec 7.8: a reserved group is either started ("CAS-commit a start marker and send once") or
 * closed ("commit definitive prelaunch cancellation and cancel still-open Claims/release
 * atomically"), never both. Attempt exhaustion is a step of closing ("cancel still-open Claims
 * with backoff/attempt exhaustion handling, and release once"), and the trusted publisher
 * commits it inside the group's `release`; a member Claim already cancelled for attempt
 * exhaustion (`attempts_exhausted`) means the group's closing began, so a start marker after it
 * is `group_closing`: it would launch a group whose last-attempt Work is already cancelled.
 * Returns that Claim's id, or null.
 */
export function exhaustedMember(state: ReplayState, g: DispatchRecord): string | null {
  for (const id of g.claimIds) {
    const claim = state.claims.get(id);
    if (claim?.state === 'cancelled' && claim.cancelReason === ATTEMPTS_EXHAUSTED) return id;
  }
  return null;
}

/** The reason of a WorkCancellation of a Work with no attempt left (spec 7.4). */
export const ATTEMPTS_EXHAUSTED = 'attempts_exhausted';

/**
 * Spec 7.8: "Recording Dispatch(started) atomically selects one trusted sender run/attempt for
 * the group". The sender is a dispatcher naming its own authenticated workflow run (workflow,
 * run_id, run_attempt), as the reference replayer requires; a marker without one selects no
 * sender run (`sender_run_missing`), a non-dispatcher sender is `sender_role_invalid`.
 */
function checkSenderRun(sender: { role: string; workflow?: string; run_id?: string; run_attempt?: number }, at: ReturnType<typeof where>): void {
  if (sender.role !== 'dispatcher') fail('sender_role_invalid', `a start marker's sender is a dispatcher, not a ${sender.role}`, at);
  if (sender.workflow === undefined || sender.run_id === undefined || sender.run_attempt === undefined) {
    fail('sender_run_missing', 'a start marker selects one authenticated sender run: its sender names workflow, run_id and run_attempt', at);
  }
}

export function applyRelease(ctx: CommitContext, op: OperationOf<'Release'>): void {
  const at = where(ctx);
  const g = group(ctx, op.dispatch_id);
  if (g.released) fail('already_released', `dispatch ${g.dispatchId} was already released`, at);
  // A recorded conflict: exact terminal evidence of every candidate run (ops/conflict.ts).
  if (isConflicted(g) && g.conflict !== null) checkConflictRelease(ctx, g, op.evidence);
  else checkReleaseEvidence(ctx, g, op.evidence);
  const open = g.claimIds.filter((id) => ctx.state.claims.get(id)?.state === 'open');
  if (open.length > 0) fail('claims_open', `release of ${g.dispatchId} leaves open Claims: ${open.join(', ')}`, at);
  g.released = true;
  g.releaseCommit = ctx.commit.id;
  g.lifecycleWrites += 1;
  bump(ctx.state.outstandingNative, g.pool, -1);
}
