/**
 * Administrator request builders (operator reference "Keyboard browser and
 * checked actions"): all-or-nothing, compare-and-set transactions whose targets
 * are checked here for clear errors and again by replay before publication.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import { MAX_ADMIN_TARGETS } from '../schema/defaults.ts';
import { refuseProfileWorkflows } from '../replay/ops/profile-workflows.ts';
import { operationsRequest, type BuiltRequest } from './operations.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

function unique(ids: readonly string[], what: string): string[] {
  if (ids.length === 0) fail('targets_missing', `name at least one ${what}`);
  if (ids.length > MAX_ADMIN_TARGETS) fail('targets_too_many', `at most ${MAX_ADMIN_TARGETS} ${what}s per transaction`);
  const set = new Set(ids);
  if (set.size !== ids.length) fail('targets_duplicate', `a ${what} is named twice`);
  return [...set];
}

/**
 * WorkPriority overrides for available Work, with the current priority as the CAS expectation.
 * `expected`: the priorities the caller read when it decided (a CLI's first attempt, a reviewed
 * preview). A retry after a lost race rebuilds on the new state; a Work whose priority another
 * change moved since is `priority_conflict` (operator reference: "If another grant or priority
 * change makes an action stale, the action is rejected"), not overwritten.
 */
export function reprioritizeRequest(source: QueueSource, workIds: readonly string[], priority: number, reason: string, expected?: Readonly<Record<string, number>>): BuiltRequest {
  const state = stateOf(source);
  if (!Number.isInteger(priority) || priority < 1 || priority > 5) fail('priority_invalid', 'priority must be an integer 1..5');
  const ops: JsonObject[] = unique(workIds, 'Work id').map((id) => {
    const work = state.works.get(id);
    if (work === undefined) fail('unknown_work', `Work ${id} is not admitted`);
    if (work.state !== 'available') fail('work_not_available', `Work ${id} is ${work.state}; only available Work can be reprioritized`);
    const read = expected === undefined || !Object.hasOwn(expected, id) ? undefined : expected[id];
    if (read !== undefined && read !== work.effectivePriority) {
      fail('priority_conflict', `Work ${id}'s priority changed from ${read} to ${work.effectivePriority} since it was read: nothing was written; read it again before reprioritizing`, {}, { work_id: id, expected_priority: read, priority: work.effectivePriority });
    }
    return { kind: 'WorkPriority', work_id: id, priority, expected_priority: work.effectivePriority, reason };
  });
  return operationsRequest('control', ops);
}

/**
 * cancel-claim (operator reference: "Atomically revoke the exact current Claims' authority and
 * terminally cancel their Work"): one administrator `cancel_work` whose WorkCancellation
 * operations carry the `claim_id` ownership fence (spec 7.6), so a refresh after a conflict can
 * never cancel a replacement owner. Replay closes each Claim and frees its logical slot; the
 * native reservation stays until exact termination or nonlaunch evidence. No ClaimCancellation
 * is written: that record is a worker's or reconciler's, with trusted retry backoff.
 */
export function cancelClaimsRequest(source: QueueSource, claimIds: readonly string[], reason: string): BuiltRequest {
  const state = stateOf(source);
  const ops: JsonObject[] = [];
  for (const id of unique(claimIds, 'Claim id')) {
    const claim = state.claims.get(id);
    if (claim === undefined) fail('unknown_claim', `Claim ${id} does not exist`);
    if (claim.state !== 'open') fail('claim_terminal', `Claim ${id} is already ${claim.state}`);
    const work = state.works.get(claim.workId)!;
    if (work.currentClaim !== id || work.state !== 'claimed') fail('claim_not_effective', `Claim ${id} no longer owns Work ${claim.workId}`);
    if (ops.some((op) => op.work_id === claim.workId)) fail('targets_duplicate', `Work ${claim.workId} is named twice`);
    ops.push({ kind: 'WorkCancellation', work_id: claim.workId, reason, claim_id: id });
  }
  return operationsRequest('cancel_work', ops);
}

export function cancelWorkRequest(source: QueueSource, workIds: readonly string[], reason: string): BuiltRequest {
  const state = stateOf(source);
  const ops: JsonObject[] = unique(workIds, 'Work id').map((id) => {
    const work = state.works.get(id);
    if (work === undefined) fail('unknown_work', `Work ${id} is not admitted`);
    if (work.state === 'completed' || work.state === 'cancelled') fail('work_terminal', `Work ${id} is already ${work.state}`);
    return { kind: 'WorkCancellation', work_id: id, reason };
  });
  return operationsRequest('cancel_work', ops);
}

export function policyRequest(epoch: string, policy: JsonObject): BuiltRequest {
  refuseProfileWorkflows(policy);
  return operationsRequest('policy', [{ kind: 'Policy', epoch, policy }]);
}
