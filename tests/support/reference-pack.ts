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
 */
import { createHash } from 'node:crypto';
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import type { ReplayState, WorkRecord } from '../../engine/state/state.ts';
import type { PoolPolicy, WorkerProfile } from '../../engine/schema/policy.ts';
import { assignment, assignmentMember, AssignmentSize, type AssignmentProvenance } from '../../engine/scheduler/assignment.ts';
import type { ClockTransition, PassCandidate, SiblingStep } from '../../engine/scheduler/clocks.ts';
import type { FairnessState, SchedulingMode, SiblingClock } from '../../engine/state/fairness.ts';
import { workGates } from '../../engine/scheduler/eligibility.ts';
import type { FifoTree } from '../../engine/state/fifo-tree.ts';
import { numericCompare, utf8Compare } from '../../engine/scheduler/order.ts';
import type { ClaimOperation, DispatchNextRequest, PackGroup, PackResult, PackStopReason } from '../../engine/scheduler/pack.ts';
import type { CandidateView, Explanation, LevelView, NoGrantReason, PlanResult, SelectionReason } from '../../engine/scheduler/plan-types.ts';
import { installedPolicy, poolPolicy, profileMaxClaims, workerProfile } from '../../engine/scheduler/policy-view.ts';
import { availableIn, bucketsOf } from '../../engine/state/ready-index.ts';

const MAX_EXPLAINED = 32;

// ---------------------------------------------------------------- clocks

function classStride(fairness: FairnessState, priority: number): bigint {
  const stride = fairness.classStrides[priority - 1];
  return stride ?? fail('priority_invalid', `priority ${priority} is outside 1..5`);
}

function keyStride(fairness: FairnessState, key: string): bigint {
  return fairness.keyStrides.get(key) ?? fairness.keyScale;
}

export function referencePlanSibling<K>(
  clock: SiblingClock<K> | undefined,
  eligible: readonly K[],
  strideOf: (member: K) => bigint,
  compare: (a: K, b: K) => number,
): SiblingStep<K> | null {
  if (eligible.length === 0) return null;
  const vBefore = clock?.v ?? 0n;
  const entered: Array<readonly [K, bigint]> = [];
  const candidates: PassCandidate<K>[] = [];
  for (const member of eligible) {
    const stride = strideOf(member);
    const previous = clock?.pass.get(member) ?? 0n;
    const entering = clock === undefined || !clock.active.has(member);
    let pass = previous;
    if (entering) {
      const floor = vBefore + stride;
      pass = previous > floor ? previous : floor;
      entered.push([member, pass]);
    }
    candidates.push({ member, pass, stride, entering });
  }
  candidates.sort((a, b) => (a.pass < b.pass ? -1 : a.pass > b.pass ? 1 : compare(a.member, b.member)));
  const winner = candidates[0]!;
  return {
    active: [...eligible],
    entered,
    selected: winner.member,
    vBefore,
    v: winner.pass,
    pass: winner.pass + winner.stride,
    stride: winner.stride,
    candidates,
  };
}

export function referencePlanPick(
  fairness: FairnessState,
  pool: string,
  eligible: ReadonlyMap<number, readonly string[]>,
): ClockTransition | null {
  const classes = [...eligible].filter(([, keys]) => keys.length > 0).map(([c]) => c).sort(numericCompare);
  if (classes.length === 0) return null;
  const clocks = fairness.pools.get(pool);
  let classStep: SiblingStep<number> | null = null;
  let priority: number;
  if (fairness.mode === 'weighted-priority') {
    classStep = referencePlanSibling(clocks?.classes, classes, (c) => classStride(fairness, c), numericCompare)!;
    priority = classStep.selected;
  } else {
    priority = classes[0]!;
  }
  const keys = eligible.get(priority)!;
  const keyStep = referencePlanSibling(clocks?.keys.get(priority), keys, (k) => keyStride(fairness, k), utf8Compare)!;
  return {
    epoch: fairness.epoch,
    pool,
    mode: fairness.mode,
    priority,
    fairnessKey: keyStep.selected,
    classStep,
    keyStep,
    eligibleClasses: classes,
  };
}

function emptyClock<K>(): SiblingClock<K> {
  return { v: 0n, pass: new Map(), active: new Set() };
}

function applyStep<K>(clock: SiblingClock<K>, step: SiblingStep<K>): void {
  if (clock.v !== step.vBefore) fail('fairness_transition_stale', 'clock moved since the transition was planned');
  for (const [member, pass] of step.entered) clock.pass.set(member, pass);
  clock.active = new Set(step.active);
  clock.v = step.v;
  clock.pass.set(step.selected, step.pass);
}

