/**
 * Fair-prefix packer for `dispatch_next {pool, max_claims, max_dispatches,
 * max_bytes}` (spec 7.3, 7.7, 7.14; contract `packing`: "Largest fair prefix;
 * earliest compatible group includes byte fit; no skipped winner; preceding
 * Observations count against operation budget").
 *
 * Each winner comes from one `PrefixPlanner` (the engine of `planNext`) that
 * holds the prefix so far and updates its indexes incrementally; it joins the
 * earliest compatible group or opens one, otherwise the prefix stops. Nothing
 * in `state` changes. Cost: one walk of the pool's buckets, then O(log n) per
 * decision (plus the assignment sizing).
 */
import { sha256Hex } from '../codec/digest.ts';
import { claimHandle, claimId as contractClaimId, dispatchId as contractDispatchId } from '../identity/index.ts';
import { fail } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { ReplayState, WorkRecord } from '../state/state.ts';
import { executionRevision } from '../state/routes.ts';
import type { WorkerProfile } from '../schema/policy.ts';
import { assignment, assignmentMember, AssignmentSize, memberBytesFor, type AssignmentProvenance } from './assignment.ts';
import type { ClockTransition } from './clocks.ts';
import type { Decision, Explanation, NoGrantReason, PlanResult } from './plan-types.ts';
import { installedPolicy, poolPolicy, profileMaxClaims, workerProfile } from './policy-view.ts';
import { PrefixPlanner } from './prefix-planner.ts';

export interface DispatchNextRequest {
  requestId: string;
  /** Id of the QueueCommit that will carry (or carries) the Claims. */
  commitId: string;
  pool: string;
  max_claims: number;
  max_dispatches: number;
  max_bytes: number;
  /** Operations placed before the Claims in the same commit (refreshed Observations). */
  precedingOperations?: number;
}

/** ClaimOperation.json. */
export interface ClaimOperation {
  kind: 'Claim';
  work_id: string;
  claim_id: string;
  dispatch_id: string;
  handle: string;
  observations: string[];
}

export interface PackGroup {
  dispatch_id: string;
  worker_profile: string;
  batch_trust_domain: string;
  /** Fairness key of the first member (groups without share_keys keep one key). */
  fairness_key: string;
  claim_ids: string[];
  /** Canonical UTF-8 bytes of `assignment`. */
  bytes: number;
  assignment: JsonObject;
}

export type PackStopReason =
  | 'claim_budget_reached'
  | 'operation_budget_reached'
  | 'operation_budget_blocked'
  | 'prefix_complete'
  | 'dispatch_budget_blocked'
  | 'native_capacity_blocked'
  | 'assignment_bytes_blocked'
  | NoGrantReason;

export interface PackResult {
  claims: ClaimOperation[];
  /** One per Claim, in order: apply each with `applyTransition` when the commit is accepted. */
  transitions: ClockTransition[];
  groups: PackGroup[];
  stopReason: PackStopReason;
  /** One per decision (each a `planNext` of the prefix so far), in order; the last explains the stop unless a budget ended the prefix. */
  explanations: Explanation[];
  /** The decision that ended the prefix (the last winner when a budget was reached). */
  next: PlanResult;
}

/** Handle of a group's first member (contract `identities`: `h` + one-based member index). */
const FIRST_HANDLE = claimHandle(1);

/** Contract `request_parameters.dispatch_next` bounds (DispatchNextParameters.json). */
const MAX_REQUEST_CLAIMS = 256;
const MAX_REQUEST_DISPATCHES = 256;
const MAX_REQUEST_BYTES = 48 * 1024;

function bounded(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) fail('request_invalid', `${name} must be an integer in ${min}..${max}`);
  return value;
}

/** SHA-256 of the request id: the shared part of its Claim and dispatch ids (contract `identities`). */
export function requestDigest(requestId: string): string {
  return sha256Hex(requestId);
}

interface OpenGroup extends Omit<PackGroup, 'bytes' | 'assignment'> {
  /** The revision the group freezes (its first member's `executionRevision`). */
  revision: string;
  provenance: AssignmentProvenance;
  members: JsonObject[];
  size: AssignmentSize;
}

