/**
 * Incremental selector behind `planNext` and the fair-prefix packer (spec 7.3,
 * 7.5, 7.7, 7.13).
 *
 * One `PrefixPlanner` serves one prefix of decisions of one pool at one
 * `asOf`. On its first decision it walks the pool's (priority, fairness key)
 * buckets once: the per-account block of each key, the FIFO head scan of
 * each unblocked bucket (Work-level gates evaluated once at `asOf`), and the
 * skipped-head tally. When a priority class is first selected, its eligible
 * keys get the entry clamp `max(previous P, V + stride)` once and go into a
 * `LeadingSet` keyed by (P, UTF-8 key order): the MAX_STEP_CANDIDATES least
 * kept sorted (the explanation's candidate list) in front of a pass heap. A
 * decision then reads the winner and that list, and an admitted Claim costs
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
 */
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import {
  applySiblingStep,
  classStride,
  cloneClock,
  emptyClock,
  keyStride,
  MAX_STEP_CANDIDATES,
  planSibling,
  type ClockTransition,
  type PassCandidate,
  type SiblingStep,
} from './clocks.ts';
import type { FairnessState, SiblingClock } from '../state/fairness.ts';
import { workGates } from './eligibility.ts';
import type { FifoTree } from '../state/fifo-tree.ts';
import { numericCompare, utf8Compare } from './order.ts';
import { accountKey, bucketId, type HeadScan, type PlanOverlay } from './overlay.ts';
import { LazyClassStep, LazyKeyStep } from './lazy-steps.ts';
import { LeadingSet, type MemberTable } from './pass-heap.ts';
import type { CandidateView, Decision, Explanation, LevelView, NoGrantReason, PlanResult, SelectionReason } from './plan-types.ts';
import { poolPolicy } from './policy-view.ts';
import { availableIn, bucketsOf } from '../state/ready-index.ts';

/** `leftAt` of a bucket still in its class's competition set. */
const STILL_ELIGIBLE = 0x7fffffff;
const NO_OBSERVATIONS: readonly string[] = Object.freeze([]);
const SURROGATE = /[\ud800-\udfff]/;

/**
 * The pool's (priority, fairness key) buckets as a struct of arrays indexed by
 * walk order (`b`, the ready-index iteration order): head scans, blocks, and
 * each eligible bucket's key as a member of its class's key-level sibling set.
 */
class BucketTable implements MemberTable {
  readonly key: string[] = [];
  readonly tree: FifoTree[] = [];
  readonly priority: number[] = [];
  /** Blocked by its key's per-account limit: not scanned, its skipped heads not counted. */
  readonly blocked: Uint8Array;
  /** Unblocked with an eligible head: its key competes in its class. */
  readonly eligible: Uint8Array;
  /** First Work passing the Work-level gates (null: none, or not scanned). */
  readonly head: Array<WorkRecord | null> = [];
  readonly observations: Array<readonly string[]> = [];
  /** Rank of the last entry the scan examined (resume point once the head is claimed). */
  readonly scanned: Float64Array;
  /** Ineligible entries skipped ahead of the head, by reason (null: none), and their sum. */
  readonly skipped: Array<Map<string, number> | null> = [];
  readonly ahead: Int32Array;
  // Membership in the class's key-level set (written when the class's set is built).
  readonly stride: bigint[];
  /** Pass at the start of the prefix (clamped when entering); `pass` moves only with charges. */
  readonly startPass: bigint[];
  readonly pass: bigint[];
  /** Entering eligibility relative to the class's key clock at the start of the prefix. */
  readonly entering: Uint8Array;
  /** The key has no surrogate code units, so UTF-16 order is its UTF-8 byte order. */
  readonly plain: Uint8Array;
  /** Index of the first decision the bucket is no longer eligible at. */
  readonly leftAt: Int32Array;
  readonly heapIndex: Int32Array;
  readonly leadIndex: Int32Array;
  /** Decimal renderings for explanations (undefined: not rendered since the pass last moved). */
  readonly passText: Array<string | undefined>;
  readonly strideText: Array<string | undefined>;