export function referenceApplyTransition(fairness: FairnessState, transition: ClockTransition): void {
  let clocks = fairness.pools.get(transition.pool);
  if (clocks === undefined) {
    clocks = { classes: emptyClock(), keys: new Map() };
    fairness.pools.set(transition.pool, clocks);
  }
  if (transition.classStep !== null) applyStep(clocks.classes, transition.classStep);
  let keyClock = clocks.keys.get(transition.priority);
  if (keyClock === undefined) {
    keyClock = emptyClock();
    clocks.keys.set(transition.priority, keyClock);
  }
  applyStep(keyClock, transition.keyStep);
}

function cloneClock<K>(clock: SiblingClock<K>): SiblingClock<K> {
  return { v: clock.v, pass: new Map(clock.pass), active: new Set(clock.active) };
}

function forkPool(fairness: FairnessState, pool: string): FairnessState {
  const pools = new Map(fairness.pools);
  const clocks = fairness.pools.get(pool);
  if (clocks !== undefined) {
    const keys = new Map<number, SiblingClock<string>>();
    for (const [priority, clock] of clocks.keys) keys.set(priority, cloneClock(clock));
    pools.set(pool, { classes: cloneClock(clocks.classes), keys });
  }
  return { ...fairness, pools };
}

// ---------------------------------------------------------------- overlay

interface HeadScan {
  work: WorkRecord | null;
  observations: string[];
  skipped: Map<string, number>;
}

interface RefOverlay {
  pool: string;
  claimed: Set<string>;
  logical: number;
  byKey: Map<string, number>;
  native: number;
  fairness: FairnessState;
  heads: Map<string, HeadScan>;
  asOf: number;
}

function createOverlay(state: ReplayState, pool: string, asOf: number): RefOverlay {
  return { pool, claimed: new Set(), logical: 0, byKey: new Map(), native: 0, fairness: forkPool(state.fairness, pool), heads: new Map(), asOf };
}

function bucketId(priority: number, key: string): string {
  return `${priority}\u0000${key}`;
}

function admitToOverlay(overlay: RefOverlay, work: WorkRecord, transition: ClockTransition, opensGroup: boolean): void {
  overlay.claimed.add(work.workId);
  overlay.logical++;
  overlay.byKey.set(work.fairnessKey, (overlay.byKey.get(work.fairnessKey) ?? 0) + 1);
  if (opensGroup) overlay.native++;
  referenceApplyTransition(overlay.fairness, transition);
  overlay.heads.delete(bucketId(work.effectivePriority, work.fairnessKey));
}

function extra(overlay: RefOverlay | undefined, pool: string): RefOverlay | undefined {
  return overlay !== undefined && overlay.pool === pool ? overlay : undefined;
}

function logicalOutstanding(state: ReplayState, pool: string, overlay?: RefOverlay): number {
  return (state.outstandingClaims.get(pool) ?? 0) + (extra(overlay, pool)?.logical ?? 0);
}

function accountOutstanding(state: ReplayState, pool: string, key: string, overlay?: RefOverlay): number {
  return (state.outstandingByKey.get(`${pool}\u0000${key}`) ?? 0) + (extra(overlay, pool)?.byKey.get(key) ?? 0);
}

function nativeOutstanding(state: ReplayState, pool: string, overlay?: RefOverlay): number {
  return (state.outstandingNative.get(pool) ?? 0) + (extra(overlay, pool)?.native ?? 0);
}

// ---------------------------------------------------------------- planNext

function candidateViews<K>(step: SiblingStep<K>): CandidateView[] {
  return step.candidates.slice(0, MAX_EXPLAINED).map((c: PassCandidate<K>) => ({
    member: String(c.member),
    pass: c.pass.toString(),
    stride: c.stride.toString(),
    entering: c.entering,
  }));
}

function levelView<K>(step: SiblingStep<K>): LevelView {
  return {
    selected: String(step.selected),
    v_before: step.vBefore.toString(),
    v_after: step.v.toString(),
    eligible: step.active.length,
    candidates: candidateViews(step),
  };
}

function scanHead(state: ReplayState, bucket: FifoTree, asOf: number, pool: PoolPolicy, overlay?: RefOverlay): HeadScan {
  const skipped = new Map<string, number>();
  for (const [, workId] of bucket.entries()) {
    const work = state.works.get(workId)!;
    if (overlay?.claimed.has(workId) === true) continue;
    const verdict = workGates(state, work, asOf, pool);
    if (verdict.eligible) return { work, observations: verdict.observations, skipped };
    skipped.set(verdict.reason, (skipped.get(verdict.reason) ?? 0) + 1);
  }
  return { work: null, observations: [], skipped };
}

