/**
 * What a plan answers (spec 7.13): the decision, the no-grant and selection codes, and the
 * explanation `planNext` and the packer build from the same computation (plan.ts,
 * prefix-planner.ts).
 */
import type { WorkRecord } from '../state/state.ts';
import type { SchedulingMode } from '../state/fairness.ts';
import type { ClockTransition } from './clocks.ts';

export type NoGrantReason = 'grants_paused' | 'capacity_blocked' | 'no_work' | 'no_eligible_work';
/** Stable explanation codes of spec 7.13. */
export type SelectionReason = 'fifo_default' | 'priority_class' | 'weighted_class' | 'weighted_key';

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

/**
 * A decision without its explanation (`PrefixPlanner.decide`). Its `observations` are the
 * planner's own list for the winner's bucket (read, never written: the explained packer copies
 * it into the Claim, replay's grant check only compares it), not a copy per decision.
 */
export type Decision =
  | { selected: true; work: WorkRecord; observations: readonly string[]; transition: ClockTransition }
  | { selected: false; reason: NoGrantReason };

export type PlanResult =
  | { selected: true; work: WorkRecord; observations: string[]; transition: ClockTransition; explanation: Explanation }
  | { selected: false; reason: NoGrantReason; explanation: Explanation };
