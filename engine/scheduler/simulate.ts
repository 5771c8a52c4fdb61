/**
 * `fairway simulate` core (design/INTERFACES.md, `engine/simulate`): a synthetic
 * backlog of (priority, fairness key) Work granted one decision at a time by
 * the real packer (`pack` → `planNext` → `planPick`) over a real
 * `ReplayState`, with each admitted Claim's clock transition applied exactly
 * as replay applies it (`applyTransition`). There is no second selector here.
 *
 * Model:
 * - `nodes` are admitted in order before the first grant; `events` fire when
 *   the grant count reaches `after_grants` (file order within one point).
 * - Each grant is one `dispatch_next {max_claims: 1}` whose Work completes at
 *   once, so logical and native capacity never bind.
 * - A bucket (priority, key) is eligible while it has backlog and its key is
 *   not paused. Backlog is materialized lazily, one available Work per bucket
 *   (Work in one bucket are interchangeable; FIFO order is kept). A paused
 *   key's Work stays in the ready index but is held back by the real retry
 *   gate (`retry_delayed`), so the eligibility decision is planNext's own.
 *
 * Share table, per class and per (class, key):
 * - `target_share`: the fluid reference. At every decision each eligible class
 *   is owed weight / (sum of eligible class weights) of one grant (strict mode:
 *   the least eligible class is owed all of it) and each eligible key owes its
 *   class's portion in proportion to its accounting weight among the class's
 *   eligible keys; `target_share` = owed / total grants. For a fixed,
 *   continuously eligible set it is weight / sum of weights (spec 7.5).
 * - `max_prefix_deviation`: max over prefixes n of |granted(n) - owed(n)|, in grants.
 * - `longest_zero_service`: the longest run of consecutive decisions at which
 *   the row was eligible and not served (an ineligible decision ends a run).
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import { createState, type ReplayState, type WorkRecord } from '../state/state.ts';
import { applyTransition } from './clocks.ts';
import { createFairnessState, type FairnessState } from '../state/fairness.ts';
import { numericCompare, utf8Compare } from './order.ts';
import { pack } from './pack.ts';
import { bucketsOf, indexWork, unindexWork } from '../state/ready-index.ts';
import { MAX_SIMULATED_GRANTS, parseWorkload, type Workload, type WorkloadNode } from './workload.ts';
import { DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits } from '../schema/defaults.ts';

export interface SimulationGrant {
  priority: number;
  key: string;
}

export interface SimulationShare {
  level: 'class' | 'key';
  priority: number;
  /** Fairness key (null on a class row). */
  key: string | null;
  /** Class weight (class row) or accounting weight (key row; unregistered keys weigh 1). */
  weight: number;
  grants: number;
  target_share: number;
  actual_share: number;
  /** In grants: max over prefixes of |granted - owed|. */
  max_prefix_deviation: number;
  /** In decisions: longest eligible-but-unserved run. */
  longest_zero_service: number;
}

export interface SimulationResult {
  mode: FairnessState['mode'];
  requested: number;
  grants: SimulationGrant[];
  /** Class rows and their key rows, by priority, keys in UTF-8 order. */
  shares: SimulationShare[];
  /** Why the run ended before `requested` decisions: the packer's no-grant reason. */
  stopped: 'no_work' | 'no_eligible_work' | null;
}

const POOL = 'simulation';
const EPOCH = 'simulation';
const HELD = Number.MAX_SAFE_INTEGER;

// ------------------------------------------------------------------ the simulated queue

/** The installed Policy: the settings' scheduling economics, one roomy pool. */
function simulationPolicy(settings: JsonObject): JsonObject {
  const profile = {
    credential_scope: 'repository', effect_scope: 'simulation/simulation', max_claims: 1, principal: '1',
    ref: '0'.repeat(40), share_keys: false, trust_domain: 'default', workflow: '.github/workflows/worker.lock.yml',
  };
  return {
    mode: settings.mode ?? DEFAULT_MODE,
    class_weights: settings.class_weights ?? [...DEFAULT_CLASS_WEIGHTS],
    accounting_weights: { '': 1, ...(settings.accounting_weights as JsonObject | undefined) },
    producers: {},
    pools: {
      [POOL]: {
        allowed_repositories: ['simulation/simulation'], default_profile: 'default', logical_limit: 4096, native_limit: 4096,
        max_observation_age_ms: DEFAULT_MAX_OBSERVATION_AGE_MS, profiles: { default: profile }, reconciliation: { ...DEFAULT_RECONCILIATION },
        retry: { backoff_ms: DEFAULT_RETRY.backoff_ms, max_attempts: 16 },
      },
    },
    limits: defaultLimits(),
  };
}

