/**
 * Incremental selector behind `planNext` and the fair-prefix packer (spec 7.3,
 * 7.5, 7.7, 7.13).
 *
 * One `PrefixPlanner` serves one prefix of decisions of one pool at one
 * `asOf`. On its first decision it walks the pool's (priority, fairness key)
 * buckets once: the per-account block of each key, the FIFO head scan of
 * each unblocked bucket (Work-level gates evaluated once at `asOf`), and the
 * skipped-head tally. Each priority class keeps its eligible keys in a pass
 * heap keyed by (P, UTF-8 key order) with the entry clamp
 * `max(previous P, V + stride)` applied once, so a decision is a heap peek
 * (plus the leading MAX_STEP_CANDIDATES for its explanation) and an admitted
 * Claim costs O(log n): the winner's charge, the rescan of its bucket from
 * where the previous scan stopped, and, when its key reaches its per-account
 * limit, the removal of that key's buckets.
 *
 * Why the result equals a full re-walk (reference-pack.test-support.ts) at
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
 * this planner's own tentative counters, copies and indexes.
 */
import type { ReplayState, WorkRecord } from '../replay/state.ts';
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
  type FairnessState,
  type PassCandidate,
  type SiblingClock,
  type SiblingStep,
} from './clocks.ts';
import { workGates } from './eligibility.ts';
import type { FifoTree } from './fifo-tree.ts';
import { numericCompare, utf8Compare } from './order.ts';
import { accountKey, bucketId, type HeadScan, type PlanOverlay } from './overlay.ts';
import { PassHeap, type HeapMember } from './pass-heap.ts';
import type { CandidateView, Explanation, LevelView, NoGrantReason, PlanResult, SelectionReason } from './plan.ts';
import { poolPolicy } from './policy-view.ts';
import { availableIn, bucketsOf } from './ready-index.ts';

/**
 * One (priority, fairness key) bucket of the pool, in ready-index iteration
 * order (`seq`), with its head scan and, while its head is eligible and its
 * key unblocked, its key's membership in the class's pass heap.
 */
interface Bucket extends HeapMember {
  seq: number;
  priority: number;
  key: string;
  tree: FifoTree;
  /** Blocked by its key's per-account limit: not scanned, not counted as skipped. */
  blocked: boolean;
  /** First Work passing the Work-level gates (null: none, or not scanned). */
  head: WorkRecord | null;
  observations: string[];
  /** Rank of the last entry the scan examined (resume point once the head is claimed). */
  scanned: number;
  /** Ineligible entries skipped ahead of the head, by reason (null: none). */
  skipped: Map<string, number> | null;
  /** Sum of `skipped`. */
  ahead: number;
  /** Unblocked with an eligible head: a member of its class's competition set. */
  eligible: boolean;
  // Membership in the class's key-level sibling set (set when the lane is built).
  stride: bigint;
  /** Entering eligibility relative to the class's key clock at the start of the prefix. */
  entering: boolean;
  /** Pass at the start of the prefix (clamped when entering); `pass` moves only with charges. */
  startPass: bigint;
  /** Index of the first decision it is no longer eligible at (Infinity while eligible). */
  leftAt: number;
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
  /** Buckets of this class that were eligible when the pool was indexed, in ready-index order. */
  buckets: Bucket[];
  /** Buckets still eligible. */
  count: number;
  /** Members when the heap was built (first use), in ready-index order: the `active` order. */
  members: Bucket[] | null;
  heap: PassHeap<Bucket> | null;
}

interface Pending {
  transition: ClockTransition;
  lane: Lane;
  member: Bucket;
}

const byKeyOrder = (a: Bucket, b: Bucket): number => utf8Compare(a.key, b.key);

function candidateViews<K>(candidates: readonly PassCandidate<K>[]): CandidateView[] {
  return candidates.map((c) => ({ member: String(c.member), pass: c.pass.toString(), stride: c.stride.toString(), entering: c.entering }));
}

function levelView<K>(step: SiblingStep<K>, eligible: number): LevelView {
  return {
    selected: String(step.selected),
    v_before: step.vBefore.toString(),
    v_after: step.v.toString(),
    eligible,
    candidates: candidateViews(step.candidates),
  };
}

/**
 * Skipped-head counts of the unblocked buckets, by reason, in the order a walk
 * of the buckets would first meet each reason (bucket order, then the order of
 * the reasons within that bucket's scan).
 */
