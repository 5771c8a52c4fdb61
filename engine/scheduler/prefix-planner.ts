/**
 * Incremental selector behind `planNext` and the fair-prefix packer (spec 7.3,
 * 7.5, 7.7, 7.13).
 *
 * One `PrefixPlanner` serves one prefix of decisions of one pool at one
 * `asOf`. On its first decision it walks the pool's (priority, fairness key)
 * buckets once: the per-account block of each key, the FIFO head scan of
 * each unblocked bucket (Work-level gates evaluated once at `asOf`, reasons
 * only: eligibility.ts `workGateReason`), and the skipped-head tally. When a
 * priority class is first selected, its eligible keys get the entry clamp
 * `max(previous P, V + stride)` once and go into a `LeadingSet` keyed by (P,
 * UTF-8 key order): the MAX_STEP_CANDIDATES least kept sorted (the
 * explanation's candidate list) in front of a pass heap. A decision then
 * reads the winner and that list, and an admitted Claim costs
 * O(log n) plus O(MAX_STEP_CANDIDATES) moves: the winner's charge, the rescan
 * of its bucket from where the previous scan stopped, and, when its key
 * reaches its per-account limit, the removal of that key's buckets. One pack
 * is O(buckets) for the walk and the class sets plus that per Claim; the
 * `active`/`entered` lists of a step (O(class size)) are only materialized
 * when the transition is applied.
 *
 * Why the result equals a full re-walk (tests/support/reference-pack.ts) at
 * every decision: within a prefix the state and `asOf` are fixed and the
 * tentative Claims only consume Work and capacity, so the competition set only
 * shrinks — a bucket head becomes claimed (its bucket is rescanned), a key's
 * outstanding count reaches its limit (its buckets are blocked), the logical
 * limit is reached (no grant). No member ever re-enters. Hence for a class
 * not yet selected in the prefix its clock is untouched (entering flags and
 * clamped passes are those computed at the start), and once a class has been
 * selected its active set is the eligible set of that decision, a superset of
 * every later one: every later member is non-entering with exactly the pass
 * the heap holds. The class level (at most five classes) is planned with the
 * plain pick rule over a private copy of the class clock.
 *
 * Planning never mutates the replay state or its clocks; `admit` only moves
 * this planner's own tentative counters, copies and indexes. The indexes are
 * a struct of arrays over the buckets (no object per bucket or member).
 *
 * Beside it: bucket-table.ts (that struct of arrays and the skipped-head
 * tally), key-lane.ts (a class's key-level set and pick) and
 * decision-explanation.ts (the record `next()` reports; `decide()` builds none).
 */
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import {
  applySiblingStep,
  classStride,
  cloneClock,
  emptyClock,
  planSibling,
  type ClockTransition,
  type SiblingStep,
} from './clocks.ts';
import type { FairnessState, SiblingClock } from '../state/fairness.ts';
import { workGateReason } from './eligibility.ts';
import { numericCompare } from './order.ts';
import { accountKey } from '../state/mutate.ts';
import { bucketId, type HeadScan, type PlanOverlay } from './overlay.ts';
import { LazyClassStep } from './lazy-steps.ts';
import { pickKey, type Lane } from './key-lane.ts';
import { BucketTable, SkipTally } from './bucket-table.ts';
import { explainSelection, noGrant, openExplanation } from './decision-explanation.ts';
import type { Decision, PlanResult } from './plan-types.ts';
import { poolPolicy } from './policy-view.ts';
import { availableIn, bucketsOf } from '../state/ready-index.ts';

const NO_OBSERVATIONS: readonly string[] = Object.freeze([]);

interface Pending {
  transition: ClockTransition;
  lane: Lane;
  bucket: number;
}

export class PrefixPlanner {
  private readonly state: ReplayState;
  private readonly pool: string;
  private readonly asOf: number;
  private readonly policy: PoolPolicy;
  private readonly fairness: FairnessState;
  /** The caller's overlay (planNext with an overlay): read-only, one decision. */
  private readonly external: PlanOverlay | undefined;
  private readonly cache: Map<string, HeadScan> | undefined;

