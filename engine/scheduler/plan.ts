/**
 * The one selector (spec 7.7, 7.13): `planNext` returns the next fair winner
 * of a pool and its explanation from the same computation, without changing
 * its input. The packer passes an overlay holding its tentative prefix.
 */
import type { ReplayState, WorkRecord } from '../replay/state.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import { planPick, type ClockTransition, type PassCandidate, type SchedulingMode, type SiblingStep } from './clocks.ts';
import { workGates } from './eligibility.ts';
import type { FifoTree } from './fifo-tree.ts';
import {
  accountOutstanding,
  bucketId,
  fairnessOf,
  logicalOutstanding,
  nativeOutstanding,
  type HeadScan,
  type PlanOverlay,
} from './overlay.ts';
import { poolPolicy } from './policy-view.ts';
import { availableIn, bucketsOf } from './ready-index.ts';

export type NoGrantReason = 'grants_paused' | 'capacity_blocked' | 'no_work' | 'no_eligible_work';
/** Stable explanation codes of spec 7.13. */
export type SelectionReason = 'fifo_default' | 'priority_class' | 'weighted_class' | 'weighted_key';

/** Candidates listed per sibling set in an explanation (the count is always given). */
export const MAX_EXPLAINED_CANDIDATES = 32;

export interface CandidateView {
  member: string;
  pass: string;
  stride: string;
  entering: boolean;
}

export interface LevelView {
  selected: string;
  /** V before and after this decision (unchanged for a strict-priority class level). */
  v_before: string;
  v_after: string;
  eligible: number;
  candidates: CandidateView[];
}

export interface Explanation {
  source_tip: string | null;
  policy_epoch: string | null;
  pool: string;
  as_of: number;
  mode: SchedulingMode;
  /** `selected` or the no-grant code (the canonical-prefix fixture's `reason`). */
  outcome: 'selected' | NoGrantReason;
  /** Spec 7.13 code: how the winner was chosen, or the no-grant code. */
  reason: SelectionReason | NoGrantReason;
  eligibility: {
    available: number;
    buckets: number;
    eligible_buckets: number;
    /** Bucket heads inspected and found ineligible, by reason. */
    skipped: Record<string, number>;
    /** Whole buckets blocked by their key's outstanding-Claim limit. */
    blocked_buckets: number;
  };
  class: LevelView | null;
  key: (LevelView & { priority: number }) | null;
  work: {
    work_id: string;
    graph_id: string;
    node_key: string;
    priority: number;
    fairness_key: string;
    position: { ordinal: number; operation: number };
    /** Entries ahead of it in its bucket (ineligible heads it overtook). */
    bucket_position: number;
    observations: string[];
  } | null;
  capacity: {
    logical_before: number;
    logical_after: number;
    logical_limit: number;
    account_before: number | null;
    account_after: number | null;
    per_account_limit: number | null;
    native_outstanding: number;
    native_limit: number;
  };
}

export type PlanResult =
  | { selected: true; work: WorkRecord; observations: string[]; transition: ClockTransition; explanation: Explanation }
  | { selected: false; reason: NoGrantReason; explanation: Explanation };

function candidateViews<K>(step: SiblingStep<K>): CandidateView[] {
  return step.candidates.slice(0, MAX_EXPLAINED_CANDIDATES).map((c: PassCandidate<K>) => ({
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

/** Scan a bucket from its FIFO head for the first Work passing the Work-level gates. */
function scanHead(state: ReplayState, bucket: FifoTree, asOf: number, pool: PoolPolicy, overlay?: PlanOverlay): HeadScan {
  const skipped = new Map<string, number>();
  for (const [, workId] of bucket.entries()) {
    const work = state.works.get(workId)!;
    if (overlay?.claimed.has(workId) === true) continue;
    const verdict = workGates(state, work, asOf, pool, overlay);
    if (verdict.eligible) return { work, observations: verdict.observations, skipped };
    skipped.set(verdict.reason, (skipped.get(verdict.reason) ?? 0) + 1);
  }
  return { work: null, observations: [], skipped };
}

/**
 * Next fair winner of `pool` at `asOf` (spec 7.3 competition set, 7.5 pick),
 * with its proposed clock transition. Never mutates `state`; with an overlay,
 * its tentative Claims, charges and clocks are taken into account.
 */
export function planNext(state: ReplayState, pool: string, asOf: number, overlay?: PlanOverlay): PlanResult {
  const policy = poolPolicy(state, pool);
  const fairness = fairnessOf(state, pool, overlay);
  const local = overlay !== undefined && overlay.pool === pool ? overlay : undefined;
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
  // Reference precedence: pause, pool capacity, empty backlog, then eligibility.
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
  const transition = planPick(fairness, pool, eligible);
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

function selectionReason(mode: SchedulingMode, t: ClockTransition): SelectionReason {
  if (t.eligibleClasses.length > 1) return mode === 'strict-priority' ? 'priority_class' : 'weighted_class';
  return t.keyStep.active.length > 1 ? 'weighted_key' : 'fifo_default';
}
