/**
 * Per-Claim finish (spec 7.14 "Individual finalization"): one Completion or
 * ClaimCancellation per original member, in its own commit, from the worker's own scope
 * and durably bound run. The operations come from the shared `finishRequest` builder
 * (retry not-before = decision time + pool backoff; the attempt that exhausts the budget
 * also cancels its Work, spec 7.4). The request id is the MCP path's `finishRequestId`:
 * repeating an outcome replays it, a conflicting outcome fails (`request_id_conflict`).
 */
import { fail } from '../errors.ts';
import { finishRequest, type BuiltRequest } from '../requests/operations.ts';
import type { Actor } from '../schema/index.ts';
import { finishRequestId } from './ids.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export interface FinishInput {
  dispatch_id: string;
  claim_handle: string;
  outcome: 'completed' | 'cancelled';
}

/** The worker actor of one member: frozen profile principal/workflow, bound run, attempt 1. */
export function workerActor(source: QueueSource, dispatchId: string, runId: string, claimHandle?: string): Actor {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  return {
    role: 'worker',
    principal: String(group.profile.principal),
    repository: state.repository ?? '',
    workflow: String(group.profile.workflow),
    run_id: runId,
    run_attempt: 1,
    dispatch_id: dispatchId,
    ...(claimHandle === undefined ? {} : { claim_handle: claimHandle }),
  };
}

/** The bound run a finish must come from (Completion requires a durable binding, 7.8). */
export function boundRunId(source: QueueSource, dispatchId: string): string {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const run = (group.run as { run_id?: string } | null)?.run_id;
  if (group.state !== 'bound' || run === undefined) fail('run_binding_missing', `dispatch ${dispatchId} has no durable run binding (${group.state})`);
  return run;
}

export interface FinishPlan {
  requestId: string;
  actor: Actor;
  build: (source: QueueSource, at: number) => BuiltRequest;
}

/** Everything a publisher needs for one member's finish, checked against `runId`. */
export function finishPlan(source: QueueSource, input: FinishInput, runId: string): FinishPlan {
  const state = stateOf(source);
  const bound = boundRunId(state, input.dispatch_id);
  if (bound !== runId) fail('run_binding_conflict', `the worker runs as ${runId}, but dispatch ${input.dispatch_id} is bound to run ${bound}`);
  const group = state.dispatches.get(input.dispatch_id)!;
  if (!group.claimIds.some((id) => state.claims.get(id)?.handle === input.claim_handle)) {
    fail('claim_scope_invalid', `dispatch ${input.dispatch_id} has no member ${input.claim_handle}`);
  }
  return {
    requestId: finishRequestId(input.dispatch_id, input.claim_handle),
    actor: workerActor(state, input.dispatch_id, runId, input.claim_handle),
    build: (s, at) => finishRequest(s, input, at),
  };
}
