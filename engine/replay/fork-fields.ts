/**
 * Every field of a replay state, with what `Projection.fork()` isolates it as (fork.ts): the
 * copy-on-write view serves each kind below, and nothing else.
 *
 * - `value`: a primitive or null; a fork assigns its own.
 * - `map`: a Map; a fork keeps an overlay of changed, removed and added entries (values that
 *   are objects are views in turn, copied on their first write).
 * - `list`: an array; a fork keeps patches and appended elements.
 * - `object`: a plain object or class instance; a fork copies it shallowly on its first write,
 *   its nested values stay views.
 *
 * The table is typed over every key of `ReplayState`: a new field does not compile until it is
 * listed here, and `checkForkable` refuses a state carrying a field the table does not name or
 * of another kind, so no field can be shared between a fork and its projection unnoticed
 * (fork.test.ts replays a ledger that sets every field and writes each one through a fork).
 *
 * State kept beside the state (WeakMaps keyed by state objects) is for caches of what never
 * changes once folded only (fork.ts `unforked`); anything a fold writes is a field here.
 */
import type { ReplayState } from '../state/state.ts';

export type ForkedAs = 'value' | 'map' | 'list' | 'object';

export const FORKED_FIELDS: { readonly [K in keyof Required<ReplayState>]: ForkedAs } = {
  repository: 'value',
  tip: 'value',
  commits: 'list',
  commitIndex: 'map',
  policy: 'object',
  policyHistory: 'list',
  controls: 'object',
  works: 'map',
  graphs: 'map',
  graphGates: 'map',
  successors: 'map',
  claims: 'map',
  dispatches: 'map',
  observations: 'map',
  latestObservation: 'map',
  observationWrites: 'map',
  requests: 'map',
  fairness: 'object',
  ready: 'object',
  outstandingClaims: 'map',
  outstandingByKey: 'map',
  outstandingNative: 'map',
  pendingByPool: 'map',
  deployments: 'map',
  admissions: 'map',
  issueLinks: 'map',
  linkedIssues: 'map',
  issueComments: 'map',
  backingIssues: 'map',
  boundRuns: 'map',
  seenGenerations: 'map',
  checkpoint: 'object',
  budget: 'object',
};

function kindOf(value: unknown): ForkedAs | 'other' {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return 'value';
  if (value instanceof Map) return 'map';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Set || value instanceof WeakMap || value instanceof WeakSet || ArrayBuffer.isView(value) || typeof value === 'function') return 'other';
  return 'object';
}

/**
 * Throws (a bug, not a verdict) when `state` has a field `FORKED_FIELDS` does not name, or a
 * field of another kind than listed (an absent optional field, or null for an object, is fine).
 */
export function checkForkable(state: ReplayState): void {
  for (const key of Reflect.ownKeys(state)) {
    const expected = typeof key === 'string' && Object.hasOwn(FORKED_FIELDS, key) ? FORKED_FIELDS[key as keyof ReplayState] : undefined;
    if (expected === undefined) throw new Error(`Projection.fork(): the replay state field ${String(key)} is not in FORKED_FIELDS (engine/replay/fork-fields.ts)`);
    const value = (state as unknown as Record<string, unknown>)[key as string];
    if (value === undefined || (value === null && expected === 'object')) continue;
    const actual = kindOf(value);
    if (actual !== expected) throw new Error(`Projection.fork(): the replay state field ${String(key)} is a ${actual}, FORKED_FIELDS says ${expected}`);
  }
}