  // Tentative prefix (own, or the external overlay's).
  private readonly claimed: Set<string>;
  private readonly byKey: Map<string, number>;
  private logical: number;
  private native: number;
  private decisions = 0;
  private pending: Pending | null = null;

  // Indexes, built by the first decision that reaches the buckets.
  private table: BucketTable | null = null;
  private tally: SkipTally | null = null;
  /** Buckets of each fairness key (only kept under a per-account limit, the one way a key gets blocked). */
  private readonly keyBuckets = new Map<string, number[]>();
  private readonly lanes = new Map<number, Lane>();
  private lanesAscending: Lane[] = [];
  private blockedCount = 0;
  private eligibleCount = 0;
  /** Private copy of the pool's class clock (weighted mode moves it with each admitted pick). */
  private classClock: SiblingClock<number> | undefined;
  private readonly classStrideOf = (priority: number): bigint => classStride(this.fairness, priority);

  constructor(state: ReplayState, pool: string, asOf: number, overlay?: PlanOverlay) {
    this.state = state;
    this.pool = pool;
    this.asOf = asOf;
    this.policy = poolPolicy(state, pool);
    const local = overlay !== undefined && overlay.pool === pool ? overlay : undefined;
    this.external = local;
    this.fairness = local?.fairness ?? state.fairness;
    this.cache = local !== undefined && local.asOf === asOf ? local.heads : undefined;
    this.claimed = local?.claimed ?? new Set();
    this.byKey = local?.byKey ?? new Map();
    this.logical = local?.logical ?? 0;
    this.native = local?.native ?? 0;
    const classes = this.fairness.pools.get(pool)?.classes;
    this.classClock = classes === undefined ? undefined : cloneClock(classes);
  }

  /** Unreleased native reservations of the pool, including groups opened by this prefix. */
  nativeOutstanding(): number {
    return (this.state.outstandingNative.get(this.pool) ?? 0) + this.native;
  }

  private accountOutstanding(key: string): number {
    return (this.state.outstandingByKey.get(accountKey(this.pool, key)) ?? 0) + (this.byKey.get(key) ?? 0);
  }

  /**
   * The next fair winner given the prefix admitted so far, with its proposed
   * clock transition and explanation. Changes nothing.
   */
  next(): PlanResult {
    return this.step(true) as PlanResult;
  }

  /**
   * The same decision as `next()` without building its explanation (replay's check of a
   * committed grant reads only the winner, its transition and the stop reason). Both run
   * `step`, so they cannot disagree on the decision.
   */
  decide(): Decision {
    return this.step(false);
  }

  private step(explain: boolean): Decision | PlanResult {
    const { state, pool, policy, fairness } = this;
    this.pending = null;
    const logical = (state.outstandingClaims.get(pool) ?? 0) + this.logical;
    const available = availableIn(state.ready, pool) - this.claimed.size;
    const explanation = explain
      ? openExplanation({ state, pool, policy, fairness, asOf: this.asOf, logical, available, nativeOutstanding: this.nativeOutstanding() })
      : null;
    // Reference precedence: pause, pool capacity, empty backlog, then eligibility.
    if (state.controls.grants_paused) return noGrant('grants_paused', explanation);
    if (logical >= policy.logical_limit) return noGrant('capacity_blocked', explanation);
    if (available <= 0) return noGrant('no_work', explanation);

    const table = this.table ?? this.index();
    if (explanation !== null) {
      const eligibility = explanation.eligibility;
      eligibility.buckets = table.size;
      eligibility.blocked_buckets = this.blockedCount;
      eligibility.skipped = this.tally!.record();
      eligibility.eligible_buckets = this.eligibleCount;
    }
    if (this.eligibleCount === 0) return noGrant('no_eligible_work', explanation);

    const classes: number[] = [];
    for (const lane of this.lanesAscending) if (lane.count > 0) classes.push(lane.priority);
    let classStep: SiblingStep<number> | null = null;
    let priority: number;
    if (fairness.mode === 'weighted-priority') {
      // Replay's grant check: the same pick, its lists materialized on first read (lazy-steps.ts).
      classStep = explain ? planSibling(this.classClock, classes, this.classStrideOf, numericCompare)! : new LazyClassStep(this.classClock, classes, fairness);
      priority = classStep.selected;
    } else {
      priority = classes[0]!;
    }
    const lane = this.lanes.get(priority)!;
    const [keyStep, keyViews, b] = pickKey(table, lane, this.decisions, this.fairness, explain);
    const transition: ClockTransition = {
      epoch: fairness.epoch,
      pool,
      mode: fairness.mode,
      priority,
      fairnessKey: keyStep.selected,
      classStep,
      keyStep,
      eligibleClasses: classes,
    };
    this.pending = { transition, lane, bucket: b };

    const work = table.head[b]!;
    const observations = table.observations[b]!;
    if (explanation === null) return { selected: true, work, observations, transition };
    explainSelection(explanation, {
      mode: fairness.mode,
      logical,
      account: this.accountOutstanding(work.fairnessKey),
      classes,
      classStep,
      classV: this.classClock?.v ?? 0n,
      priority,
      keyStep,
      keyViews: keyViews!,
      keys: lane.count,
      work,
      observations,
      bucketPosition: table.ahead[b]!,
    });
    return { selected: true, work, observations: [...observations], transition, explanation };
  }