interface Row {
  level: 'class' | 'key';
  priority: number;
  key: string | null;
  weight: number;
  grants: number;
  owed: number;
  maxDeviation: number;
  run: number;
  longestRun: number;
  /** Last decision index at which the row was eligible. */
  lastEligible: number;
}

interface Bucket {
  priority: number;
  key: string;
  /** Work not yet granted, including the materialized one. */
  backlog: number;
  work: WorkRecord | null;
  row: Row;
}

class SimulatedQueue {
  readonly state: ReplayState;
  readonly fairness: FairnessState;
  /** priority → fairness key → bucket. */
  readonly buckets = new Map<number, Map<string, Bucket>>();
  readonly classRows = new Map<number, Row>();
  readonly paused = new Set<string>();
  private seq = 0;

  constructor(settings: JsonObject) {
    const policy = simulationPolicy(settings);
    this.state = createState();
    this.fairness = createFairnessState(policy, EPOCH);
    const record = { epoch: EPOCH, policy, commitId: 'simulation', ordinal: 0 };
    Object.assign(this.state, { tip: 'simulation', repository: 'simulation/simulation', policy: record, policyHistory: [record], fairness: this.fairness });
  }

  private row(level: 'class' | 'key', priority: number, key: string | null, weight: number): Row {
    return { level, priority, key, weight, grants: 0, owed: 0, maxDeviation: 0, run: 0, longestRun: 0, lastEligible: -2 };
  }

  bucket(priority: number, key: string): Bucket {
    let keys = this.buckets.get(priority);
    if (keys === undefined) {
      keys = new Map();
      this.buckets.set(priority, keys);
      this.classRows.set(priority, this.row('class', priority, null, this.fairness.classWeights[priority - 1]!));
    }
    let b = keys.get(key);
    if (b === undefined) {
      const weight = this.fairness.keyWeights.get(key) ?? 1;
      b = { priority, key, backlog: 0, work: null, row: this.row('key', priority, key, weight) };
      keys.set(key, b);
    }
    return b;
  }

  /** One available Work for the bucket (an admitted, interchangeable unit of its backlog). */
  private materialize(b: Bucket): void {
    if (b.work !== null || b.backlog === 0) return;
    const n = this.seq++;
    const position = { ordinal: 1 + Math.floor(n / 256), operation: n % 256 };
    const workId = `sim-${n}`;
    const work: WorkRecord = {
      workId, graphId: 'simulation', nodeKey: workId, pool: POOL, workerProfile: 'default', batchTrustDomain: 'default',
      priority: b.priority, effectivePriority: b.priority, fairnessKey: b.key, dependsOn: [], enqueued: 0,
      definition: { kind: 'Work', work_id: workId, payload: {} }, executionRef: null, backingIssue: null, replacementOf: null, position, fifo: position.ordinal * 65536 + position.operation,
      admittedCommit: 'simulation', policyEpoch: EPOCH, state: 'available', barrier: 'none', currentClaim: null, claims: [],
      attempts: 0, retryNotBefore: this.paused.has(b.key) ? HELD : null, completionCommit: null, completionAt: null,
      resultCommit: null, deliveryFailureCommit: null, cancellationCommit: null, cancellationReason: null, touchedBy: [],
    };
    b.work = work;
    this.state.works.set(workId, work);
    indexWork(this.state.ready, work);
  }

  admit(n: WorkloadNode): void {
    const b = this.bucket(n.priority, n.key);
    b.backlog += n.count;
    this.materialize(b);
  }

  setPaused(key: string, paused: boolean): void {
    if (paused) this.paused.add(key);
    else this.paused.delete(key);
    for (const keys of this.buckets.values()) {
      const work = keys.get(key)?.work;
      if (work !== null && work !== undefined) work.retryNotBefore = paused ? HELD : null;
    }
  }

  /** The granted Work completes at once: it leaves the ready index; the next unit of backlog appears. */
  complete(workId: string): Bucket {
    const work = this.state.works.get(workId);
    if (work === undefined) return fail('simulation_inconsistent', `granted unknown Work ${workId}`);
    const b = this.bucket(work.effectivePriority, work.fairnessKey);
    work.state = 'completed';
    unindexWork(this.state.ready, work);
    this.state.works.delete(workId);
    b.work = null;
    b.backlog--;
    this.materialize(b);
    return b;
  }

  /** Eligible buckets by class, as the scheduler sees them (available, not held back). */
  eligible(): Map<number, Bucket[]> {
    const out = new Map<number, Bucket[]>();
    for (const [priority, keys] of bucketsOf(this.state.ready, POOL)) {
      const mine = this.buckets.get(priority)!;
      for (const key of keys.keys()) {
        if (this.paused.has(key)) continue;
        let list = out.get(priority);
        if (list === undefined) out.set(priority, (list = []));
        list.push(mine.get(key)!);
      }
    }
    return out;
  }
}

