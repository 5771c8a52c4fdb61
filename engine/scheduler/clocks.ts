/**
 * Hierarchical virtual-pass clocks (spec 7.5): per pool, one class-level
 * sibling set and one key-level sibling set per priority class. Exact bigint
 * ticks: Q = LCM of the epoch's weights (including the default weight 1),
 * stride = Q / weight. Clocks live for one policy epoch (spec 7.10).
 *
 * Planning never mutates: `planPick` returns a `ClockTransition`; only
 * `applyTransition` (for an admitted Claim) changes a `FairnessState`.
 * `planPick`/`planSibling` evaluate the pick rule directly over a given
 * eligible set; `planNext` and the packer use the same rule incrementally
 * (prefix-planner.ts: per-class pass heaps), producing identical transitions.
 */
import { fail } from '../errors.ts';
import type { FairnessState, SchedulingMode, SiblingClock } from '../state/fairness.ts';
import { numericCompare, utf8Compare } from './order.ts';

export interface PassCandidate<K> {
  member: K;
  /** Pass compared (after the entry clamp). */
  pass: bigint;
  stride: bigint;
  /** Entering eligibility at this decision (clamped to V + stride). */
  entering: boolean;
}

/** One `pick` over a sibling set, as data (spec 7.5 pseudo-code). */
export interface SiblingStep<K> {
  /** The eligible set; it becomes the active set. (The prefix planner materializes it on first read.) */
  active: readonly K[];
  /** Clamped passes of entering members: max(previous P, V + stride). */
  entered: ReadonlyArray<readonly [K, bigint]>;
  selected: K;
  vBefore: bigint;
  /** New V = P[selected] before its charge. */
  v: bigint;
  /** P[selected] after the charge (v + stride). */
  pass: bigint;
  stride: bigint;
  /**
   * The leading eligible members sorted by (pass, stable order), at most
   * MAX_STEP_CANDIDATES of them (explanations list no more); the first is
   * `selected`. `active.length` is the full eligible count.
   */
  candidates: readonly PassCandidate<K>[];
}

/** Candidates a `SiblingStep` carries (and an explanation lists) per sibling set. */
export const MAX_STEP_CANDIDATES = 32;

export interface ClockTransition {
  epoch: string | null;
  pool: string;
  mode: SchedulingMode;
  priority: number;
  fairnessKey: string;
  /** Class-level pick; null in strict-priority mode, whose class clock never moves. */
  classStep: SiblingStep<number> | null;
  keyStep: SiblingStep<string>;
  /** Classes with at least one eligible key, ascending. */
  eligibleClasses: readonly number[];
}

export function classStride(fairness: FairnessState, priority: number): bigint {
  const stride = fairness.classStrides[priority - 1];
  return stride ?? fail('priority_invalid', `priority ${priority} is outside 1..5`);
}

export function keyStride(fairness: FairnessState, key: string): bigint {
  return fairness.keyStrides.get(key) ?? fairness.keyScale;
}

