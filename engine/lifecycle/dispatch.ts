/**
 * `dispatch` request generation (spec 7.8): the start marker with its single sender, the
 * binding of the actual worker run, uncertainty, the unresolved outcome of an exhausted
 * reconciliation budget, and definitive rejection. Each builder checks the group's current
 * state first for a clear error; replay (`ops/dispatch.ts`) decides admissibility again.
 */
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { isReasonCode } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { DispatchRecord } from '../state/state.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import type { Actor } from '../schema/index.ts';
import { conflictReceipt, isConflicted, RUN_BINDING_CONFLICT } from '../replay/ops/conflict.ts';
import { exhaustedMember } from '../replay/ops/dispatch.ts';
import { runBinding } from './run-identity.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export function dispatchGroup(source: QueueSource, dispatchId: string): DispatchRecord {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (group.released) fail('dispatch_released', `dispatch ${dispatchId} was already released`);
  return group;
}

function reason(code: string): string {
  if (!isReasonCode(code)) fail('reason_invalid', `${JSON.stringify(code)} is not a sanitized reason code`);
  return code;
}

function op(dispatchId: string, fields: JsonObject): BuiltRequest {
  return operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, ...fields }]);
}

/**
 * Dispatch(started): CAS-selects this publisher as the group's one sender. Valid only on
 * a reserved group while grants are not paused (spec 7.10: checked for start markers too).
 */
export function startMarker(source: QueueSource, dispatchId: string, sender: Actor): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (group.state !== 'reserved') fail('launch_already_started', `dispatch ${dispatchId} is ${group.state}: its one sender was already selected`);
  if (state.controls.grants_paused) fail('grants_paused', 'grants are paused: no new start marker may be recorded');
  if (sender.role !== 'dispatcher') fail('sender_role_invalid', `a start marker's sender is a dispatcher, not a ${sender.role}`);
  if (sender.workflow === undefined || sender.run_id === undefined || sender.run_attempt === undefined) {
    fail('sender_run_missing', 'a start marker selects one authenticated sender run (spec 7.8): the sender must name its workflow, run_id and run_attempt');
  }
  const exhausted = exhaustedMember(state, group);
  if (exhausted !== null) fail('group_closing', `dispatch ${dispatchId}'s Claim ${exhausted} was cancelled for attempt exhaustion: its closing began; reconcile releases it`);
  return op(dispatchId, { state: 'started', sender: sender as unknown as JsonObject });
}

/** The reason a recorded run binding conflict carries (spec 7.8, §8.2 "Launch recovery"). */
export { conflictReceipt, conflictRunIds, RUN_BINDING_CONFLICT } from '../replay/ops/conflict.ts';

/**
 * True once the ledger recorded several possible launches of this group: no run can bind it
 * afterwards (neither run gets the Claims' authority) and its capacity stays reserved.
 */
export function conflictRecorded(group: DispatchRecord): boolean {
  return isConflicted(group);
}

/**
 * Dispatch(unresolved, run_binding_conflict): several possible launches were discovered. The
 * evidence names the first run and, in its receipt, every candidate; the reservation stays.
 */
export function conflictTransition(source: QueueSource, dispatchId: string, runIds: readonly string[], evidence: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (conflictRecorded(group)) fail('dispatch_transition_invalid', `dispatch ${dispatchId} already records a run binding conflict`);
  if (group.state !== 'uncertain' && group.state !== 'unresolved') fail('dispatch_transition_invalid', `dispatch ${dispatchId} is ${group.state}, not uncertain or unresolved`);
  if (runIds.length < 2) fail('internal_error', 'a run binding conflict names at least two runs');
  return op(dispatchId, { state: 'unresolved', reason: RUN_BINDING_CONFLICT, evidence: { ...evidence, run_id: runIds[0]!, run_attempt: 1, receipt: conflictReceipt(runIds) } });
}

/** How a proposed binding relates to the group's current one. */
export function bindingStatus(group: DispatchRecord, runId: string): 'unbound' | 'same' | 'conflict' {
  const bound = (group.run as { run_id?: string } | null)?.run_id;
  if (group.state !== 'bound' || bound === undefined) return 'unbound';
  return bound === runId ? 'same' : 'conflict';
}