function selectionReason(mode: SchedulingMode, t: ClockTransition): SelectionReason {
  if (t.eligibleClasses.length > 1) return mode === 'strict-priority' ? 'priority_class' : 'weighted_class';
  return t.keyStep.active.length > 1 ? 'weighted_key' : 'fifo_default';
}

function referencePlanNextWith(state: ReplayState, pool: string, asOf: number, overlay?: RefOverlay): PlanResult {
  const policy = poolPolicy(state, pool);
  const local = extra(overlay, pool);
  const fairness = local?.fairness ?? state.fairness;
  const logical = logicalOutstanding(state, pool, local);
  const available = availableIn(state.ready, pool) - (local?.claimed.size ?? 0);
  const explanation: Explanation = {
    source_tip: state.tip,
    policy_epoch: state.policy?.epoch ?? null,
    pool,
    as_of: asOf,
    mode: fairness.mode,
    outcome: 'no_work',
    reason: 'no_work',
    eligibility: { available, buckets: 0, eligible_buckets: 0, skipped: {}, blocked_buckets: 0 },
    class: null,
    key: null,
    work: null,
    capacity: {
      logical_before: logical,
      logical_after: logical,
      logical_limit: policy.logical_limit,
      account_before: null,
      account_after: null,
      per_account_limit: policy.per_account_limit ?? null,
      native_outstanding: nativeOutstanding(state, pool, local),
      native_limit: policy.native_limit,
    },
  };
  const noGrant = (reason: NoGrantReason): PlanResult => {
    explanation.outcome = reason;
    explanation.reason = reason;
    return { selected: false, reason, explanation };
  };
  if (state.controls.grants_paused) return noGrant('grants_paused');
  if (logical >= policy.logical_limit) return noGrant('capacity_blocked');
  if (available <= 0) return noGrant('no_work');

  const eligible = new Map<number, string[]>();
  const heads = new Map<string, HeadScan>();
  const skipped: Record<string, number> = {};
  const cache = local !== undefined && local.asOf === asOf ? local.heads : undefined;
  for (const [priority, keys] of bucketsOf(state.ready, pool)) {
    for (const [key, bucket] of keys) {
      explanation.eligibility.buckets++;
      if (policy.per_account_limit !== undefined && accountOutstanding(state, pool, key, local) >= policy.per_account_limit) {
        explanation.eligibility.blocked_buckets++;
        continue;
      }
      const id = bucketId(priority, key);
      let head = cache?.get(id);
      if (head === undefined) {
        head = scanHead(state, bucket, asOf, policy, local);
        cache?.set(id, head);
      }
      for (const [reason, n] of head.skipped) skipped[reason] = (skipped[reason] ?? 0) + n;
      if (head.work === null) continue;
      heads.set(id, head);
      let list = eligible.get(priority);
      if (list === undefined) eligible.set(priority, (list = []));
      list.push(key);
    }
  }
  explanation.eligibility.skipped = skipped;
  explanation.eligibility.eligible_buckets = heads.size;
  const transition = referencePlanPick(fairness, pool, eligible);
  if (transition === null) return noGrant('no_eligible_work');

  const head = heads.get(bucketId(transition.priority, transition.fairnessKey))!;
  const work = head.work!;
  const account = accountOutstanding(state, pool, work.fairnessKey, local);
  explanation.outcome = 'selected';
  explanation.reason = selectionReason(fairness.mode, transition);
  explanation.capacity.logical_after = logical + 1;
  explanation.capacity.account_before = account;
  explanation.capacity.account_after = account + 1;
  const clocks = fairness.pools.get(pool);
  const classV = (clocks?.classes.v ?? 0n).toString();
  explanation.class =
    transition.classStep !== null
      ? levelView(transition.classStep)
      : {
          selected: String(transition.priority),
          v_before: classV,
          v_after: classV,
          eligible: transition.eligibleClasses.length,
          candidates: [],
        };
  explanation.key = { priority: transition.priority, ...levelView(transition.keyStep) };
  let ahead = 0;
  for (const n of head.skipped.values()) ahead += n;
  explanation.work = {
    work_id: work.workId,
    graph_id: work.graphId,
    node_key: work.nodeKey,
    priority: transition.priority,
    fairness_key: work.fairnessKey,
    position: { ordinal: work.position.ordinal, operation: work.position.operation },
    bucket_position: ahead,
    observations: [...head.observations],
  };
  return { selected: true, work, observations: [...head.observations], transition, explanation };
}

/** The historical planNext: a fresh full walk of the pool. */
export function referencePlanNext(state: ReplayState, pool: string, asOf: number): PlanResult {
  return referencePlanNextWith(state, pool, asOf);
}

// ---------------------------------------------------------------- pack

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
