/**
 * Causal ordering of QueueCommit records (spec 7.6): follow `previous` from the
 * single genesis. The commit ordinal is the causal index, never the physical
 * line number, so any reordering of complete lines yields the same chain.
 *
 * `CausalChain` is streaming: records are offered in physical order and
 * released in causal order as soon as they connect to the tip, so a ledger
 * written in causal order (the normal case) never buffers anything.
 */
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import type { JsonValue } from '../json.ts';

export interface ChainRecord {
  id: string;
  previous: string | null;
  /** Text of the record (exact-duplicate detection). */
  text: string;
  /** 1-based physical line (diagnostics only). */
  line: number;
}

/** The commits a chain extends (a projection): released before this chain's records. */
export interface ReleasedCommits {
  /** Canonical text of a released commit, by id (undefined: not released). */
  commitText(id: string): string | undefined;
  /** Id of the released commit that extends `id`, if any. */
  successorOf(id: string): string | undefined;
}

export class CausalChain<R extends ChainRecord> {
  /** Records waiting for their predecessor, keyed by `previous`. */
  private readonly waiting = new Map<string | null, R>();
  private readonly waitingIds = new Map<string, R>();

  /**
   * @param tip the validated tip to extend (null: expect a genesis)
   * @param released the commits already released (called as methods, never wrapped in
   *   per-replay closures: optimized `offer` code inlines its call targets, and an inlined
   *   closure that dies with its replay deoptimizes that code at the next full GC)
   */
  constructor(
    private tip: string | null,
    private readonly released: ReleasedCommits,
  ) {}

  /** Offers one record; returns the records that now extend the tip, in causal order. */
  offer(r: R): R[] {
    const releasedText = this.released.commitText(r.id);
    // Nothing waits in a ledger written in causal order: no lookup then.
    const queued = this.waitingIds.size === 0 ? undefined : this.waitingIds.get(r.id);
    if (releasedText !== undefined || queued !== undefined) {
      if (!sameRecord(releasedText ?? queued!.text, r.text)) fail('conflicting_duplicate_commit', `commit ${r.id} appears twice with different content`, where(r));
      return []; // exact duplicate: idempotent
    }
    if (r.previous === r.id) fail('cycle', `commit ${r.id} names itself as previous`, where(r));
    if (r.previous === null && (this.tip !== null || this.waiting.has(null))) {
      fail('multiple_genesis', `commit ${r.id} is a second genesis record`, where(r));
    }
    if (r.previous !== null && r.previous !== this.tip) {
      const rival = this.released.successorOf(r.previous) ?? this.waiting.get(r.previous)?.id;
      if (rival !== undefined) fail('fork', `commits ${rival} and ${r.id} both extend ${r.previous}`, where(r));
      if (this.released.commitText(r.previous) !== undefined) fail('fork', `commit ${r.id} extends ${r.previous}, which is not the tip`, where(r));
    }
    if (r.previous !== this.tip) {
      const rival = this.waiting.get(r.previous);
      if (rival !== undefined) fail('fork', `commits ${rival.id} and ${r.id} both extend ${r.previous}`, where(r));
      this.waiting.set(r.previous, r);
      this.waitingIds.set(r.id, r);
      return [];
    }
    const out: R[] = [r];
    this.tip = r.id;
    // Nothing waits in a ledger written in causal order: no lookup then.
    for (let next = this.waiting.size === 0 ? undefined : this.waiting.get(this.tip); next !== undefined; next = this.waiting.get(this.tip)) {
      this.waiting.delete(next.previous);
      this.waitingIds.delete(next.id);
      out.push(next);
      this.tip = next.id;
    }
    return out;
  }

  /** After the last record: anything still waiting lacks a predecessor or lies on a cycle. */
  finish(): void {
    if (this.waitingIds.size === 0) return;
    const stray = [...this.waitingIds.values()].sort((a, b) => a.line - b.line)[0]!;
    if (stray.previous === null) fail('fork', `genesis ${stray.id} does not lead to the validated tip`, where(stray));
    if (this.tip === null && !this.waiting.has(null)) fail('missing_genesis', 'no genesis record (previous = null) in the ledger', where(stray));
    // Walk predecessors: reaching a record twice is a cycle, leaving the set is a missing predecessor.
    const seen = new Set<string>();
    for (let cur: R | undefined = stray; cur !== undefined; cur = this.waitingIds.get(cur.previous ?? '')) {
      if (seen.has(cur.id)) fail('cycle', `commit ${cur.id} is on a cycle of previous links`, { commit: cur.id, line: cur.line });
      seen.add(cur.id);
      if (cur.previous === null || !this.waitingIds.has(cur.previous)) {
        fail('missing_predecessor', `commit ${cur.id} names unknown predecessor ${cur.previous}`, { commit: cur.id, line: cur.line });
      }
    }
  }
}

/**
 * Whether two validated record texts are the same record (spec 7.6 "Exact duplicate commit records
 * are idempotent"; canonicalization changes key order, whitespace and escaping, "not the decoded
 * data"): equal texts, or equal canonical serialisations of what they decode to.
 */
function sameRecord(a: string, b: string): boolean {
  return a === b || canonicalize(JSON.parse(a) as JsonValue) === canonicalize(JSON.parse(b) as JsonValue);
}

/** Where a record's error points (built only for an error: `offer` runs once per ledger line). */
function where(r: ChainRecord): { commit: string; line: number } {
  return { commit: r.id, line: r.line };
}

/** Released records by id and by predecessor (`orderChain`'s `ReleasedCommits`). */
class ReleasedRecords<R extends ChainRecord> implements ReleasedCommits {
  private readonly byId = new Map<string, R>();
  private readonly successor = new Map<string, string>();

  add(r: R): void {
    this.byId.set(r.id, r);
    if (r.previous !== null) this.successor.set(r.previous, r.id);
  }

  commitText(id: string): string | undefined {
    return this.byId.get(id)?.text;
  }

  successorOf(id: string): string | undefined {
    return this.successor.get(id);
  }
}

/** Orders a complete set of records (tests, tools). */
export function orderChain<R extends ChainRecord>(records: readonly R[]): R[] {
  const released = new ReleasedRecords<R>();
  const chain = new CausalChain<R>(null, released);
  const out: R[] = [];
  for (const r of records) {
    for (const next of chain.offer(r)) {
      released.add(next);
      out.push(next);
    }
  }
  chain.finish();
  return out;
}
