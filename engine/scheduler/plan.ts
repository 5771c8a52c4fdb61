/**
 * The one selector (spec 7.7, 7.13): `planNext` returns the next fair winner
 * of a pool and its explanation from the same computation, without changing
 * its input. The computation lives in `PrefixPlanner` (prefix-planner.ts),
 * which the packer keeps across the decisions of one prefix; a caller may
 * still pass an overlay holding a tentative prefix of its own.
 */
import { stateOf, type QueueSource } from '../state/source.ts';
import type { PlanOverlay } from './overlay.ts';
import type { PlanResult } from './plan-types.ts';
import { PrefixPlanner } from './prefix-planner.ts';

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