/** The pick rule of spec 7.5 over one sibling set, computed without mutation. */
export function planSibling<K>(
  clock: SiblingClock<K> | undefined,
  eligible: readonly K[],
  strideOf: (member: K) => bigint,
  compare: (a: K, b: K) => number,
): SiblingStep<K> | null {
  if (eligible.length === 0) return null; // no decision: V does not advance
  const vBefore = clock?.v ?? 0n;
  const entered: Array<readonly [K, bigint]> = [];
  const candidates: PassCandidate<K>[] = [];
  for (const member of eligible) {
    const stride = strideOf(member);
    const previous = clock?.pass.get(member) ?? 0n;
    const entering = clock === undefined || !clock.active.has(member);
    let pass = previous;
    if (entering) {
      // Entry/reactivation is the only clamp point: no idle credit.
      const floor = vBefore + stride;
      pass = previous > floor ? previous : floor;
      entered.push([member, pass]);
    }
    candidates.push({ member, pass, stride, entering });
  }
  candidates.sort((a, b) => (a.pass < b.pass ? -1 : a.pass > b.pass ? 1 : compare(a.member, b.member)));
  if (candidates.length > MAX_STEP_CANDIDATES) candidates.length = MAX_STEP_CANDIDATES;
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

/**
 * Plan one grant decision for `pool` given its scheduling-eligible set:
 * class → eligible fairness keys (spec 7.5). Weighted mode picks a class then
 * a key in it; strict mode takes the least eligible class, then picks a key.
 */
export function planPick(
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
    classStep = planSibling(clocks?.classes, classes, (c) => classStride(fairness, c), numericCompare)!;
    priority = classStep.selected;
  } else {
    priority = classes[0]!;
  }
  const keys = eligible.get(priority)!;
  const keyStep = planSibling(clocks?.keys.get(priority), keys, (k) => keyStride(fairness, k), utf8Compare)!;
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

export function emptyClock<K>(): SiblingClock<K> {
  return { v: 0n, pass: new Map(), active: new Set() };
}

/**
 * Apply one planned sibling step to `clock` (entry clamps, new active set, V, the winner's charge).
 * `setActive` false skips the new active set, for a caller that applies a later step of the
 * same clock before anything reads it (that step replaces the active set; nothing else here
 * reads it).
 */
export function applySiblingStep<K>(clock: SiblingClock<K>, step: SiblingStep<K>, what: string, setActive = true): void {
  if (clock.v !== step.vBefore) fail('fairness_transition_stale', `${what} clock moved since the transition was planned`);
  for (const [member, pass] of step.entered) clock.pass.set(member, pass);
  if (setActive) clock.active = new Set(step.active);
  clock.v = step.v;
  clock.pass.set(step.selected, step.pass);
}

/**
 * Apply an admitted Claim's transition (spec 7.5: only the selected path is charged).
 * `superseded` says a later transition of the same commit will be applied to the same key
 * clock (same pool and priority) before the clocks are read, so this step's active set, which
 * that one replaces, is not materialized (O(class size) per Claim otherwise); `classSuperseded`
 * says the same of the pool's class clock (a later transition with a class step). The clocks
 * end exactly as when every step sets it (engine/replay/grant-apply.test.ts).
 */
export function applyTransition(fairness: FairnessState, transition: ClockTransition, superseded = false, classSuperseded = false): void {
  if (transition.epoch !== fairness.epoch) {
    fail('fairness_epoch_mismatch', `transition planned in epoch ${String(transition.epoch)}, clocks are ${String(fairness.epoch)}`);
  }
  let clocks = fairness.pools.get(transition.pool);
  if (clocks === undefined) {
    clocks = { classes: emptyClock(), keys: new Map() };
    fairness.pools.set(transition.pool, clocks);
  }
  if (transition.classStep !== null) applySiblingStep(clocks.classes, transition.classStep, 'class', !classSuperseded);
  let keyClock = clocks.keys.get(transition.priority);
  if (keyClock === undefined) {
    keyClock = emptyClock();
    clocks.keys.set(transition.priority, keyClock);
  }
  applySiblingStep(keyClock, transition.keyStep, 'key', !superseded);
}

export function cloneClock<K>(clock: SiblingClock<K>): SiblingClock<K> {
  return { v: clock.v, pass: new Map(clock.pass), active: new Set(clock.active) };
}

/** A copy sharing everything but `pool`'s clocks, for tentative packing (spec 7.3). */
export function forkPool(fairness: FairnessState, pool: string): FairnessState {
  const pools = new Map(fairness.pools);
  const clocks = fairness.pools.get(pool);
  if (clocks !== undefined) {
    const keys = new Map<number, SiblingClock<string>>();
    for (const [priority, clock] of clocks.keys) keys.set(priority, cloneClock(clock));
    pools.set(pool, { classes: cloneClock(clocks.classes), keys });
  }
  return { ...fairness, pools };
}

/** Class-level V of `pool` as a canonical decimal string. */
export function classV(fairness: FairnessState, pool: string): string {
  return (fairness.pools.get(pool)?.classes.v ?? 0n).toString();
}

/** Key-level V of class `priority` in `pool` as a canonical decimal string. */
export function keyV(fairness: FairnessState, pool: string, priority: number): string {
  return (fairness.pools.get(pool)?.keys.get(priority)?.v ?? 0n).toString();
}

export interface SiblingView {
  v: string;
  pass: Record<string, string>;
  active: string[];
}

function view<K extends string | number>(clock: SiblingClock<K> | undefined, compare: (a: K, b: K) => number): SiblingView {
  const members = [...(clock?.pass.keys() ?? [])].sort(compare);
  const pass = Object.create(null) as Record<string, string>; // keyed by fairness key
  for (const m of members) pass[String(m)] = clock!.pass.get(m)!.toString();
  return { v: (clock?.v ?? 0n).toString(), pass, active: [...(clock?.active ?? [])].sort(compare).map(String) };
}

/** Diagnostic view of a pool's clocks (decimal strings; spec 7.13). */
export function clockView(fairness: FairnessState, pool: string): { classes: SiblingView; keys: Record<string, SiblingView> } {
  const clocks = fairness.pools.get(pool);
  const keys: Record<string, SiblingView> = {};
  for (const priority of [...(clocks?.keys.keys() ?? [])].sort(numericCompare)) {
    keys[String(priority)] = view(clocks!.keys.get(priority), utf8Compare);
  }
  return { classes: view(clocks?.classes, numericCompare), keys };
}