  /**
   * Admit the winner of the latest `next()` to the tentative prefix: its Work
   * is claimed, the logical (and, when it opens a group, native) capacity
   * charged, and its clock transition applied to this planner's clocks.
   */
  admit(work: WorkRecord, transition: ClockTransition, opensGroup: boolean): void {
    const pending = this.pending;
    const table = this.table;
    if (this.external !== undefined) throw new Error('PrefixPlanner.admit: the overlay belongs to the caller; use admitToOverlay');
    if (pending === null || table === null || pending.transition !== transition || table.head[pending.bucket] !== work) {
      throw new Error('PrefixPlanner.admit: only the winner of the latest decision can be admitted');
    }
    this.pending = null;
    const key = work.fairnessKey;
    this.claimed.add(work.workId);
    this.logical++;
    this.byKey.set(key, (this.byKey.get(key) ?? 0) + 1);
    if (opensGroup) this.native++;

    if (transition.classStep !== null) {
      if (this.classClock === undefined) this.classClock = emptyClock();
      applySiblingStep(this.classClock, transition.classStep, 'class');
    }
    const { lane, bucket: b } = pending;
    lane.v = transition.keyStep.v;
    lane.picked = true;
    table.pass[b] = transition.keyStep.pass;
    table.passText[b] = undefined;
    lane.set!.update(b);

    // From the next decision on: the claimed head is gone, and the key may be at its limit.
    this.decisions++;
    const limit = this.policy.per_account_limit;
    if (limit !== undefined && this.accountOutstanding(key) >= limit) {
      for (const other of this.keyBuckets.get(key)!) this.block(table, other);
    } else {
      this.scan(table, b, table.scanned[b]!, true);
      if (table.head[b] === null) this.leave(table, b);
    }
  }

  /** Walk the pool's buckets once: per-account blocks, head scans, skipped tally, class lanes. */
  private index(): BucketTable {
    const { state, pool, fairness } = this;
    const buckets = bucketsOf(state.ready, pool);
    let size = 0;
    for (const keys of buckets.values()) size += keys.size;
    const table = new BucketTable(size);
    const tally = new SkipTally(table);
    this.table = table;
    this.tally = tally;
    const limit = this.policy.per_account_limit;
    const clocks = fairness.pools.get(pool);
    const keyBlocked = new Map<string, boolean>();
    let b = 0;
    for (const [priority, keys] of buckets) {
      let lane = this.lanes.get(priority);
      if (lane === undefined) {
        const clock = clocks?.keys.get(priority);
        lane = { priority, clock, v: clock?.v ?? 0n, picked: false, buckets: [], count: 0, members: null, set: null };
        this.lanes.set(priority, lane);
      }
      for (const [key, tree] of keys) {
        table.key.push(key);
        table.tree.push(tree);
        table.priority.push(priority);
        table.head.push(null);
        table.observations.push(NO_OBSERVATIONS);
        table.skipped.push(null);
        if (limit !== undefined) {
          let same = this.keyBuckets.get(key);
          if (same === undefined) this.keyBuckets.set(key, (same = []));
          same.push(b);
          let blocked = keyBlocked.get(key);
          if (blocked === undefined) keyBlocked.set(key, (blocked = this.accountOutstanding(key) >= limit));
          if (blocked) {
            table.blocked[b] = 1;
            this.blockedCount++;
            b++;
            continue;
          }
        }
        if (this.cache === undefined) this.scan(table, b, -Infinity, false);
        else this.scanCached(table, b, this.cache);
        const skipped = table.skipped[b];
        if (skipped !== null && skipped !== undefined) for (const [reason, n] of skipped) tally.add(b, reason, n, true);
        if (table.head[b] !== null) {
          table.eligible[b] = 1;
          lane.buckets.push(b);
          lane.count++;
          this.eligibleCount++;
        }
        b++;
      }
    }
    this.lanesAscending = [...this.lanes.values()].sort((x, y) => numericCompare(x.priority, y.priority));
    return table;
  }

