/**
 * "Pack after these Observations": a `dispatch_next` whose fresh Observations precede its
 * Claims in the same commit (spec 7.16: "observations and their selected Claims can share
 * one atomic commit"; contract `packing`: preceding Observations count against the
 * operation budget). The Observations are applied to the pre-state exactly as replay
 * applies them (`ops/observation.ts`), then the one packer runs at the commit's decision
 * time; each Observation is first held to `evidence_bytes` (`ops/limits.ts`), as replay holds it.
 * The dispatcher building a grant and a receipt re-deriving one both call this;
 * replay's own check (`grant.ts`) folds the same Observations into the live state.
 */
import type { JsonObject } from '../json.ts';
import { pack, type DispatchNextRequest, type PackResult } from '../scheduler/pack.ts';
import type { QueueCommit } from '../schema/index.ts';
import type { CommitContext, OperationOf } from './context.ts';
import { checkEvidenceBytes } from './ops/limits.ts';
import { applyObservation } from './ops/observation.ts';
import type { ReplayState } from '../state/state.ts';

/** The commit that carries the grant: its id, decision time, epoch and request (a candidate's are provisional). */
export type GrantCommit = Pick<QueueCommit, 'id' | 'at' | 'policy_epoch'> & { request: Pick<QueueCommit['request'], 'id' | 'kind'> };

/**
 * Applies `observations` to `scratch` (mutated: pass a disposable pre-state, never a cached
 * projection's), then packs `request` at `commit.at`.
 */
export function packAfterObservations(scratch: ReplayState, commit: GrantCommit, observations: readonly JsonObject[], request: Omit<DispatchNextRequest, 'precedingOperations'>): PackResult {
  // After a checkpoint root, ordinals continue from the compacted prefix (as apply.ts counts them).
  const ordinal = (scratch.checkpoint?.ordinal ?? 0) + scratch.commits.length;
  // Observation handlers read only the envelope's id, epoch and time.
  const ctx: CommitContext = { state: scratch, commit: commit as QueueCommit, ordinal, index: 0 };
  observations.forEach((op, i) => {
    ctx.index = i;
    // As replay (grant.ts): each preceding Observation is held to `evidence_bytes`, so a grant
    // carrying an oversized read is resource_limit before it is published, not at replay.
    checkEvidenceBytes(ctx, op as unknown as OperationOf<'Observation'>);
    applyObservation(ctx, op as unknown as OperationOf<'Observation'>);
  });
  return pack(scratch, { ...request, precedingOperations: observations.length }, commit.at);
}
