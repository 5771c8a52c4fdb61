/**
 * The line (docs/console.md "Pages", `/next`): the order in which a pool's ready backlog would be
 * granted from the live clocks, absent new arrivals, Results and operator
 * actions. It is the real selector run forward — one `PrefixPlanner` over the
 * live state, `next()` then `admit()` per grant, exactly as the packer does
 * within one dispatch — never a second ranking.
 *
 * What the forecast assumes, so a reader can judge it:
 * - running Claims finish as needed, so the pool's logical capacity never
 *   stops the line (the planner runs on a copy of the state whose pool has an
 *   unbounded `logical_limit`); Claims are admitted one per dispatch group;
 * - grants are not paused (a paused pool's line is what resuming would do);
 * - the evaluation time stays `asOf`: Work waiting on a time gate (retry
 *   backoff, stale observation) at `asOf` is not in the line;
 * - a fairness key's per-account limit is honoured with its current
 *   outstanding Claims: Work of a key that reaches its limit waits until one
 *   of those Claims finishes, which the line cannot date, so it is `held`.
 * Cost: the planner's one walk of the buckets plus O(log n) per entry.
 */
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import { availableIn } from '../state/ready-index.ts';
import { eligibility, type Eligibility } from './eligibility.ts';
import type { NoGrantReason, SelectionReason } from './plan-types.ts';
import { installedPolicy, poolPolicy } from './policy-view.ts';
import { PrefixPlanner } from './prefix-planner.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export interface LineEntry {
  /** 1-based: the grant (counting from the next one) at which this Work would be picked. */
  position: number;
  work_id: string;
  graph_id: string;
  node_key: string;
  priority: number;
  fairness_key: string;
  /** Spec 7.13 code of the pick. */
  reason: SelectionReason;
  /** The class's pass when picked (weighted-priority), else null. */
  class_pass: string | null;
  /** The fairness key's pass within its class when picked. */
  key_pass: string;
  /** Classes and keys competing at that pick. */
  classes_eligible: number;
  keys_eligible: number;
}

export interface Line {
  pool: string;
  as_of: number;
  source_tip: string | null;
  mode: string;
  /** Grants are paused now: the line is what resuming would do. */
  paused: boolean;
  /** Logical Claims outstanding now and the pool's limit (the line assumes they finish as needed). */
  logical_outstanding: number;
  logical_limit: number;
  /** Available Work of the pool now, ready or not (the line's length when nothing is held or ineligible). */
  available: number;
  entries: LineEntry[];
  /** The line stopped at `limit`: more ready Work may follow. */
  truncated: boolean;
  /** Why the line ends: `limit`, `no_work` (everything ready is in it) or `no_eligible_work` (the rest is held or gated). */
  end: 'limit' | NoGrantReason;
}

/** Ceiling of one line computation (the pending-node limit bounds a pool's backlog anyway). */
export const MAX_LINE = 65_536;

/** The installed state with `pool`'s logical capacity unbounded and grants unpaused (shallow copies; `state` is not changed). */
function forecastState(state: ReplayState, pool: string): ReplayState {
  const record = state.policy!;
  const policy = installedPolicy(state);
  const pools: Record<string, PoolPolicy> = Object.create(null) as Record<string, PoolPolicy>;
  for (const name of Object.keys(policy.pools)) pools[name] = policy.pools[name]!;
  pools[pool] = { ...poolPolicy(state, pool), logical_limit: Number.MAX_SAFE_INTEGER };
  return {
    ...state,
    policy: { ...record, policy: { ...policy, pools } },
    controls: { ...state.controls, grants_paused: false },
  };
}

/**
 * Eligibility of `work` as the line judges it (the assumptions above: grants resumed, the pool's
 * logical capacity unbounded; its fairness key's per-account limit with the key's current
 * outstanding Claims): why a Work is not in the line. An eligible Work that is not in it was held
 * by its key's per-account limit, reached by earlier entries.
 */
export function lineEligibility(source: QueueSource, work: WorkRecord, asOf: number, pool: string = work.pool): Eligibility {
  return eligibility(forecastState(stateOf(source), pool), work, asOf, pool);
}

/** The predicted grant order of `pool`'s ready backlog at `asOf`, at most `limit` entries. */
export function predictLine(source: QueueSource, pool: string, asOf: number, limit: number = MAX_LINE): Line {
  const state = stateOf(source);
  const installed = poolPolicy(state, pool);
  const forecast = forecastState(state, pool);
  const planner = new PrefixPlanner(forecast, pool, asOf);
  const bound = Math.max(0, Math.min(limit, MAX_LINE));
  const entries: LineEntry[] = [];
  let end: Line['end'] = 'limit';
  for (;;) {
    if (entries.length >= bound) break;
    const plan = planner.next();
    if (!plan.selected) {
      end = plan.reason;
      break;
    }
    const { work, transition, explanation } = plan;
    const key = explanation.key!;
    const klass = explanation.class!;
    entries.push({
      position: entries.length + 1,
      work_id: work.workId,
      graph_id: work.graphId,
      node_key: work.nodeKey,
      priority: key.priority,
      fairness_key: work.fairnessKey,
      reason: explanation.reason as SelectionReason,
      class_pass: transition.classStep === null ? null : transition.classStep.v.toString(),
      key_pass: transition.keyStep.v.toString(),
      classes_eligible: klass.eligible,
      keys_eligible: key.eligible,
    });
    // One Claim per group: native capacity is not charged by the forecast (groups finish as needed too).
    planner.admit(work, transition, false);
  }
  return {
    pool,
    as_of: asOf,
    source_tip: state.tip,
    mode: forecast.fairness.mode,
    paused: state.controls.grants_paused,
    logical_outstanding: state.outstandingClaims.get(pool) ?? 0,
    logical_limit: installed.logical_limit,
    available: availableIn(state.ready, pool),
    entries,
    truncated: end === 'limit',
    end,
  };
}
