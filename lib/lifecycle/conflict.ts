/**
 * Recording a run binding conflict (spec 7.8 "Multiple matching runs are a binding conflict;
 * reject their still-unverified queue effects and retain the reservation", §8.2 "Launch
 * recovery"): Dispatch(uncertain) first when only the start marker exists, then the one
 * Dispatch(unresolved, run_binding_conflict) whose evidence names every candidate. Any
 * binding path (reconcile, activation, launch) records it through the checked publisher;
 * a concurrent recorder's commit is the same fact, so losing that race is not an error.
 */
import { conflictTransition, uncertainTransition } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/evidence.ts';
import { conflictRequestId, uncertainRequestId } from '../../engine/lifecycle/ids.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { publishTransition } from '../publisher/requests.ts';

type Opts = { now?: () => number };

/** Tolerated: the transition was already made, or another actor committed the same stable request. */
const ALREADY = ['dispatch_transition_invalid', 'request_id_conflict', 'dispatch_released'];

/** A crash may leave only `started`: record the sanitized uncertainty before anything else. Returns the commit id, if any. */
export async function markUncertain(publisher: Publisher, actor: PublishingActor, dispatchId: string, reason: string, opts: Opts): Promise<string | null> {
  const t = await publishTransition(publisher, uncertainRequestId(dispatchId), actor, (s) => uncertainTransition(s, dispatchId, reason), { state: 'uncertain', tolerate: ALREADY, ...opts });
  return t.status === 'committed' ? t.commitId : null;
}

/** Records the conflict naming `runIds`; returns the commit ids it wrote (none when it was already recorded). */
export async function recordConflict(publisher: Publisher, actor: PublishingActor, dispatchId: string, runIds: readonly string[], attempts: number, opts: Opts): Promise<string[]> {
  const commits: string[] = [];
  const uncertain = await markUncertain(publisher, actor, dispatchId, 'run_binding_conflict', opts);
  if (uncertain !== null) commits.push(uncertain);
  const t = await publishTransition(publisher, conflictRequestId(dispatchId), actor, (s, at) => conflictTransition(s, dispatchId, runIds,
    groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, attempts })), { state: 'unresolved', tolerate: ALREADY, ...opts });
  if (t.status === 'committed') commits.push(t.commitId);
  return commits;
}
