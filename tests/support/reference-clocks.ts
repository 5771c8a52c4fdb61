/**
 * The reference's stride clocks (reference-pack.ts): its own frozen copies of the pick rule
 * (one sibling step per level, the class then the fairness key), the application of a planned
 * transition, and the fork of a pool's clocks an overlay plans on.
 */
import { fail } from '../../engine/errors.ts';
import type { ClockTransition, PassCandidate, SiblingStep } from '../../engine/scheduler/clocks.ts';
import type { FairnessState, SiblingClock } from '../../engine/state/fairness.ts';
import { numericCompare, utf8Compare } from '../../engine/scheduler/order.ts';

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
