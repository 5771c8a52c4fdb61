/**
 * Closing a group with definitive evidence (spec 7.8 recovery table): one `release` request
 * carries the attempt-exhaustion cancellations, the cancellation of every other still-open
 * Claim and the one Release (engine/lifecycle/release.ts), so no start marker can land between
 * them ("commit definitive prelaunch cancellation and cancel still-open Claims/release
 * atomically"). It has a stable id and is safe to repeat: a released group reports
 * `already_released`. A group released by an earlier close that left a member Work available
 * with no attempt (an interrupted close of the former two-commit form) gets that Work's
 * terminal cancellation afterwards.
 */
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { groupEvidence, type EvidenceFacts } from '../../engine/lifecycle/evidence.ts';
import { exhaustionRequestId, releaseRequestId } from '../../engine/lifecycle/ids.ts';
import { exhaustionRequest, releaseRequest } from '../../engine/lifecycle/release.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { publishTransition, type TransitionOutcome } from '../publisher/requests.ts';

export interface CloseResult {
  /** The separate exhaustion step finishing an earlier close, or null (the release carried it). */
  exhaustion: TransitionOutcome | null;
  release: TransitionOutcome;
}

export async function closeGroup(
  publisher: Publisher,
  actor: PublishingActor,
  dispatchId: string,
  evidence: Omit<EvidenceFacts, 'checkedAt'>,
  reason: string,
  now?: () => number,
  /** Re-checked inside the CAS-validated prefix before the Release is built (e.g. prelaunch). */
  precheck?: (projection: Projection) => void,
): Promise<CloseResult> {
  const opts = { tolerate: ['nothing_to_cancel', 'already_released'], ...(now === undefined ? {} : { now }) };
  // The precheck runs inside every CAS-validated rebuild: a prelaunch cancellation that lost
  // the race to a start marker is refused before anything commits.
  const release = await publishTransition(publisher, releaseRequestId(dispatchId), actor, (p, at) => {
    if (!p.dispatch(dispatchId)?.released) precheck?.(p);
    const facts = groupEvidence(p, dispatchId, { ...evidence, checkedAt: at }) as JsonObject;
    return releaseRequest(p, dispatchId, facts, reason, at);
  }, { ...opts, state: 'released' });
  const exhaustion = release.status === 'committed' ? null : await publishTransition(publisher, exhaustionRequestId(dispatchId), actor, (p) => {
    const built = exhaustionRequest(p, dispatchId);
    if (built === null) fail('nothing_to_cancel', `no member of ${dispatchId} is left with its attempts exhausted`);
    return built;
  }, opts);
  return { exhaustion, release };
}