/** Spec 7.14 group compatibility: profile, immutable ref revision, trust domain, key sharing, Claims per dispatch. */
function compatible(group: OpenGroup, work: WorkRecord, profile: WorkerProfile, revision: string): boolean {
  return (
    group.worker_profile === work.workerProfile &&
    group.revision === revision &&
    profile.trust_domain === work.batchTrustDomain &&
    group.batch_trust_domain === work.batchTrustDomain &&
    (profile.share_keys || group.fairness_key === work.fairnessKey) &&
    group.claim_ids.length < profileMaxClaims(profile)
  );
}

/**
 * The member of `work` as the first of a group and its canonical size: written only when the
 * pack reports assignments (`explain`), else only measured (`memberBytesFor`, the same checks
 * and number).
 */
function firstMember(state: ReplayState, work: WorkRecord, claimId: string, explain: boolean): [JsonObject | undefined, number] {
  if (!explain) return [undefined, memberBytesFor(state, work, claimId, FIRST_HANDLE)];
  const member = assignmentMember(state, work, claimId, FIRST_HANDLE);
  return [member, AssignmentSize.memberBytesOf(member, work)];
}

/**
 * What replay reads of a pack to check a committed grant: the Claims, their transitions, the
 * stop. Its Claims' observation lists are the planner's own (read them, never write them).
 */
export type GrantPlan = Pick<PackResult, 'claims' | 'transitions' | 'stopReason'>;

/** Pack the largest fair prefix for one dispatch_next request at `asOf`. */
export function pack(state: ReplayState, request: DispatchNextRequest, asOf: number): PackResult {
  const { claims, transitions, groups, stopReason, explanations, next } = packPrefix(state, request, asOf, true);
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
    next: next as PlanResult,
  };
}

/**
 * The same prefix as `pack`, by the same code, without the explanations and assignments nobody
 * reads when replay checks a committed grant (`PrefixPlanner.decide` instead of `next`).
 */
export function packGrant(state: ReplayState, request: DispatchNextRequest, asOf: number): GrantPlan {
  const { claims, transitions, stopReason } = packPrefix(state, request, asOf, false);
  return { claims, transitions, stopReason };
}