function touchRow(row: Row, decision: number, owed: number, served: boolean): void {
  if (row.lastEligible !== decision - 1) row.run = 0;
  row.lastEligible = decision;
  row.owed += owed;
  if (served) {
    row.grants++;
    row.run = 0;
  } else if (++row.run > row.longestRun) row.longestRun = row.run;
  const deviation = Math.abs(row.grants - row.owed);
  if (deviation > row.maxDeviation) row.maxDeviation = deviation;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Run up to `grants` decisions. `settings` holds QueuePolicy scheduling
 * fields: `mode`, `class_weights`, `accounting_weights` (as resolved from an
 * aw.json `work_queue` object). The workload is validated (`parseWorkload`).
 */
export function simulate(settings: JsonObject, workload: Workload, grants: number): SimulationResult {
  if (!Number.isSafeInteger(grants) || grants < 0 || grants > MAX_SIMULATED_GRANTS) {
    fail('workload_invalid', `grants must be an integer in 0..${MAX_SIMULATED_GRANTS}`, { path: 'grants' });
  }
  const { nodes, events } = parseWorkload(workload);
  const queue = new SimulatedQueue(settings);
  const { fairness } = queue;
  for (const n of nodes) queue.admit(n);
  for (const e of events) {
    if ('admit' in e) queue.bucket(e.admit.priority, e.admit.key); // rows exist from the start
  }
  const pending = [...events].sort((a, b) => a.after_grants - b.after_grants); // stable: file order within one point

  const granted: SimulationGrant[] = [];
  let next = 0;
  let stopped: SimulationResult['stopped'] = null;
  while (granted.length < grants) {
    while (next < pending.length && pending[next]!.after_grants <= granted.length) {
      const e = pending[next++]!;
      if ('admit' in e) queue.admit(e.admit);
      else if ('pause_key' in e) queue.setPaused(e.pause_key, true);
      else queue.setPaused(e.resume_key, false);
    }
    const decision = granted.length;
    const plan = pack(queue.state, {
      requestId: `simulate-${decision}`,
      commitId: `simulate-${decision}`,
      pool: POOL,
      max_claims: 1,
      max_dispatches: 1,
      max_bytes: 49152,
    }, 0);
    const claim = plan.claims[0];
    if (claim === undefined) {
      const reason = plan.stopReason;
      if (reason !== 'no_work' && reason !== 'no_eligible_work') fail('simulation_inconsistent', `unexpected stop ${reason}`);
      stopped = reason;
      break;
    }
    const transition = plan.transitions[0]!;
    // The fluid reference over the competition set planNext just used.
    const eligible = queue.eligible();
    const keyCount = eligible.get(transition.priority)?.length ?? 0;
    if (eligible.size !== transition.eligibleClasses.length || keyCount !== transition.keyStep.active.length) {
      fail('simulation_inconsistent', 'share accounting disagrees with the scheduler\'s eligible set');
    }
    let classTotal = 0;
    let least = Infinity;
    for (const priority of eligible.keys()) {
      classTotal += fairness.classWeights[priority - 1]!;
      least = Math.min(least, priority);
    }
    for (const [priority, buckets] of eligible) {
      const classOwed = fairness.mode === 'weighted-priority' ? fairness.classWeights[priority - 1]! / classTotal : priority === least ? 1 : 0;
      touchRow(queue.classRows.get(priority)!, decision, classOwed, priority === transition.priority);
      let keyTotal = 0;
      for (const b of buckets) keyTotal += b.row.weight;
      for (const b of buckets) {
        touchRow(b.row, decision, (classOwed * b.row.weight) / keyTotal, priority === transition.priority && b.key === transition.fairnessKey);
      }
    }
    // What replay does for the admitted Claim: charge the selected path (spec 7.5).
    applyTransition(queue.state.fairness, transition);
    queue.complete(claim.work_id);
    granted.push({ priority: transition.priority, key: transition.fairnessKey });
  }

  const total = granted.length;
  const share = (row: Row): SimulationShare => ({
    level: row.level,
    priority: row.priority,
    key: row.key,
    weight: row.weight,
    grants: row.grants,
    target_share: total === 0 ? 0 : round(row.owed / total),
    actual_share: total === 0 ? 0 : round(row.grants / total),
    max_prefix_deviation: round(row.maxDeviation),
    longest_zero_service: row.longestRun,
  });
  const shares: SimulationShare[] = [];
  for (const priority of [...queue.classRows.keys()].sort(numericCompare)) {
    shares.push(share(queue.classRows.get(priority)!));
    const keys = [...queue.buckets.get(priority)!.values()].sort((a, b) => utf8Compare(a.key, b.key));
    for (const b of keys) shares.push(share(b.row));
  }
  return { mode: fairness.mode, requested: grants, grants: granted, shares, stopped };
}
