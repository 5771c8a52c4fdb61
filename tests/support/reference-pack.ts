/**
 * Test-only reference: the straightforward selector and packer exactly as they
 * were before the incremental indexes (prefix-planner.ts) — every decision
 * walks every (priority, fairness key) bucket, rebuilds the candidate sets and
 * sorts them, and the tentative prefix lives in an overlay with a forked copy
 * of the pool's clocks. It is frozen on purpose (its own copies of the pick
 * rule, the overlay and the clock application) so the differential property
 * test (prefix-planner.test.ts) compares the optimized code against an
 * independent implementation, not against itself. Do not use in production.
 *
 * Its steps list every eligible candidate (the historical behaviour); the
 * production steps carry the leading MAX_STEP_CANDIDATES, so comparisons
 * bound the reference's list first. Explanations were always bounded.
 *
 * This module is the packer; the clocks are in reference-clocks.ts, the overlay in
 * reference-overlay.ts, planNext in reference-plan.ts, and their names are re-exported here.
 */
import { createHash } from 'node:crypto';
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { ReplayState, WorkRecord } from '../../engine/state/state.ts';
import type { WorkerProfile } from '../../engine/schema/policy.ts';
import { assignment, assignmentMember, AssignmentSize, type AssignmentProvenance } from '../../engine/scheduler/assignment.ts';
import type { ClockTransition } from '../../engine/scheduler/clocks.ts';
import type { ClaimOperation, DispatchNextRequest, PackGroup, PackResult, PackStopReason } from '../../engine/scheduler/pack.ts';
import type { Explanation, PlanResult } from '../../engine/scheduler/plan-types.ts';
import { installedPolicy, poolPolicy, profileMaxClaims, workerProfile } from '../../engine/scheduler/policy-view.ts';
import { admitToOverlay, createOverlay, nativeOutstanding } from './reference-overlay.ts';
import { referencePlanNextWith } from './reference-plan.ts';

export { referenceApplyTransition, referencePlanPick, referencePlanSibling } from './reference-clocks.ts';
export { referencePlanNext } from './reference-plan.ts';

const MAX_REQUEST_CLAIMS = 256;
const MAX_REQUEST_DISPATCHES = 256;
const MAX_REQUEST_BYTES = 48 * 1024;

function bounded(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) fail('request_invalid', `${name} must be an integer in ${min}..${max}`);
  return value;
}

interface OpenGroup extends Omit<PackGroup, 'bytes' | 'assignment'> {
  provenance: AssignmentProvenance;
  members: JsonObject[];
  size: AssignmentSize;
}

function compatible(group: OpenGroup, work: WorkRecord, profile: WorkerProfile): boolean {
  return (
    group.worker_profile === work.workerProfile &&
    profile.trust_domain === work.batchTrustDomain &&
    group.batch_trust_domain === work.batchTrustDomain &&
    (profile.share_keys || group.fairness_key === work.fairnessKey) &&
    group.claim_ids.length < profileMaxClaims(profile)
  );
}

