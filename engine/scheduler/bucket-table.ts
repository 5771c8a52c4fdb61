/**
 * The planner's index of one pool at one `asOf` (prefix-planner.ts): its
 * (priority, fairness key) buckets as a struct of arrays over the walk order,
 * and the skipped-head tally an explanation reports. No object per bucket or
 * member; one backing store for the typed columns.
 */
import type { WorkRecord } from '../state/state.ts';
import type { FifoTree } from '../state/fifo-tree.ts';
import { utf8Compare } from './order.ts';
import type { MemberTable } from './pass-heap.ts';

/** `leftAt` of a bucket still in its class's competition set. */
const STILL_ELIGIBLE = 0x7fffffff;

/**
 * The pool's (priority, fairness key) buckets as a struct of arrays indexed by
 * walk order (`b`, the ready-index iteration order): head scans, blocks, and
 * each eligible bucket's key as a member of its class's key-level sibling set.
 */
export class BucketTable implements MemberTable {
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

/**
 * Skipped-head counts of the unblocked buckets, by reason, in the order a walk
 * of the buckets would first meet each reason (bucket order, then the order of
 * the reasons within that bucket's scan).
 */
export class SkipTally {
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
