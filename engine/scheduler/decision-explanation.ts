/**
 * The explanation of one planner decision (spec 7.13): what `planNext` and
 * the packer report beside a winner or a no-grant, built from what the
 * decision already computed. prefix-planner.ts decides; this module only
 * writes the record (it never changes a decision: replay's grant check runs
 * the same decision without an explanation).
 */
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import type { FairnessState } from '../state/fairness.ts';
import type { SiblingStep } from './clocks.ts';
import type { CandidateView, Decision, Explanation, LevelView, NoGrantReason, PlanResult, SelectionReason } from './plan-types.ts';

/** What a decision knew before it read the buckets. */
export interface DecisionContext {
  state: ReplayState;
  pool: string;
  policy: PoolPolicy;
  fairness: FairnessState;
  asOf: number;
  /** Logical Claims outstanding in the pool, the prefix's included. */
  logical: number;
  /** Available Work not claimed by the prefix. */
  available: number;
  nativeOutstanding: number;
}

/** A decision's explanation before the buckets are read (no-grant until filled in). */
export function openExplanation(c: DecisionContext): Explanation {
  return {
    source_tip: c.state.tip,
    policy_epoch: c.state.policy?.epoch ?? null,
    pool: c.pool,
    as_of: c.asOf,
    mode: c.fairness.mode,
    outcome: 'no_work',
    reason: 'no_work',
    eligibility: { available: c.available, buckets: 0, eligible_buckets: 0, skipped: {}, blocked_buckets: 0 },
    class: null,
    key: null,
    work: null,
    capacity: {
      logical_before: c.logical,
      logical_after: c.logical,
      logical_limit: c.policy.logical_limit,
      account_before: null,
      account_after: null,
      per_account_limit: c.policy.per_account_limit ?? null,
      native_outstanding: c.nativeOutstanding,
      native_limit: c.policy.native_limit,
    },
  };
}

/** A no-grant decision, with its explanation when one is being built. */
export function noGrant(reason: NoGrantReason, explanation: Explanation | null): Decision | PlanResult {
  if (explanation === null) return { selected: false, reason };
  explanation.outcome = reason;
  explanation.reason = reason;
  return { selected: false, reason, explanation };
}

/** What a selecting decision computed, as its explanation reports it. */
export interface Selection {
  mode: FairnessState['mode'];
  logical: number;
  /** The winner's account outstanding before this Claim. */
  account: number;
  /** Eligible priority classes, ascending. */
  classes: readonly number[];
  classStep: SiblingStep<number> | null;
  /** V of the class clock (reported as both before and after when the class level had no step). */
  classV: bigint;
  priority: number;
  keyStep: SiblingStep<string>;
  keyViews: CandidateView[];
  /** Keys still eligible in the winner's class. */
  keys: number;
  work: WorkRecord;
  observations: readonly string[];
  /** Ineligible entries skipped ahead of the winner in its bucket. */
  bucketPosition: number;
}

/** Fill in the explanation of a decision that selected `s.work`. */
export function explainSelection(explanation: Explanation, s: Selection): void {
  const { work, priority, keyStep } = s;
  explanation.outcome = 'selected';
  explanation.reason = selectionReason(s.mode, s.classes.length, s.keys);
  explanation.capacity.logical_after = s.logical + 1;
  explanation.capacity.account_before = s.account;
  explanation.capacity.account_after = s.account + 1;
  const classV = s.classV.toString();
  explanation.class =
    s.classStep !== null
      ? levelView(s.classStep, s.classes.length)
      : { selected: String(priority), v_before: classV, v_after: classV, eligible: s.classes.length, candidates: [] };
  explanation.key = {
    priority,
    selected: keyStep.selected,
    v_before: keyStep.vBefore.toString(),
    v_after: keyStep.v.toString(),
    eligible: s.keys,
    candidates: s.keyViews,
  };
  explanation.work = {
    work_id: work.workId,
    graph_id: work.graphId,
    node_key: work.nodeKey,
    priority,
    fairness_key: work.fairnessKey,
    position: { ordinal: work.position.ordinal, operation: work.position.operation },
    bucket_position: s.bucketPosition,
    observations: [...s.observations],
  };
}

function levelView<K>(step: SiblingStep<K>, eligible: number): LevelView {
  return {
    selected: String(step.selected),
    v_before: step.vBefore.toString(),
    v_after: step.v.toString(),
    eligible,
    candidates: step.candidates.map((c) => ({ member: String(c.member), pass: c.pass.toString(), stride: c.stride.toString(), entering: c.entering })),
  };
}

function selectionReason(mode: FairnessState['mode'], classes: number, keys: number): SelectionReason {
  if (classes > 1) return mode === 'strict-priority' ? 'priority_class' : 'weighted_class';
  return keys > 1 ? 'weighted_key' : 'fifo_default';
}
