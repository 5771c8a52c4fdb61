/**
 * A `dispatch_next` whose fresh Observations precede its Claims in the same commit (spec
 * 7.16: "observations and their selected Claims can share one atomic commit"; contract
 * `packing`: preceding Observations count against the operation budget). The packer runs
 * on a scratch copy of the state with the Observations applied, exactly as replay
 * (`replay/grant.ts`) will verify it; the caller's projection is never mutated.
 */
import type { JsonObject } from '../json.ts';
import { emptyProjection, replayLedger, type Projection } from '../replay/index.ts';
import type { CommitContext, OperationOf } from '../replay/context.ts';
import { applyObservation } from '../replay/ops/observation.ts';
import type { ReplayState } from '../replay/state.ts';
import { dispatchNextRequest, type BuiltRequest, type DispatchNextInput } from '../requests/operations.ts';
import { pack, type PackResult } from '../scheduler/pack.ts';
import type { QueueCommit, QueueOperation } from '../schema/index.ts';

/** A disposable replay of the projection's validated commits. */
export function scratchState(projection: Projection): ReplayState {
  const lines = projection.state.commits.map((c) => projection.commitText(c.id)!);
  return (lines.length === 0 ? emptyProjection() : replayLedger(`${lines.join('\n')}\n`)).state;
}

export function dispatchNextWithObservations(
  projection: Projection,
  input: DispatchNextInput,
  ids: { requestId: string; commitId: string },
  at: number,
  observations: readonly JsonObject[],
): BuiltRequest & { plan: PackResult } {
  if (observations.length === 0) return dispatchNextRequest(projection.state, input, ids, at);
  const state = scratchState(projection);
  // The provisional envelope applyObservation needs: only its id, epoch and time are read.
  const commit = { id: ids.commitId, at, policy_epoch: state.policy?.epoch ?? '', request: { id: ids.requestId, kind: 'dispatch_next' } } as unknown as QueueCommit;
  const ctx: CommitContext = { state, commit, ordinal: state.commits.length, index: 0 };
  observations.forEach((op, i) => {
    ctx.index = i;
    applyObservation(ctx, op as unknown as OperationOf<'Observation'>);
  });
  const plan = pack(state, { requestId: ids.requestId, commitId: ids.commitId, ...input, precedingOperations: observations.length }, at);
  return {
    kind: 'dispatch_next',
    parameters: { ...input },
    operations: [...observations, ...plan.claims] as unknown as QueueOperation[],
    plan,
  };
}
