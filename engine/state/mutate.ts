/**
 * Work state transitions that keep the derived indexes (ready index, counters,
 * history) consistent. Every handler changes Work state only through here.
 */
import { indexWork, unindexWork } from './ready-index.ts';
import type { ReplayState, WorkRecord, WorkState } from './state.ts';

export function bump(map: Map<string, number>, key: string, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/**
 * Account keys built so far, by pool and fairness key: a Map key that is a fresh string is
 * flattened and hashed at every use, and replay charges an account at every Claim and Completion.
 * Keys are few (a Policy's fairness keys per pool); past ACCOUNT_KEYS in all, they are built.
 */
const accountKeys = new Map<string, Map<string, string>>();
const ACCOUNT_KEYS = 65_536;
let accountKeyCount = 0;

/** The key of one fairness key's account in `pool` (`state.outstandingByKey`). */
export function accountKey(pool: string, fairnessKey: string): string {
  const byKey = accountKeys.get(pool);
  const known = byKey?.get(fairnessKey);
  if (known !== undefined) return known;
  const key = `${pool}\u0000${fairnessKey}`;
  if (accountKeyCount < ACCOUNT_KEYS) {
    if (byKey === undefined) accountKeys.set(pool, new Map([[fairnessKey, key]]));
    else byKey.set(fairnessKey, key);
    accountKeyCount++;
  }
  return key;
}

export function setWorkState(state: ReplayState, work: WorkRecord, next: WorkState): void {
  if (work.state === next) return;
  if (work.state === 'available') unindexWork(state.ready, work);
  work.state = next;
  if (next === 'available') indexWork(state.ready, work);
}

/** Re-bucket an available Work after its effective priority changed. */
export function reindexWork(state: ReplayState, work: WorkRecord, effectivePriority: number): void {
  if (work.state === 'available') unindexWork(state.ready, work);
  work.effectivePriority = effectivePriority;
  if (work.state === 'available') indexWork(state.ready, work);
}

export function touch(work: WorkRecord, commitId: string): void {
  if (work.touchedBy[work.touchedBy.length - 1] !== commitId) work.touchedBy.push(commitId);
}

/** A logical Claim slot opens (grant) or closes (Completion / ClaimCancellation). */
export function chargeLogical(state: ReplayState, pool: string, fairnessKey: string, delta: 1 | -1): void {
  bump(state.outstandingClaims, pool, delta);
  bump(state.outstandingByKey, accountKey(pool, fairnessKey), delta);
}
