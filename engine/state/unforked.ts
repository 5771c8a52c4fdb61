/**
 * The base object behind a fork's copy-on-write view (engine/replay/fork.ts registers each view
 * it makes), for caches kept beside the state and keyed by state objects.
 */

/** Every fork view's base object, across forks. */
const bases = new WeakMap<object, object>();

/** @internal engine/replay/fork.ts: `view` serves `base`. */
export function noteForkView(view: object, base: object): void {
  bases.set(view, base);
}

/**
 * The base object behind a fork's view (anything else as it is). Only for caches of what never
 * changes once folded, keyed by state objects (a Work's payload size, a profile's contract
 * digest, a checkpoint's receipt index): a fork then finds what its projection already computed
 * instead of computing it again per view. Never for anything a fold writes.
 */
export function unforked<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  // A fork of a fork views its parent's view: follow the views down to the object itself.
  let base: object = value;
  for (let next = bases.get(base); next !== undefined; next = bases.get(base)) base = next;
  return base as T;
}