class SkipTally {
  private readonly reasons = new Map<string, { total: number; seqs: number[]; front: number }>();
  private ordered: Array<readonly [string, number]> | null = null;

  constructor(private readonly buckets: readonly Bucket[]) {}

  /** `n` more skipped heads of `reason` in `bucket`; `fresh` when the bucket had none of that reason. */
  add(bucket: Bucket, reason: string, n: number, fresh: boolean): void {
    let r = this.reasons.get(reason);
    if (r === undefined) this.reasons.set(reason, (r = { total: 0, seqs: [], front: 0 }));
    r.total += n;
    if (fresh) {
      const seqs = r.seqs;
      let lo = seqs.length;
      if (lo > 0 && seqs[lo - 1]! > bucket.seq) {
        let hi = lo;
        lo = 0;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (seqs[mid]! < bucket.seq) lo = mid + 1;
          else hi = mid;
        }
      }
      seqs.splice(lo, 0, bucket.seq);
      if (lo < r.front) r.front = lo; // entries before `front` are blocked buckets; this one is not
    }
    this.ordered = null;
  }

  /** `bucket` became blocked: its skipped heads no longer count. */
  drop(bucket: Bucket): void {
    if (bucket.skipped === null) return;
    for (const [reason, n] of bucket.skipped) this.reasons.get(reason)!.total -= n;
    this.ordered = null;
  }

  record(): Record<string, number> {
    if (this.ordered === null) {
      const found: Array<{ reason: string; total: number; seq: number; at: number }> = [];
      for (const [reason, r] of this.reasons) {
        if (r.total <= 0) continue;
        while (this.buckets[r.seqs[r.front]!]!.blocked) r.front++;
        const seq = r.seqs[r.front]!;
        let at = 0;
        for (const k of this.buckets[seq]!.skipped!.keys()) {
          if (k === reason) break;
          at++;
        }
        found.push({ reason, total: r.total, seq, at });
      }
      found.sort((a, b) => a.seq - b.seq || a.at - b.at);
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
  private indexed = false;
  private readonly buckets: Bucket[] = [];
  /** Buckets of each fairness key (only kept under a per-account limit, the one way a key gets blocked). */
  private readonly keyBuckets = new Map<string, Bucket[]>();
  private readonly lanes = new Map<number, Lane>();
  private lanesAscending: Lane[] = [];
  private readonly tally: SkipTally;
  private blockedCount = 0;
  private eligibleCount = 0;
  /** Private copy of the pool's class clock (weighted mode moves it with each admitted pick). */
  private classClock: SiblingClock<number> | undefined;

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
    this.tally = new SkipTally(this.buckets);
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
    const { state, pool, policy, fairness } = this;
    this.pending = null;
    const logical = (state.outstandingClaims.get(pool) ?? 0) + this.logical;
    const available = availableIn(state.ready, pool) - this.claimed.size;
    const explanation: Explanation = {
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
    const noGrant = (reason: NoGrantReason): PlanResult => {
      explanation.outcome = reason;
      explanation.reason = reason;
      return { selected: false, reason, explanation };
    };
    // Reference precedence: pause, pool capacity, empty backlog, then eligibility.
    if (state.controls.grants_paused) return noGrant('grants_paused');
    if (logical >= policy.logical_limit) return noGrant('capacity_blocked');
    if (available <= 0) return noGrant('no_work');

    this.index();
    const eligibility = explanation.eligibility;
    eligibility.buckets = this.buckets.length;
    eligibility.blocked_buckets = this.blockedCount;
    eligibility.skipped = this.tally.record();
    eligibility.eligible_buckets = this.eligibleCount;
    if (this.eligibleCount === 0) return noGrant('no_eligible_work');

    const classes: number[] = [];
    for (const lane of this.lanesAscending) if (lane.count > 0) classes.push(lane.priority);
    let classStep: SiblingStep<number> | null = null;
    let priority: number;
    if (fairness.mode === 'weighted-priority') {
      classStep = planSibling(this.classClock, classes, (c) => classStride(fairness, c), numericCompare)!;
      priority = classStep.selected;
    } else {
      priority = classes[0]!;
    }
    const lane = this.lanes.get(priority)!;
    const keyStep = this.keyStep(lane);
    const member = lane.heap!.peek()!;
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
    this.pending = { transition, lane, member };

    const work = member.head!;
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
    explanation.key = { priority, ...levelView(keyStep, lane.count) };
    explanation.work = {
      work_id: work.workId,
      graph_id: work.graphId,
      node_key: work.nodeKey,
      priority,
      fairness_key: work.fairnessKey,
      position: { ordinal: work.position.ordinal, operation: work.position.operation },
      bucket_position: member.ahead,
      observations: [...member.observations],
    };
    return { selected: true, work, observations: [...member.observations], transition, explanation };
  }

  /**
   * Admit the winner of the latest `next()` to the tentative prefix: its Work
   * is claimed, the logical (and, when it opens a group, native) capacity
   * charged, and its clock transition applied to this planner's clocks.
   */
  admit(work: WorkRecord, transition: ClockTransition, opensGroup: boolean): void {
    const pending = this.pending;
    if (this.external !== undefined) throw new Error('PrefixPlanner.admit: the overlay belongs to the caller; use admitToOverlay');
    if (pending === null || pending.transition !== transition || pending.member.head !== work) {
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
    const { lane, member } = pending;
    lane.v = transition.keyStep.v;
    lane.picked = true;
    member.pass = transition.keyStep.pass;
    lane.heap!.update(member);

    // From the next decision on: the claimed head is gone, and the key may be at its limit.
    this.decisions++;
    const limit = this.policy.per_account_limit;
    if (limit !== undefined && this.accountOutstanding(key) >= limit) {
      for (const bucket of this.keyBuckets.get(key)!) this.block(bucket);
    } else {
      this.scan(member, member.scanned, true);
      if (member.head === null) this.leave(member);
    }
  }

  /** The key-level pick of `lane` (spec 7.5 `pick`) from its pass heap. */
  private keyStep(lane: Lane): SiblingStep<string> {
    const heap = lane.heap ?? this.build(lane);
    const leading = heap.leading(MAX_STEP_CANDIDATES);
    const top = leading[0]!;
    const decision = this.decisions;
    const picked = lane.picked;
    const members = lane.members!;
    const candidates: PassCandidate<string>[] = leading.map((m) => ({ member: m.key, pass: m.pass, stride: m.stride, entering: !picked && m.entering }));
    // The eligible set and entry clamps of this decision, materialized only when applied.
    let active: string[] | null = null;
    let entered: Array<readonly [string, bigint]> | null = null;
    return {
      get active(): readonly string[] {
        if (active === null) {
          active = [];
          for (const m of members) if (m.leftAt > decision) active.push(m.key);
        }
        return active;
      },
      get entered(): ReadonlyArray<readonly [string, bigint]> {
        if (entered === null) {
          entered = [];
          if (!picked) for (const m of members) if (m.leftAt > decision && m.entering) entered.push([m.key, m.startPass]);
        }
        return entered;
      },
      selected: top.key,
      vBefore: lane.v,
      v: top.pass,
      pass: top.pass + top.stride,
      stride: top.stride,
      candidates,
    };
  }

  /**
   * The class's key-level competition set on first use: entering flags and
   * entry clamps against its clock (untouched until the class is picked), heap.
   */
  private build(lane: Lane): PassHeap<Bucket> {
    const { fairness } = this;
    const clock = lane.clock;
    const members: Bucket[] = [];
    for (const bucket of lane.buckets) {
      if (!bucket.eligible) continue;
      const key = bucket.key;
      const stride = keyStride(fairness, key);
      const previous = clock?.pass.get(key) ?? 0n;
      const entering = clock === undefined || !clock.active.has(key);
      let pass = previous;
      if (entering) {
        const floor = lane.v + stride;
        if (floor > pass) pass = floor;
      }
      bucket.stride = stride;
      bucket.entering = entering;
      bucket.startPass = pass;
      bucket.pass = pass;
      members.push(bucket);
    }
    lane.members = members;
    lane.heap = new PassHeap(members.slice(), byKeyOrder);
    return lane.heap;
  }

  /** Walk the pool's buckets once: per-account blocks, head scans, skipped tally, class lanes. */
  private index(): void {
    if (this.indexed) return;
    this.indexed = true;
    const { state, pool, fairness } = this;
    const limit = this.policy.per_account_limit;
    const clocks = fairness.pools.get(pool);
    const keyBlocked = new Map<string, boolean>();
    for (const [priority, keys] of bucketsOf(state.ready, pool)) {
      let lane = this.lanes.get(priority);
      if (lane === undefined) {
        const clock = clocks?.keys.get(priority);
        lane = { priority, clock, v: clock?.v ?? 0n, picked: false, buckets: [], count: 0, members: null, heap: null };
        this.lanes.set(priority, lane);
      }
      for (const [key, tree] of keys) {
        const bucket: Bucket = {
          seq: this.buckets.length,
          priority,
          key,
          tree,
          blocked: false,
          head: null,
          observations: [],
          scanned: -1,
          skipped: null,
          ahead: 0,
          eligible: false,
          stride: 0n,
          entering: false,
          startPass: 0n,
          pass: 0n,
          leftAt: Infinity,
          heapIndex: -1,
        };
        this.buckets.push(bucket);
        if (limit !== undefined) {
          let same = this.keyBuckets.get(key);
          if (same === undefined) this.keyBuckets.set(key, (same = []));
          same.push(bucket);
          let blocked = keyBlocked.get(key);
          if (blocked === undefined) keyBlocked.set(key, (blocked = this.accountOutstanding(key) >= limit));
          if (blocked) {
            bucket.blocked = true;
            this.blockedCount++;
            continue;
          }
        }
        if (this.cache === undefined) this.scan(bucket, -Infinity, false);
        else this.scanCached(bucket, this.cache);
        if (bucket.skipped !== null) for (const [reason, n] of bucket.skipped) this.tally.add(bucket, reason, n, true);
        if (bucket.head === null) continue;
        bucket.eligible = true;
        lane.buckets.push(bucket);
        lane.count++;
        this.eligibleCount++;
      }
    }
    this.lanesAscending = [...this.lanes.values()].sort((a, b) => numericCompare(a.priority, b.priority));
  }

  /**
   * Scan a bucket in FIFO order from the first entry after rank `from` to the
   * first Work that passes the Work-level gates at `asOf`, skipping Work
   * claimed by this prefix and counting the ineligible ones (the reference
   * scan's order and counts: a claimed head is resumed after, since every
   * entry before it was already examined). `tallied` when the bucket's
   * earlier skips are already in the tally.
   */
  private scan(bucket: Bucket, from: number, tallied: boolean): void {
    const { state, asOf, policy } = this;
    bucket.head = null;
    bucket.observations = [];
    for (let entry = bucket.tree.after(from); entry !== null; entry = bucket.tree.after(entry.rank)) {
      bucket.scanned = entry.rank;
      if (this.claimed.has(entry.id)) continue;
      const work = state.works.get(entry.id)!;
      const verdict = workGates(state, work, asOf, policy);
      if (verdict.eligible) {
        bucket.head = work;
        bucket.observations = verdict.observations;
        return;
      }
      const skipped = (bucket.skipped ??= new Map());
      const before = skipped.get(verdict.reason);
      skipped.set(verdict.reason, (before ?? 0) + 1);
      bucket.ahead++;
      if (tallied) this.tally.add(bucket, verdict.reason, 1, before === undefined);
    }
  }

  /** planNext with a caller's overlay: reuse (or fill) its head-scan cache, valid while its prefix and asOf are fixed. */
  private scanCached(bucket: Bucket, cache: Map<string, HeadScan>): void {
    const id = bucketId(bucket.priority, bucket.key);
    let head = cache.get(id);
    if (head === undefined) {
      this.scan(bucket, -Infinity, false);
      head = { work: bucket.head, observations: bucket.observations, skipped: bucket.skipped ?? new Map() };
      cache.set(id, head);
      return;
    }
    bucket.head = head.work;
    bucket.observations = head.observations;
    bucket.skipped = head.skipped.size > 0 ? head.skipped : null;
    for (const n of head.skipped.values()) bucket.ahead += n;
  }

  /** The bucket's head is no longer eligible (claimed and none after, or its key blocked): it leaves from the next decision. */
  private leave(bucket: Bucket): void {
    if (!bucket.eligible) return;
    bucket.eligible = false;
    bucket.leftAt = this.decisions;
    const lane = this.lanes.get(bucket.priority)!;
    lane.count--;
    lane.heap?.remove(bucket);
    this.eligibleCount--;
  }

  /** The bucket's key reached its per-account limit. */
  private block(bucket: Bucket): void {
    if (bucket.blocked) return;
    bucket.blocked = true;
    this.blockedCount++;
    this.tally.drop(bucket);
    this.leave(bucket);
  }
}

function selectionReason(mode: FairnessState['mode'], classes: number, keys: number): SelectionReason {
  if (classes > 1) return mode === 'strict-priority' ? 'priority_class' : 'weighted_class';
  return keys > 1 ? 'weighted_key' : 'fifo_default';
}