function packPrefix(state: ReplayState, request: DispatchNextRequest, asOf: number, explain: boolean): {
  claims: ClaimOperation[];
  transitions: ClockTransition[];
  groups: OpenGroup[];
  stopReason: PackStopReason;
  explanations: Explanation[];
  next: Decision | PlanResult;
} {
  const policy = installedPolicy(state);
  const pool = poolPolicy(state, request.pool);
  bounded(request.max_claims, 1, MAX_REQUEST_CLAIMS, 'max_claims');
  bounded(request.max_dispatches, 1, MAX_REQUEST_DISPATCHES, 'max_dispatches');
  bounded(request.max_bytes, 1, MAX_REQUEST_BYTES, 'max_bytes');
  const preceding = bounded(request.precedingOperations ?? 0, 0, policy.limits.operations, 'precedingOperations');
  bounded(asOf, 0, Number.MAX_SAFE_INTEGER, 'asOf');

  const planner = new PrefixPlanner(state, request.pool, asOf);
  const byteLimit = Math.min(request.max_bytes, policy.limits.assignment_bytes);
  const limit = Math.min(request.max_claims, policy.limits.operations - preceding);
  const epoch = state.policy!.epoch;
  const claims: ClaimOperation[] = [];
  const transitions: ClockTransition[] = [];
  const groups: OpenGroup[] = [];
  const explanations: Explanation[] = [];
  const decide = (): Decision | PlanResult => {
    if (!explain) return planner.decide();
    const plan = planner.next();
    explanations.push(plan.explanation);
    return plan;
  };

  let next = decide();
  let stop: PackStopReason | null = null;
  while (claims.length < limit && next.selected) {
    const { work, transition, observations } = next;
    const profile = workerProfile(pool, work.workerProfile)!;
    const claimId = contractClaimId(request.requestId, claims.length + 1);
    let group: OpenGroup | undefined;
    let member: JsonObject | undefined;
    let memberBytes = 0;
    // The member as the first of a group, measured once per decision (on first need, so its
    // errors come where they did): in any group it differs only in its handle, `h<n>`, a plain
    // ASCII string whose canonical size is its length plus the quotes. Only a pack that reports
    // its assignments writes it (replay's grant check keeps none: `memberBytesFor`).
    let first: JsonObject | undefined;
    let firstBytes = -1;
    const revision = executionRevision(state, work, profile);
    for (const candidate of groups) {
      if (!compatible(candidate, work, profile, revision)) continue;
      if (firstBytes < 0) [first, firstBytes] = firstMember(state, work, claimId, explain);
      const handle = claimHandle(candidate.claim_ids.length + 1);
      const bytes = firstBytes - FIRST_HANDLE.length + handle.length;
      if (candidate.size.withMember(bytes) <= byteLimit) {
        group = candidate;
        if (first !== undefined) member = { ...first, handle };
        memberBytes = bytes;
        break;
      }
    }
    const opens = group === undefined;
    if (group === undefined) {
      if (groups.length >= request.max_dispatches) {
        stop = 'dispatch_budget_blocked';
        break;
      }
      if (planner.nativeOutstanding() >= pool.native_limit) {
        stop = 'native_capacity_blocked';
        break;
      }
      const dispatchId = contractDispatchId(request.requestId, groups.length + 1);
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
        revision,
        batch_trust_domain: work.batchTrustDomain,
        fairness_key: work.fairnessKey,
        claim_ids: [],
        provenance,
        members: [],
        size: new AssignmentSize(provenance),
      };
      if (firstBytes < 0) [first, firstBytes] = firstMember(state, work, claimId, explain);
      [member, memberBytes] = [first, firstBytes];
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
      handle: claimHandle(group.claim_ids.length + 1),
      // A grant check only compares the Claims (`GrantPlan`): the decision's own list will do.
      observations: explain ? [...observations] : (observations as string[]),
    });
    group.claim_ids.push(claimId);
    if (member !== undefined) group.members.push(member);
    group.size.add(memberBytes);
    transitions.push(transition);
    planner.admit(work, transition, opens);
    if (claims.length < limit) next = decide();
  }

  let stopReason: PackStopReason;
  if (stop !== null) stopReason = stop;
  else if (claims.length === limit) {
    stopReason = limit <= 0 ? 'operation_budget_blocked' : limit === request.max_claims ? 'claim_budget_reached' : 'operation_budget_reached';
  } else if (!next.selected) {
    stopReason = claims.length > 0 && next.reason === 'no_work' ? 'prefix_complete' : next.reason;
  } else stopReason = 'operation_budget_blocked';
  return { claims, transitions, groups, stopReason, explanations, next };
}

/** First difference between planned and committed Claim operations, or null when identical. */
export function claimMismatch(planned: readonly ClaimOperation[], committed: readonly JsonValue[]): { index: number; field: string } | null {
  const n = Math.max(planned.length, committed.length);
  for (let i = 0; i < n; i++) {
    const p = planned[i];
    const c = committed[i];
    if (p === undefined || c === undefined || c === null || typeof c !== 'object' || Array.isArray(c)) return { index: i, field: 'count' };
    for (const field of ['kind', 'work_id', 'claim_id', 'dispatch_id', 'handle'] as const) {
      if (c[field] !== p[field]) return { index: i, field };
    }
    const obs = c.observations;
    if (!Array.isArray(obs) || obs.length !== p.observations.length) return { index: i, field: 'observations' };
    for (let j = 0; j < obs.length; j++) if (obs[j] !== p.observations[j]) return { index: i, field: 'observations' };
    // Six own members (counted without listing them: replay compares every committed Claim).
    let members = 0;
    for (const key in c) if (Object.hasOwn(c, key)) members++;
    if (members !== 6) return { index: i, field: 'shape' };
  }
  return null;
}
