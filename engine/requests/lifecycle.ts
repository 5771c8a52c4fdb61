/**
 * Lifecycle operation builders (spec 7.8 dispatch and release, 7.15 barriers,
 * 7.16 observations, 7.10 controls). They produce closed wire objects from the
 * projection's facts; replay decides whether they are admissible.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { OperationOf } from '../replay/context.ts';
import { observationIncoherence } from '../replay/ops/observation.ts';
import type { DispatchRecord, ReplayState } from '../state/state.ts';
import { operationsRequest, type BuiltRequest } from './operations.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

function group(state: ReplayState, dispatchId: string): DispatchRecord {
  const g = state.dispatches.get(dispatchId);
  if (g === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  return g;
}

/** Evidence about the group's run (or its frozen profile when no run is bound). */
export function runEvidence(source: QueueSource, dispatchId: string, kind: string, checkedAt: number, extra: JsonObject = {}): JsonObject {
  const state = stateOf(source);
  const g = group(state, dispatchId);
  const run = g.run as { run_id?: string } | null;
  return {
    kind,
    source: kind === 'delivery' ? 'verified_receipts' : 'github_api',
    repository: state.repository ?? '',
    workflow: g.profile.workflow as string,
    ref: g.profile.ref as string,
    principal: g.profile.principal as string,
    checked_at: checkedAt,
    ...(run?.run_id === undefined ? {} : { run_id: run.run_id, run_attempt: 1 }),
    ...extra,
  };
}

export function dispatchStarted(dispatchId: string, sender: JsonObject): BuiltRequest {
  return operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'started', sender }]);
}

export function dispatchBound(source: QueueSource, dispatchId: string, runId: string, checkedAt: number): BuiltRequest {
  const state = stateOf(source);
  const g = group(state, dispatchId);
  const run = {
    run_id: runId, run_attempt: 1, repository: state.repository ?? '', workflow: g.profile.workflow as string,
    ref: g.profile.ref as string, principal: g.profile.principal as string, event: 'workflow_dispatch',
  };
  const evidence = { ...runEvidence(state, dispatchId, 'reconciliation', checkedAt), run_id: runId, run_attempt: 1 };
  return operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'bound', run, evidence }]);
}

export function dispatchUncertain(dispatchId: string, reason: string): BuiltRequest {
  return operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'uncertain', reason }]);
}

export function release(source: QueueSource, dispatchId: string, checkedAt: number, conclusion = 'success'): BuiltRequest {
  const state = stateOf(source);
  const evidence = runEvidence(state, dispatchId, 'terminal_run', checkedAt, { conclusion, status: 'completed' });
  return operationsRequest('release', [{ kind: 'Release', dispatch_id: dispatchId, evidence }]);
}

export function result(source: QueueSource, workId: string, descriptor: JsonObject, checkedAt: number, receipt: string): BuiltRequest {
  const state = stateOf(source);
  const work = state.works.get(workId);
  if (work === undefined || work.completionCommit === null || work.currentClaim === null) fail('work_not_completed', `Work ${workId} has no Completion`);
  const claim = state.claims.get(work.currentClaim)!;
  const evidence = runEvidence(state, claim.dispatchId, 'delivery', checkedAt, { receipt });
  return operationsRequest('result', [{ kind: 'Result', work_id: workId, claim_id: claim.claimId, completion_id: work.completionCommit, descriptor, evidence }]);
}

export function deliveryFailure(source: QueueSource, workId: string, checkedAt: number, attempts: number, reason = 'delivery_unknown'): BuiltRequest {
  const state = stateOf(source);
  const work = state.works.get(workId);
  if (work === undefined || work.completionCommit === null || work.currentClaim === null) fail('work_not_completed', `Work ${workId} has no Completion`);
  const claim = state.claims.get(work.currentClaim)!;
  const evidence = runEvidence(state, claim.dispatchId, 'terminal_run', checkedAt, { attempts, conclusion: 'failure', effects: 'unknown', status: 'completed' });
  return operationsRequest('delivery_failure', [{ kind: 'DeliveryFailure', work_id: workId, claim_id: claim.claimId, completion_id: work.completionCommit, disposition: 'unknown', evidence, reason }]);
}

/**
 * One trusted Issue/PR Observation (spec 7.16). `mergeCommit` is the merged PR's merge provenance
 * and `readStatus` the read's outcome (default `ok`). The builder refuses, with the code replay
 * answers (`observation_invalid`, replay/ops/observation.ts `observationIncoherence`, the one
 * predicate), an Observation replay would refuse: a ready merged PR without its merge_commit, a
 * ready gate from a failed read, a condition of the other resource kind. Nothing is published.
 */
export function observation(input: {
  id: string; resource: JsonObject; condition: 'completed' | 'closed' | 'merged'; satisfied: boolean; observedAt: number; generation: string;
  mergeCommit?: string; readStatus?: OperationOf<'Observation'>['read_status'];
}): JsonObject {
  const isPr = input.condition === 'merged';
  const op: JsonObject = {
    kind: 'Observation', observation_id: input.id, resource: input.resource, condition: input.condition,
    state: input.satisfied ? 'ready' : 'waiting', observed_at: input.observedAt, credential_generation: input.generation, read_status: input.readStatus ?? 'ok',
    ...(isPr
      ? { merged: input.satisfied, resource_state: input.satisfied ? 'closed' : 'open', ...(input.mergeCommit === undefined ? {} : { merge_commit: input.mergeCommit }) }
      // `completed` needs closed + state_reason completed; `closed` needs only closed (spec 7.16).
      : { resource_state: input.satisfied ? 'closed' : 'open', ...(input.satisfied && input.condition === 'completed' ? { state_reason: 'completed' } : {}) }),
  };
  const problem = observationIncoherence(op as unknown as OperationOf<'Observation'>);
  if (problem !== null) fail('observation_invalid', `observation ${input.id}: ${problem}`);
  return op;
}

export type ControlName = 'admission_paused' | 'grants_paused' | 'credential_generation';

export function control(name: ControlName, value: boolean | string, reason: string): BuiltRequest {
  return operationsRequest('control', [{ kind: 'Control', control: name, value, reason }]);
}

export function cancelWork(workIds: string[], reason: string): BuiltRequest {
  return operationsRequest('cancel_work', workIds.map((work_id) => ({ kind: 'WorkCancellation', work_id, reason })));
}
