/**
 * Closing a group with definitive evidence (spec 7.8 recovery table): the attempt-exhaustion
 * cancellations first, then the one Release that also cancels every other still-open
 * Claim. Both requests have stable ids and are safe to repeat: a released group reports
 * `already_released`, and a later call still finishes an interrupted exhaustion step.
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
  // the race to a start marker is refused before its exhaustion step commits anything.
  const exhaust = async () => publishTransition(publisher, exhaustionRequestId(dispatchId), actor, (p) => {
    if (!p.dispatch(dispatchId)?.released) precheck?.(p);
    const built = exhaustionRequest(p, dispatchId);
    if (built === null) fail('nothing_to_cancel', `no member of ${dispatchId} has exhausted its attempts`);
    return built;
  }, opts);
  const { projection } = await publisher.cache.load();
  const released = projection?.dispatch(dispatchId)?.released === true;
  if (!released && projection !== null) precheck?.(projection);
  const exhaustion = released ? null : await exhaust();
  const release = await publishTransition(publisher, releaseRequestId(dispatchId), actor, (p, at) => {
    precheck?.(p);
    const facts = groupEvidence(p, dispatchId, { ...evidence, checkedAt: at }) as JsonObject;
    return releaseRequest(p, dispatchId, facts, reason, at);
  }, { ...opts, state: 'released' });
  // An interrupted earlier close may have released without its exhaustion step: finish it.
  const sweep = released ? await exhaust() : null;
  return { exhaustion: exhaustion ?? sweep, release };
}
