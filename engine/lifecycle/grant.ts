/**
 * A `dispatch_next` whose fresh Observations precede its Claims in the same commit (spec
 * 7.16). The packer runs on a scratch copy of the projection (the one prefix replay) with
 * the Observations applied (`replay/observed-pack.ts`), exactly as replay (`replay/grant.ts`)
 * will verify it; the caller's projection is never mutated. An Observation a newer recorded read
 * of its gate supersedes (another dispatcher's, while this publication retried) is left out.
 */
import type { JsonObject } from '../json.ts';
import { packAfterObservations } from '../replay/observed-pack.ts';
import { replayPrefix, type Projection } from '../replay/projection.ts';
import { dispatchNextRequest, type BuiltRequest, type DispatchNextInput } from '../requests/operations.ts';
import type { PackResult } from '../scheduler/pack.ts';
import type { QueueOperation } from '../schema/index.ts';
import { currentObservations } from './observations.ts';

export function dispatchNextWithObservations(
  projection: Projection,
  input: DispatchNextInput,
  ids: { requestId: string; commitId: string },
  at: number,
  read: readonly JsonObject[],
): BuiltRequest & { plan: PackResult } {
  const observations = currentObservations(projection, read);
  if (observations.length === 0) return dispatchNextRequest(projection, input, ids, at);
  const scratch = replayPrefix(projection, projection.commitCount).state;
  const commit = { id: ids.commitId, at, policy_epoch: projection.policyEpoch ?? '', request: { id: ids.requestId, kind: 'dispatch_next' as const } };
  const plan = packAfterObservations(scratch, commit, observations, { requestId: ids.requestId, commitId: ids.commitId, ...input });
  return {
    kind: 'dispatch_next',
    parameters: { ...input },
    operations: [...observations, ...plan.claims] as unknown as QueueOperation[],
    plan,
  };
}
