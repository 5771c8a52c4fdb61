/**
 * Reconciliation decisions for an unbound start marker (spec 7.8 "Run binding and bounded
 * reconciliation", 7.18), pure. Candidates are the run a POST response named and the runs
 * discovered by the exact delimited dispatch id in their title whose launch principal is
 * the group's. One valid candidate is bound; several possible launches (a response-named
 * run included) are a binding conflict that keeps the reservation; a response-named run
 * that is terminal proves the one launch ended. No candidate, elapsed time, a terminal dispatcher or a cancellation
 * request never prove nonlaunch: the budget ends in `launch_unresolved`, never a release.
 */
import type { NativeRunFacts, RunMismatch } from './run-identity.ts';

export interface Candidate {
  /** The run's original-attempt view. */
  run: NativeRunFacts;
  mismatches: RunMismatch[];
  /** Named by the group's own dispatch response (recorded in the ledger's evidence). */
  reported: boolean;
}

export type UnboundDecision =
  | { action: 'bind'; runId: string }
  | { action: 'conflict'; runIds: string[] }
  | { action: 'invalid'; runId: string; mismatches: RunMismatch[] }
  | { action: 'none' };

/** Possible launches: response-named runs, and title matches launched by the group's principal. */
export function possibleLaunches(candidates: readonly Candidate[]): Candidate[] {
  return candidates.filter((c) => c.reported || !c.mismatches.includes('run_principal_mismatch'));
}

/**
 * "Multiple matching runs are a binding conflict" (spec 7.8): the response naming one run does
 * not make it the launch when discovery finds another run carrying the group's dispatch id, so
 * several possible launches are a conflict whether or not a response named one of them.
 */
export function decideUnbound(candidates: readonly Candidate[]): UnboundDecision {
  const possible = possibleLaunches(candidates);
  if (possible.length >= 2) return { action: 'conflict', runIds: possible.map((c) => c.run.run_id) };
  const only = possible[0];
  if (only === undefined) return { action: 'none' };
  if (only.mismatches.length === 0) return { action: 'bind', runId: only.run.run_id };
  // Even terminated, a run that does not match the approved profile was never bound: its
  // terminal state is not exact evidence for this group (spec 7.8), so the reservation stays.
  return { action: 'invalid', runId: only.run.run_id, mismatches: only.mismatches };
}

export interface Budget {
  polls: number;
  maxAttempts: number;
  now: number;
  /** Start marker decision time: the deadline origin (restarting never resets it). */
  startedAt: number;
  deadlineMs: number;
}

/** Bounded attempts or the configured deadline stop automated polling (never a release). */
export function budgetExhausted(b: Budget): boolean {
  return b.polls >= b.maxAttempts || b.now - b.startedAt >= b.deadlineMs;
}

export const UNRESOLVED_NEXT_ACTION =
  'capacity is retained: restore GitHub API access or credentials, let the worker bind itself (fairway activate), '
  + 'or obtain exact terminal or nonlaunch evidence, then run fairway reconcile again';

/** Several runs carry one dispatch id (spec 7.8): none gets authority until every candidate is reported completed. */
export const CONFLICT_NEXT_ACTION = 'several runs carry this dispatch id and none gets authority: the reservation is kept until GitHub reports every candidate run completed';

/** Group outcomes whose launch stays unresolved: its reservation is kept and someone must act. */
const LAUNCH_UNRESOLVED: ReadonlySet<string> = new Set(['launch_unresolved', 'run_binding_conflict', 'run_identity_invalid']);

/**
 * The stable code of a reconciliation pass that leaves work unresolved (spec 7.18: "Exhausting a
 * bounded observation budget reports launch_unresolved or unavailable evidence, not success"):
 * `launch_unresolved` when some group's launch stays unresolved (an exhausted budget, a run
 * binding conflict, a possible launch whose identity does not match), else
 * `evidence_unavailable` when GitHub could not be read for some group's evidence; null when every
 * group is released, running, or reserved (waiting on its own dispatcher is not a failure).
 */
export function unresolvedCode(outcomes: readonly string[]): 'launch_unresolved' | 'evidence_unavailable' | null {
  if (outcomes.some((o) => LAUNCH_UNRESOLVED.has(o))) return 'launch_unresolved';
  if (outcomes.includes('evidence_unavailable')) return 'evidence_unavailable';
  return null;
}
