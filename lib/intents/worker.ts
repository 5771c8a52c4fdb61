/**
 * Worker settlement (spec 7.14 "Individual finalization and effects"): each
 * original member is settled on its own, in its own commit, in assignment
 * order:
 *
 * 1. its finish intent publishes Completion or ClaimCancellation (finish
 *    builder shared with the lifecycle path); at wrap-up an effective Claim
 *    with no finish intent is cancelled, never completed;
 * 2. its worker-generated queue controls (submit, dispatch_next) pass the
 *    per-Claim effect gate first: this Claim's verified Completion, the valid
 *    run binding and a pending delivery barrier. Otherwise they are reported
 *    `suppressed` and nothing is written. An already committed control replays
 *    its receipt without new authority.
 *
 * A globally invalid binding fails the entire worker. A scope error on one
 * message never rolls back or blocks another member.
 */
import { fail, ProtocolError } from '../../engine/errors.ts';
import { authorizeClaimEffect, requireRunBinding } from '../../engine/intents/effects.ts';
import { finishRequestId } from '../../engine/identity/index.ts';
import type { ClaimScope } from '../../engine/intents/scope.ts';
import type { AssignmentClaim, WorkerAssignment } from '../../engine/intents/assignment.ts';
import { workerActor } from '../../engine/lifecycle/finish.ts';
import { publishFinish } from '../publisher/requests.ts';
import type { IntentReceipt } from './receipts.ts';
import { rejected, type Checked, type Session } from './session.ts';
import { debugEvent } from '../debug/log.ts';

function finishOf(scope: ClaimScope, outcome: 'completed' | 'cancelled') {
  return { dispatch_id: scope.dispatch_id, claim_handle: scope.claim_handle, outcome };
}

function memberScope(assignment: WorkerAssignment, member: AssignmentClaim): ClaimScope {
  return { dispatch_id: assignment.dispatch_id, claim_handle: member.handle, claim_id: member.claim_id, work_id: member.work_id, resolution: 'explicit' };
}

async function finish(s: Session, c: Checked, runId: string): Promise<IntentReceipt> {
  if (c.intent.tool !== 'work_queue_claim_finish') fail('intent_invalid', 'not a finish intent');
  const { scope, input } = c.intent;
  const requestId = finishRequestId(scope.dispatch_id, scope.claim_handle);
  const receipt = { ...s.base(c.record, requestId, scope), outcome: input.outcome };
  try {
    const live = await s.live();
    if (live === null) fail('queue_uninitialized', 'the queue disappeared');
    const outcome = await publishFinish(s.o.publisher, { requestId, actor: workerActor(live, scope.dispatch_id, runId, scope.claim_handle), finish: finishOf(scope, input.outcome) });
    return s.settled(receipt, outcome);
  } catch (e) {
    return rejected(c.record, e, { request_id: requestId, outcome: input.outcome });
  }
}

/** Wrap-up: cancel this effective Claim only (no implicit completion or effects). */
async function wrapUp(s: Session, scope: ClaimScope, runId: string): Promise<IntentReceipt | null> {
  const live = await s.live();
  if (live?.claim(scope.claim_id)?.state !== 'open') return null;
  const requestId = finishRequestId(scope.dispatch_id, scope.claim_handle);
  const receipt: IntentReceipt = {
    intent_id: null, seq: null, tool: 'work_queue_claim_finish', status: 'committed', request_id: requestId,
    claim_handle: scope.claim_handle, claim_id: scope.claim_id, outcome: 'cancelled', wrap_up: true,
  };
  try {
    const outcome = await publishFinish(s.o.publisher, { requestId, actor: workerActor(live, scope.dispatch_id, runId, scope.claim_handle), finish: finishOf(scope, 'cancelled') });
    return { ...receipt, status: outcome.replayed ? 'replayed' : 'committed', commit_id: outcome.commitId };
  } catch (e) {
    return rejected(null, e, { ...receipt });
  }
}