/** Dispatch(bound) to the validated original attempt of `runId`, with its evidence. */
export function boundTransition(source: QueueSource, dispatchId: string, runId: string, evidence: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  const status = bindingStatus(group, runId);
  if (status === 'same') fail('already_bound', `dispatch ${dispatchId} is already bound to run ${runId}`);
  if (status === 'conflict') fail('run_binding_conflict', `dispatch ${dispatchId} is bound to another run; run ${runId} gets no authority`);
  if (conflictRecorded(group)) fail('run_binding_conflict', `dispatch ${dispatchId} recorded a run binding conflict: run ${runId} gets no authority`);
  if (group.state === 'reserved') fail('launch_marker_missing', `dispatch ${dispatchId} has no start marker: no run can be bound to it`);
  if (group.state === 'rejected') fail('launch_rejected', `dispatch ${dispatchId} was definitively rejected`);
  const run = runBinding(group, state.repository ?? '', runId);
  if (canonicalize((evidence.run_id ?? null) as never) !== canonicalize(runId)) fail('evidence_invalid', 'binding evidence must name the bound run');
  return op(dispatchId, { state: 'bound', run, evidence });
}

/** Dispatch(uncertain): a possible launch whose outcome is unknown; keeps the reservation. */
export function uncertainTransition(source: QueueSource, dispatchId: string, why: string, evidence?: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (group.state !== 'started') fail('dispatch_transition_invalid', `dispatch ${dispatchId} is ${group.state}, not started`);
  return op(dispatchId, { state: 'uncertain', reason: reason(why), ...(evidence === undefined ? {} : { evidence }) });
}

/** Dispatch(unresolved): the reconciliation budget ended without binding or nonlaunch proof. */
export function unresolvedTransition(source: QueueSource, dispatchId: string, why: string, evidence: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (group.state !== 'uncertain') fail('dispatch_transition_invalid', `dispatch ${dispatchId} is ${group.state}, not uncertain`);
  return op(dispatchId, { state: 'unresolved', reason: reason(why), evidence });
}

/** Dispatch(rejected): definitive nonlaunch evidence (the host refused the one POST). */
export function rejectedTransition(source: QueueSource, dispatchId: string, why: string, evidence: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (!['started', 'uncertain', 'unresolved'].includes(group.state)) fail('dispatch_transition_invalid', `dispatch ${dispatchId} is ${group.state}`);
  // Replay refuses it too (ops/dispatch.ts): candidate runs were seen, nonlaunch evidence cannot account for them.
  if (conflictRecorded(group)) fail('run_binding_conflict', `dispatch ${dispatchId} recorded a run binding conflict: it cannot be rejected as a nonlaunch`);
  if (evidence.kind !== 'nonlaunch') fail('evidence_invalid', 'a rejection carries nonlaunch evidence');
  return op(dispatchId, { state: 'rejected', reason: reason(why), evidence });
}

/**
 * The first exit of a recorded conflict (spec 7.8 "verify exact terminal evidence" for "every
 * possible launch"): one `dispatch` request recording the exact terminal evidence of each
 * candidate not recorded yet (a possible launch discovered later joins the candidates this
 * way). The Release that follows is admissible only once every candidate has it.
 */
export function candidateTerminalRequest(source: QueueSource, dispatchId: string, evidences: readonly JsonObject[]): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (!conflictRecorded(group)) fail('dispatch_transition_invalid', `dispatch ${dispatchId} records no run binding conflict`);
  const recorded = new Set(group.conflict?.terminal ?? []);
  const fresh = evidences.filter((e) => !recorded.has(String(e.run_id)));
  if (fresh.length === 0) fail('nothing_to_record', `every candidate of ${dispatchId} already has recorded terminal evidence`);
  for (const e of fresh) if (e.kind !== 'terminal_run' || e.status !== 'completed') fail('internal_error', 'candidate terminal evidence is exact terminal_run evidence');
  return operationsRequest('dispatch', fresh.map((evidence) => ({ kind: 'Dispatch', dispatch_id: dispatchId, state: 'unresolved', reason: RUN_BINDING_CONFLICT, evidence })));
}

/**
 * The second exit, an operator's explicit reconciliation: an administrator's `control`
 * request binding one candidate the conflict named, with that run's validated binding
 * evidence. The group then follows that run (released only on its exact terminal evidence).
 */
export function resolutionRequest(source: QueueSource, dispatchId: string, runId: string, evidence: JsonObject): BuiltRequest {
  const state = stateOf(source);
  const group = dispatchGroup(state, dispatchId);
  if (!conflictRecorded(group)) fail('conflict_resolution_invalid', `dispatch ${dispatchId} records no run binding conflict to resolve (${group.state})`);
  const candidates = group.conflict?.runs ?? [];
  if (!candidates.includes(runId)) fail('conflict_resolution_invalid', `run ${runId} is not a candidate of dispatch ${dispatchId}'s conflict (${candidates.join(', ')})`, {}, { candidates });
  if (canonicalize((evidence.run_id ?? null) as never) !== canonicalize(runId)) fail('evidence_invalid', 'resolution evidence must name the bound run');
  const run = runBinding(group, state.repository ?? '', runId);
  return operationsRequest('control', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'bound', run, evidence, reason: 'operator_resolved' }]);
}
