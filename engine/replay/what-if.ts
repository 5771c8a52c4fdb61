/**
 * A hypothetical queue for the fairness what-if: the live projection with other scheduling
 * economics (mode, class and accounting weights) installed on its own live clocks, passes
 * rescaled when the tick scales differ (spec 7.5). `predictLine` on it is the proposal's
 * line. Read-only: it shares the live projection's records.
 */
import { installedPolicy } from '../scheduler/policy-view.ts';
import { createFairnessState, type FairnessState, type PoolClocks, type SiblingClock } from '../state/fairness.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { Projection } from './projection.ts';

export interface Economics {
  mode: 'weighted-priority' | 'strict-priority';
  class_weights: number[];
  accounting_weights: Record<string, number>;
}

function scaleClock<K>(clock: SiblingClock<K>, num: bigint, den: bigint): SiblingClock<K> {
  const pass = new Map<K, bigint>();
  for (const [k, p] of clock.pass) pass.set(k, (p * num) / den);
  return { v: (clock.v * num) / den, pass, active: new Set(clock.active) };
}

/** `source` with `economics` installed on its own (live) clocks; `rescaled` when the tick scales differ. */
export function withEconomics(source: QueueSource, economics: Economics): { projection: Projection; rescaled: boolean } {
  const state = stateOf(source);
  const record = state.policy!;
  const policy = { ...installedPolicy(state), mode: economics.mode, class_weights: economics.class_weights, accounting_weights: economics.accounting_weights };
  const live = state.fairness;
  const fresh = createFairnessState(policy, live.epoch);
  const rescaled = fresh.classScale !== live.classScale || fresh.keyScale !== live.keyScale;
  const pools = new Map<string, PoolClocks>();
  for (const [name, clocks] of live.pools) {
    const keys = new Map<number, SiblingClock<string>>();
    for (const [c, clock] of clocks.keys) keys.set(c, scaleClock(clock, fresh.keyScale, live.keyScale));
    pools.set(name, { classes: scaleClock(clocks.classes, fresh.classScale, live.classScale), keys });
  }
  const fairness: FairnessState = { ...fresh, pools };
  return { projection: new Projection({ ...state, policy: { ...record, policy }, fairness }), rescaled };
}
