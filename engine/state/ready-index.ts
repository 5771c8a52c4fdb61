/**
 * Ready index (spec 7.17 "ready-frontier queues"): available Work per
 * (pool, effective priority class, fairness key) bucket in FIFO-rank order
 * (spec 7.3). Disposable and re-derivable; the replayer keeps it current on
 * every Work state or effective-priority change.
 *
 * It also keeps the verified Result inputs (descriptor + Result commit) that a
 * successor's assignment carries as `result_refs` (spec 7.15), since the
 * assignment byte bound of packing (spec 7.14) measures them.
 */
import type { JsonObject } from '../json.ts';
import { FifoTree } from './fifo-tree.ts';

/** What the index reads of a Work record (state.ts `WorkRecord`): only `available` Work is indexed. */
export interface IndexedWork {
  workId: string;
  pool: string;
  effectivePriority: number;
  fairnessKey: string;
  fifo: number;
  state: string;
}

export interface ResultInput {
  result_commit_id: string;
  descriptor: JsonObject;
}

interface Location {
  pool: string;
  priority: number;
  key: string;
  fifo: number;
}

export interface PoolReady {
  /** Available Work in the pool (all buckets). */
  available: number;
  /** priority class → fairness key → bucket. */
  classes: Map<number, Map<string, FifoTree>>;
}

export interface ReadyIndex {
  pools: Map<string, PoolReady>;
  /** Where each indexed Work sits (so removal never depends on mutated fields). */
  located: Map<string, Location>;
  /** Verified Result inputs by Work id. */
  results: Map<string, ResultInput>;
}

export function createReadyIndex(): ReadyIndex {
  return { pools: new Map(), located: new Map(), results: new Map() };
}

/** Remove `work` from its bucket, if indexed. */
export function unindexWork(index: ReadyIndex, work: Pick<IndexedWork, 'workId'>): void {
  const at = index.located.get(work.workId);
  if (at === undefined) return;
  index.located.delete(work.workId);
  const pool = index.pools.get(at.pool)!;
  const keys = pool.classes.get(at.priority)!;
  const bucket = keys.get(at.key)!;
  bucket.remove(at.fifo);
  pool.available--;
  if (bucket.size === 0) keys.delete(at.key);
  if (keys.size === 0) pool.classes.delete(at.priority);
  if (pool.available === 0) index.pools.delete(at.pool);
}

/**
 * Index `work` in the bucket of its current pool, effective priority and
 * fairness key when it is `available` (re-bucketing it when those moved);
 * any other state removes it.
 */
export function indexWork(
  index: ReadyIndex,
  work: IndexedWork,
): void {
  if (work.state !== 'available') {
    unindexWork(index, work);
    return;
  }
  const at = index.located.get(work.workId);
  if (
    at !== undefined &&
    at.pool === work.pool &&
    at.priority === work.effectivePriority &&
    at.key === work.fairnessKey &&
    at.fifo === work.fifo
  ) {
    return;
  }
  if (at !== undefined) unindexWork(index, work);
  let pool = index.pools.get(work.pool);
  if (pool === undefined) {
    pool = { available: 0, classes: new Map() };
    index.pools.set(work.pool, pool);
  }
  let keys = pool.classes.get(work.effectivePriority);
  if (keys === undefined) {
    keys = new Map();
    pool.classes.set(work.effectivePriority, keys);
  }
  let bucket = keys.get(work.fairnessKey);
  if (bucket === undefined) {
    bucket = new FifoTree();
    keys.set(work.fairnessKey, bucket);
  }
  bucket.insert(work.fifo, work.workId);
  pool.available++;
  index.located.set(work.workId, { pool: work.pool, priority: work.effectivePriority, key: work.fairnessKey, fifo: work.fifo });
}

/** Remember a verified Result's inputs for successor assignments (call on every Result). */
export function recordResult(index: ReadyIndex, workId: string, resultCommitId: string, descriptor: JsonObject): void {
  index.results.set(workId, { result_commit_id: resultCommitId, descriptor });
}

/** Number of available Work in `pool`. */
export function availableIn(index: ReadyIndex, pool: string): number {
  return index.pools.get(pool)?.available ?? 0;
}

/** The buckets of `pool`: priority class → fairness key → FIFO bucket (read-only use). */
export function bucketsOf(index: ReadyIndex, pool: string): ReadonlyMap<number, ReadonlyMap<string, FifoTree>> {
  return index.pools.get(pool)?.classes ?? new Map();
}

export function isIndexed(index: ReadyIndex, workId: string): boolean {
  return index.located.has(workId);
}