  constructor(readonly size: number) {
    // One backing store for the typed columns (one allocation per pack, not nine): the 8-byte
    // column first, then the 4-byte ones, then the 1-byte ones, so every view is aligned.
    const buffer = new ArrayBuffer(size * (8 + 4 * 4 + 4 * 1));
    this.scanned = new Float64Array(buffer, 0, size);
    this.ahead = new Int32Array(buffer, 8 * size, size);
    this.leftAt = new Int32Array(buffer, 12 * size, size).fill(STILL_ELIGIBLE);
    this.heapIndex = new Int32Array(buffer, 16 * size, size).fill(-1);
    this.leadIndex = new Int32Array(buffer, 20 * size, size).fill(-1);
    this.blocked = new Uint8Array(buffer, 24 * size, size);
    this.eligible = new Uint8Array(buffer, 25 * size, size);
    this.entering = new Uint8Array(buffer, 26 * size, size);
    this.plain = new Uint8Array(buffer, 27 * size, size);
    this.stride = new Array<bigint>(size);
    this.startPass = new Array<bigint>(size);
    this.pass = new Array<bigint>(size);
    this.passText = new Array<string | undefined>(size);
    this.strideText = new Array<string | undefined>(size);
  }

  /** UTF-8 byte order of the keys (spec 7.5 tie order); the native comparison when both are plain. */
  order(a: number, b: number): number {
    const x = this.key[a]!;
    const y = this.key[b]!;
    if ((this.plain[a]! & this.plain[b]!) === 1) return x === y ? 0 : x < y ? -1 : 1;
    return utf8Compare(x, y);
  }
}

/** Key-level sibling set of one priority class. */
interface Lane {
  priority: number;
  /** The class's key clock at the start of the prefix. */
  clock: SiblingClock<string> | undefined;
  /** V of the class's key clock (moves with each admitted pick in this class). */
  v: bigint;
  /** Picked by an admitted decision of this prefix (its clock's active set is then a superset of the eligible set). */
  picked: boolean;
  /** Buckets of this class that were eligible when the pool was indexed, in walk order. */
  buckets: number[];
  /** Buckets still eligible. */
  count: number;
  /** Members when the set was built (first use), in walk order: the `active` order. */
  members: number[] | null;
  set: LeadingSet | null;
}

interface Pending {
  transition: ClockTransition;
  lane: Lane;
  bucket: number;
}

function levelView<K>(step: SiblingStep<K>, eligible: number): LevelView {
  return {
    selected: String(step.selected),
    v_before: step.vBefore.toString(),
    v_after: step.v.toString(),
    eligible,
    candidates: step.candidates.map((c) => ({ member: String(c.member), pass: c.pass.toString(), stride: c.stride.toString(), entering: c.entering })),
  };
}

/**
 * Skipped-head counts of the unblocked buckets, by reason, in the order a walk
 * of the buckets would first meet each reason (bucket order, then the order of
 * the reasons within that bucket's scan).
 */
class SkipTally {
  private readonly reasons = new Map<string, { total: number; buckets: number[]; front: number }>();
  private ordered: Array<readonly [string, number]> | null = null;

  constructor(private readonly table: BucketTable) {}