async function control(s: Session, c: Checked, runId: string): Promise<IntentReceipt> {
  const scope = c.intent.scope!;
  const kind = c.intent.tool === 'work_queue_submit' ? 'submit' : 'dispatch_next';
  const requestId = s.requestId(c.record, kind);
  const live = await s.live();
  if (live !== null && live.request(requestId) === undefined) {
    try {
      authorizeClaimEffect(live, scope, s.snapshot.native_run);
      debugEvent('effects', 'gate', { authorized: true });
    } catch (e) {
      debugEvent('effects', 'gate', { authorized: false });
      return { ...rejected(c.record, e, { request_id: requestId }), status: 'suppressed' };
    }
  }
  const actor = workerActor(live!, scope.dispatch_id, runId, scope.claim_handle);
  return kind === 'submit' ? s.submit(c, actor) : s.dispatch(c, actor);
}

/** The request id an intent publishes under (a finish's is its Claim's, a control's its intent's). */
function requestIdOf(s: Session, c: Checked): string {
  const scope = c.intent.scope!;
  if (c.intent.tool === 'work_queue_claim_finish') return finishRequestId(scope.dispatch_id, scope.claim_handle);
  return s.requestId(c.record, c.intent.tool === 'work_queue_submit' ? 'submit' : 'dispatch_next');
}

export async function settleWorker(s: Session, checked: readonly Checked[], options: { wrapUp: boolean }): Promise<IntentReceipt[]> {
  const assignment = s.o.loaded.assignment!;
  let runId: string;
  try {
    const live = await s.live();
    if (live === null) fail('queue_uninitialized', 'the worker queue does not exist');
    runId = requireRunBinding(live, assignment.dispatch_id, s.snapshot.native_run).run_id;
  } catch (e) {
    // Spec 7.14: "an already accepted logical request remains recoverable without republishing or
    // granting new authority". After this run's group was released, its committed finishes and
    // controls replay their receipts (this run's own binding, as recorded); only new ones are refused.
    const live = await s.live();
    const recorded = (live?.dispatch(assignment.dispatch_id)?.run as { run_id?: string } | null | undefined)?.run_id;
    // Only the original attempt of the bound run: attempt N never inherits attempt 1's authority.
    const native = s.snapshot.native_run;
    if (live === null || recorded === undefined || recorded !== native?.run_id || native.run_attempt !== 1) return checked.map((c) => rejected(c.record, e));
    const receipts: IntentReceipt[] = [];
    for (const c of checked) {
      if (live.request(requestIdOf(s, c)) === undefined) receipts.push(rejected(c.record, e));
      else receipts.push(c.intent.tool === 'work_queue_claim_finish' ? await finish(s, c, recorded) : await control(s, c, recorded));
    }
    return receipts;
  }
  const receipts: IntentReceipt[] = [];
  for (const member of assignment.claims) {
    const mine = checked.filter((c) => c.intent.scope?.claim_handle === member.handle);
    const finishes = mine.filter((c) => c.intent.tool === 'work_queue_claim_finish');
    // Spec 7.14: conflicting outcomes for one Claim fail explicitly, whichever file sorts first
    // (staging refuses the second one; a planted pair is refused whole, as staging would have).
    const outcomeOf = (c: Checked): 'completed' | 'cancelled' => (c.intent.input as { outcome: 'completed' | 'cancelled' }).outcome;
    const outcomes = new Set(finishes.map(outcomeOf));
    if (outcomes.size > 1) {
      const live = await s.live();
      const committed = live?.request(finishRequestId(assignment.dispatch_id, member.handle)) !== undefined;
      if (!committed) {
        for (const c of finishes) receipts.push(rejected(c.record, new ProtocolError('finish_conflict', `Claim ${member.handle} has finish intents with different outcomes (${[...outcomes].sort().join(', ')}): none is published`), { request_id: requestIdOf(s, c), outcome: outcomeOf(c) }));
        // At wrap-up the Claim is left as if it had no finish: cancelled, never completed.
        if (options.wrapUp) {
          const cancelled = await wrapUp(s, memberScope(assignment, member), runId);
          if (cancelled !== null) receipts.push(cancelled);
        }
        for (const c of mine.filter((m) => m.intent.tool !== 'work_queue_claim_finish')) receipts.push(await control(s, c, runId));
        continue;
      }
    }
    for (const c of finishes) receipts.push(await finish(s, c, runId));
    if (finishes.length === 0 && options.wrapUp) {
      const cancelled = await wrapUp(s, memberScope(assignment, member), runId);
      if (cancelled !== null) receipts.push(cancelled);
    }
    for (const c of mine.filter((m) => m.intent.tool !== 'work_queue_claim_finish')) receipts.push(await control(s, c, runId));
  }
  return receipts;
}