/** The historical packer: one full `planNext` walk per decision over an overlay. */
export function referencePack(state: ReplayState, request: DispatchNextRequest, asOf: number): PackResult {
  const policy = installedPolicy(state);
  const pool = poolPolicy(state, request.pool);
  bounded(request.max_claims, 1, MAX_REQUEST_CLAIMS, 'max_claims');
  bounded(request.max_dispatches, 1, MAX_REQUEST_DISPATCHES, 'max_dispatches');
  bounded(request.max_bytes, 1, MAX_REQUEST_BYTES, 'max_bytes');
  const preceding = bounded(request.precedingOperations ?? 0, 0, policy.limits.operations, 'precedingOperations');
  bounded(asOf, 0, Number.MAX_SAFE_INTEGER, 'asOf');

  const overlay = createOverlay(state, request.pool, asOf);
  const digest = createHash('sha256').update(request.requestId, 'utf8').digest('hex');
  const byteLimit = Math.min(request.max_bytes, policy.limits.assignment_bytes);
  const limit = Math.min(request.max_claims, policy.limits.operations - preceding);
  const epoch = state.policy!.epoch;
  const claims: ClaimOperation[] = [];
  const transitions: ClockTransition[] = [];
  const groups: OpenGroup[] = [];
  const explanations: Explanation[] = [];
  const decide = (): PlanResult => {
    const plan = referencePlanNextWith(state, request.pool, asOf, overlay);
    explanations.push(plan.explanation);
    return plan;
  };

  let next = decide();
  let stop: PackStopReason | null = null;
  while (claims.length < limit && next.selected) {
    const { work, transition, observations } = next;
    const profile = workerProfile(pool, work.workerProfile)!;
    const claimId = `c_${digest}_${claims.length + 1}`;
    let group: OpenGroup | undefined;
    let member: JsonObject | undefined;
    let memberBytes = 0;
    for (const candidate of groups) {
      if (!compatible(candidate, work, profile)) continue;
      const proposed = assignmentMember(state, work, claimId, `h${candidate.claim_ids.length + 1}`);
      const bytes = AssignmentSize.memberBytes(proposed);
      if (candidate.size.withMember(bytes) <= byteLimit) {
        [group, member, memberBytes] = [candidate, proposed, bytes];
        break;
      }
    }
    const opens = group === undefined;
    if (group === undefined) {
      if (groups.length >= request.max_dispatches) {
        stop = 'dispatch_budget_blocked';
        break;
      }
      if (nativeOutstanding(state, request.pool, overlay) >= pool.native_limit) {
        stop = 'native_capacity_blocked';
        break;
      }
      const dispatchId = `d_${digest}_${groups.length + 1}`;
      const provenance: AssignmentProvenance = {
        dispatch_id: dispatchId,
        request_id: request.requestId,
        commit_id: request.commitId,
        policy_epoch: epoch,
        pool: request.pool,
        worker_profile: work.workerProfile,
      };
      const opened: OpenGroup = {
        dispatch_id: dispatchId,
        worker_profile: work.workerProfile,
        batch_trust_domain: work.batchTrustDomain,
        fairness_key: work.fairnessKey,
        claim_ids: [],
        provenance,
        members: [],
        size: new AssignmentSize(provenance),
      };
      member = assignmentMember(state, work, claimId, 'h1');
      memberBytes = AssignmentSize.memberBytes(member);
      if (opened.size.withMember(memberBytes) > byteLimit) {
        stop = 'assignment_bytes_blocked';
        break;
      }
      groups.push(opened);
      group = opened;
    }
    claims.push({
      kind: 'Claim',
      work_id: work.workId,
      claim_id: claimId,
      dispatch_id: group.dispatch_id,
      handle: `h${group.claim_ids.length + 1}`,
      observations: [...observations],
    });
    group.claim_ids.push(claimId);
    group.members.push(member!);
    group.size.add(memberBytes);
    transitions.push(transition);
    admitToOverlay(overlay, work, transition, opens);
    if (claims.length < limit) next = decide();
  }

  let stopReason: PackStopReason;
  if (stop !== null) stopReason = stop;
  else if (claims.length === limit) {
    stopReason = limit <= 0 ? 'operation_budget_blocked' : limit === request.max_claims ? 'claim_budget_reached' : 'operation_budget_reached';
  } else if (!next.selected) {
    stopReason = claims.length > 0 && next.reason === 'no_work' ? 'prefix_complete' : next.reason;
  } else stopReason = 'operation_budget_blocked';
  return {
    claims,
    transitions,
    groups: groups.map((g) => ({
      dispatch_id: g.dispatch_id,
      worker_profile: g.worker_profile,
      batch_trust_domain: g.batch_trust_domain,
      fairness_key: g.fairness_key,
      claim_ids: [...g.claim_ids],
      bytes: g.size.total,
      assignment: assignment(g.provenance, g.members),
    })),
    stopReason,
    explanations,
    next,
  };
}
