/**
 * The one selector (spec 7.7, 7.13): `planNext` returns the next fair winner
 * of a pool and its explanation from the same computation, without changing
 * its input. The computation lives in `PrefixPlanner` (prefix-planner.ts),
 * which the packer keeps across the decisions of one prefix; a caller may
 * still pass an overlay holding a tentative prefix of its own.
 */
import type { WorkRecord } from '../replay/state.ts';
import type { ClockTransition, SchedulingMode } from './clocks.ts';
import type { PlanOverlay } from './overlay.ts';
import { PrefixPlanner } from './prefix-planner.ts';
import { stateOf, type QueueSource } from '../replay/projection.ts';

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

/** A decision without its explanation (`PrefixPlanner.decide`). */
export type Decision =
  | { selected: true; work: WorkRecord; observations: string[]; transition: ClockTransition }
  | { selected: false; reason: NoGrantReason };

export type PlanResult =
  | { selected: true; work: WorkRecord; observations: string[]; transition: ClockTransition; explanation: Explanation }
  | { selected: false; reason: NoGrantReason; explanation: Explanation };

/**
 * Next fair winner of `pool` at `asOf` (spec 7.3 competition set, 7.5 pick),
 * with its proposed clock transition. Never mutates `state`; with an overlay,
 * its tentative Claims, charges and clocks are taken into account. Cost: one
 * walk of the pool's buckets, a heap over the selected class's eligible keys
 * (O(class size)), and O(log n) for the pick and its bounded explanation.
 */
export function planNext(source: QueueSource, pool: string, asOf: number, overlay?: PlanOverlay): PlanResult {
  const state = stateOf(source);
  return new PrefixPlanner(state, pool, asOf, overlay).next();
}