  /** `n` more skipped heads of `reason` in bucket `b`; `fresh` when the bucket had none of that reason. */
  add(b: number, reason: string, n: number, fresh: boolean): void {
    let r = this.reasons.get(reason);
    if (r === undefined) this.reasons.set(reason, (r = { total: 0, buckets: [], front: 0 }));
    r.total += n;
    if (fresh) {
      const buckets = r.buckets;
      let lo = buckets.length;
      if (lo > 0 && buckets[lo - 1]! > b) {
        let hi = lo;
        lo = 0;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (buckets[mid]! < b) lo = mid + 1;
          else hi = mid;
        }
      }
      buckets.splice(lo, 0, b);
      if (lo < r.front) r.front = lo; // entries before `front` are blocked buckets; this one is not
    }
    this.ordered = null;
  }

  /** Bucket `b` became blocked: its skipped heads no longer count. */
  drop(b: number): void {
    const skipped = this.table.skipped[b];
    if (skipped === null || skipped === undefined) return;
    for (const [reason, n] of skipped) this.reasons.get(reason)!.total -= n;
    this.ordered = null;
  }

  record(): Record<string, number> {
    if (this.ordered === null) {
      const { blocked, skipped } = this.table;
      const found: Array<{ reason: string; total: number; bucket: number; at: number }> = [];
      for (const [reason, r] of this.reasons) {
        if (r.total <= 0) continue;
        while (blocked[r.buckets[r.front]!] === 1) r.front++;
        const bucket = r.buckets[r.front]!;
        let at = 0;
        for (const k of skipped[bucket]!.keys()) {
          if (k === reason) break;
          at++;
        }
        found.push({ reason, total: r.total, bucket, at });
      }
      found.sort((a, b) => a.bucket - b.bucket || a.at - b.at);
      this.ordered = found.map((f) => [f.reason, f.total] as const);
    }
    const out: Record<string, number> = {};
    for (const [reason, n] of this.ordered) out[reason] = n;
    return out;
  }
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
    const explanation = explain ? this.explanation(logical, available) : null;
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
    const [keyStep, keyViews, b] = this.keyStep(table, lane, explain);
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
    if (explanation === null) return { selected: true, work, observations: [...observations], transition };
    const account = this.accountOutstanding(work.fairnessKey);
    explanation.outcome = 'selected';
    explanation.reason = selectionReason(fairness.mode, classes.length, lane.count);
    explanation.capacity.logical_after = logical + 1;
    explanation.capacity.account_before = account;
    explanation.capacity.account_after = account + 1;
    const classV = (this.classClock?.v ?? 0n).toString();
    explanation.class =
      classStep !== null
        ? levelView(classStep, classes.length)
        : { selected: String(priority), v_before: classV, v_after: classV, eligible: classes.length, candidates: [] };
    explanation.key = {
      priority,
      selected: keyStep.selected,
      v_before: keyStep.vBefore.toString(),
      v_after: keyStep.v.toString(),
      eligible: lane.count,
      candidates: keyViews!,
    };
    explanation.work = {
      work_id: work.workId,
      graph_id: work.graphId,
      node_key: work.nodeKey,
      priority,
      fairness_key: work.fairnessKey,
      position: { ordinal: work.position.ordinal, operation: work.position.operation },
      bucket_position: table.ahead[b]!,
      observations: [...observations],
    };
    return { selected: true, work, observations: [...observations], transition, explanation };
  }

  /** A decision's explanation before the buckets are read (no-grant until filled in). */
  private explanation(logical: number, available: number): Explanation {
    const { state, pool, policy, fairness } = this;
    return {
      source_tip: state.tip,
      policy_epoch: state.policy?.epoch ?? null,
      pool,
      as_of: this.asOf,
      mode: fairness.mode,
      outcome: 'no_work',
      reason: 'no_work',
      eligibility: { available, buckets: 0, eligible_buckets: 0, skipped: {}, blocked_buckets: 0 },
      class: null,
      key: null,
      work: null,
      capacity: {
        logical_before: logical,
        logical_after: logical,
        logical_limit: policy.logical_limit,
        account_before: null,
        account_after: null,
        per_account_limit: policy.per_account_limit ?? null,
        native_outstanding: this.nativeOutstanding(),
        native_limit: policy.native_limit,
      },
    };
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

  /** The key-level pick of `lane` (spec 7.5 `pick`), its explained candidates, and the winner's bucket. */
  private keyStep(table: BucketTable, lane: Lane, explain: boolean): [SiblingStep<string>, CandidateView[] | null, number] {
    const set = lane.set ?? this.build(table, lane);
    const leading = set.leading();
    const top = leading[0]!;
    const decision = this.decisions;
    const picked = lane.picked;
    const members = lane.members!;
    const { key, pass, stride, entering, passText, strideText } = table;
    if (!explain) {
      // Replay's grant check: the same decision, its lists materialized on first read (lazy-steps.ts).
      const lead = leading.slice();
      const leadPass = new Array<bigint>(lead.length);
      for (let i = 0; i < lead.length; i++) leadPass[i] = pass[lead[i]!]!;
      const step = new LazyKeyStep(table, members, decision, picked, lead, leadPass, key[top]!, lane.v, pass[top]!, pass[top]! + stride[top]!, stride[top]!);
      return [step, null, top];
    }
    const candidates: PassCandidate<string>[] = [];
    const views: CandidateView[] = [];
    for (const m of leading) {
      const isEntering = !picked && entering[m] === 1;
      candidates.push({ member: key[m]!, pass: pass[m]!, stride: stride[m]!, entering: isEntering });
      views.push({
        member: key[m]!,
        pass: (passText[m] ??= pass[m]!.toString()),
        stride: (strideText[m] ??= stride[m]!.toString()),
        entering: isEntering,
      });
    }
    // The eligible set and entry clamps of this decision, materialized only when applied (as above).
    const lists = new LazyKeyStep(table, members, decision, picked, [], [], key[top]!, lane.v, pass[top]!, pass[top]! + stride[top]!, stride[top]!);
    const step: SiblingStep<string> = {
      get active(): readonly string[] {
        return lists.active;
      },
      get entered(): ReadonlyArray<readonly [string, bigint]> {
        return lists.entered;
      },
      selected: key[top]!,
      vBefore: lane.v,
      v: pass[top]!,
      pass: pass[top]! + stride[top]!,
      stride: stride[top]!,
      candidates,
    };
    return [step, views, top];
  }

  /**
   * The class's key-level competition set on first use: entering flags and
   * entry clamps against its clock (untouched until the class is picked).
   */
  private build(table: BucketTable, lane: Lane): LeadingSet {
    const { fairness } = this;
    const clock = lane.clock;
    const members: number[] = [];
    for (const b of lane.buckets) {
      if (table.eligible[b] === 0) continue;
      const key = table.key[b]!;
      const stride = keyStride(fairness, key);
      const previous = clock?.pass.get(key) ?? 0n;
      const entering = clock === undefined || !clock.active.has(key);
      let pass = previous;
      if (entering) {
        const floor = lane.v + stride;
        if (floor > pass) pass = floor;
      }
      table.stride[b] = stride;
      table.entering[b] = entering ? 1 : 0;
      table.plain[b] = SURROGATE.test(key) ? 0 : 1;
      table.startPass[b] = pass;
      table.pass[b] = pass;
      members.push(b);
    }
    lane.members = members;
    lane.set = new LeadingSet(table, members.slice(), MAX_STEP_CANDIDATES);
    return lane.set;
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
      const verdict = workGates(state, work, asOf, policy);
      if (verdict.eligible) {
        table.head[b] = work;
        table.observations[b] = verdict.observations;
        return;
      }
      let skipped = table.skipped[b];
      if (skipped === null || skipped === undefined) table.skipped[b] = skipped = new Map();
      const before = skipped.get(verdict.reason);
      skipped.set(verdict.reason, (before ?? 0) + 1);
      table.ahead[b] = table.ahead[b]! + 1;
      if (tallied) this.tally!.add(b, verdict.reason, 1, before === undefined);
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

function noGrant(reason: NoGrantReason, explanation: Explanation | null): Decision | PlanResult {
  if (explanation === null) return { selected: false, reason };
  explanation.outcome = reason;
  explanation.reason = reason;
  return { selected: false, reason, explanation };
}

function selectionReason(mode: FairnessState['mode'], classes: number, keys: number): SelectionReason {
  if (classes > 1) return mode === 'strict-priority' ? 'priority_class' : 'weighted_class';
  return keys > 1 ? 'weighted_key' : 'fifo_default';
}