  /**
   * Scan bucket `b` in FIFO order from the first entry after rank `from` to the
   * first Work that passes the Work-level gates at `asOf`, skipping Work
   * claimed by this prefix and counting the ineligible ones (the reference
   * scan's order and counts: a claimed head is resumed after, since every
   * entry before it was already examined). `tallied` when the bucket's
   * earlier skips are already in the tally.
   */
  private scan(table: BucketTable, b: number, from: number, tallied: boolean): void {
    const { state, asOf, policy } = this;
    const tree = table.tree[b]!;
    table.head[b] = null;
    table.observations[b] = NO_OBSERVATIONS;
    for (let entry = from === -Infinity ? tree.first() : tree.after(from); entry !== null; entry = tree.after(entry.rank)) {
      table.scanned[b] = entry.rank;
      if (this.claimed.has(entry.id)) continue;
      const work = state.works.get(entry.id)!;
      const verdict = workGateReason(state, work, asOf, policy);
      if (typeof verdict !== 'string') {
        table.head[b] = work;
        table.observations[b] = verdict;
        return;
      }
      let skipped = table.skipped[b];
      if (skipped === null || skipped === undefined) table.skipped[b] = skipped = new Map();
      const before = skipped.get(verdict);
      skipped.set(verdict, (before ?? 0) + 1);
      table.ahead[b] = table.ahead[b]! + 1;
      if (tallied) this.tally!.add(b, verdict, 1, before === undefined);
    }
  }

  /** planNext with a caller's overlay: reuse (or fill) its head-scan cache, valid while its prefix and asOf are fixed. */
  private scanCached(table: BucketTable, b: number, cache: Map<string, HeadScan>): void {
    const id = bucketId(table.priority[b]!, table.key[b]!);
    const head = cache.get(id);
    if (head === undefined) {
      this.scan(table, b, -Infinity, false);
      cache.set(id, { work: table.head[b]!, observations: [...table.observations[b]!], skipped: table.skipped[b] ?? new Map() });
      return;
    }
    table.head[b] = head.work;
    table.observations[b] = head.observations;
    table.skipped[b] = head.skipped.size > 0 ? head.skipped : null;
    let ahead = 0;
    for (const n of head.skipped.values()) ahead += n;
    table.ahead[b] = ahead;
  }

  /** Bucket `b`'s head is no longer eligible (claimed and none after, or its key blocked): it leaves from the next decision. */
  private leave(table: BucketTable, b: number): void {
    if (table.eligible[b] === 0) return;
    table.eligible[b] = 0;
    const lane = this.lanes.get(table.priority[b]!)!;
    lane.count--;
    this.eligibleCount--;
    if (lane.set !== null) {
      // Every bucket still eligible when its class's set was built is a member of it.
      table.leftAt[b] = this.decisions;
      lane.set.remove(b);
    }
  }

  /** Bucket `b`'s key reached its per-account limit. */
  private block(table: BucketTable, b: number): void {
    if (table.blocked[b] === 1) return;
    table.blocked[b] = 1;
    this.blockedCount++;
    this.tally!.drop(b);
    this.leave(table, b);
  }
}
