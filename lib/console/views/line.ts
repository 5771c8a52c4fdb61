/**
 * The line (docs/console.md "Pages", `/next`, page `/next` and each ready Work's page): the
 * predicted grant order of a pool's ready backlog from `predictLine` (the
 * engine's real selector run forward on the live clocks), with names, and a
 * time estimate from the pool's recent grant rate, labelled as an estimate.
 */
import type { Projection } from '../../../engine/replay/index.ts';
import { predictLine, type Line } from '../../../engine/scheduler/line.ts';
import { grantRate, positionInLine, type GrantRate, type LinePosition } from '../../../engine/scheduler/line-position.ts';

export { grantRate, RATE_WINDOW, ordinal, positionText, type GrantRate, type LinePosition } from '../../../engine/scheduler/line-position.ts';

export interface LineView {
  pool: string;
  pools: string[];
  line: Line;
  rate: GrantRate | null;
}

/**
 * Full lines are reused for requests within this many ms on the same tip (a
 * 4,096-Work line costs a few hundred ms on a busy machine; every ready Work's
 * page reads it).
 */
export const LINE_REUSE_MS = 5_000;
const cache = new WeakMap<Projection, Map<string, { tip: string | null; asOf: number; line: Line }>>();

function cachedLine(projection: Projection, pool: string, asOf: number): Line {
  let byPool = cache.get(projection);
  if (byPool === undefined) cache.set(projection, (byPool = new Map()));
  const hit = byPool.get(pool);
  const tip = projection.tip;
  if (hit !== undefined && hit.tip === tip && asOf >= hit.asOf && asOf - hit.asOf < LINE_REUSE_MS) return hit.line;
  const line = predictLine(projection, pool, asOf);
  byPool.set(pool, { tip, asOf, line });
  return line;
}

/** The line of `pool` (default: the first configured pool); null when the pool does not exist. */
export function lineView(projection: Projection, asOf: number, pool: string | null, limit?: number): LineView | null {
  const pools = projection.poolNames;
  const chosen = pool ?? pools[0];
  if (chosen === undefined || !pools.includes(chosen)) return null;
  const line = limit === undefined ? cachedLine(projection, chosen, asOf) : predictLine(projection, chosen, asOf, limit);
  return { pool: chosen, pools, line, rate: grantRate(projection, chosen, asOf) };
}

/** Where `workId` stands in its pool's line; null when it is not in it (not ready, held or gated). */
export function linePosition(projection: Projection, asOf: number, workId: string): LinePosition | null {
  const work = projection.work(workId);
  if (work === undefined || work.state !== 'available' || projection.policy === null) return null;
  const view = lineView(projection, asOf, work.pool);
  if (view === null) return null;
  return positionInLine(view.line, workId, view.rate);
}
