/**
 * The reference's planNext (reference-pack.ts): a fresh full walk of the pool's buckets, each
 * head scanned through the gates, then the pick over every eligible (priority, fairness key),
 * with its explanation; through an overlay when a pack is planning its next Claim.
 */
import type { ReplayState } from '../../engine/state/state.ts';
import type { PoolPolicy } from '../../engine/schema/policy.ts';
import type { ClockTransition, PassCandidate, SiblingStep } from '../../engine/scheduler/clocks.ts';
import type { SchedulingMode } from '../../engine/state/fairness.ts';
import { workGates } from '../../engine/scheduler/eligibility.ts';
import type { FifoTree } from '../../engine/state/fifo-tree.ts';
import type { CandidateView, Explanation, LevelView, NoGrantReason, PlanResult, SelectionReason } from '../../engine/scheduler/plan-types.ts';
import { poolPolicy } from '../../engine/scheduler/policy-view.ts';
import { availableIn, bucketsOf } from '../../engine/state/ready-index.ts';
import { referencePlanPick } from './reference-clocks.ts';
import { accountOutstanding, bucketId, extra, logicalOutstanding, nativeOutstanding, type HeadScan, type RefOverlay } from './reference-overlay.ts';

const MAX_EXPLAINED = 32;

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

export function referencePlanNextWith(state: ReplayState, pool: string, asOf: number, overlay?: RefOverlay): PlanResult {
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
