/**
 * `sameJson(a, b)`: whether two JSON values have the same canonical text (`canonicalize(a) ===
 * canonicalize(b)`) without writing either, for values `canonicalize` accepts. The canonical
 * text is a function of the value alone (keys sorted, one form per string and number) and tells
 * any two different values apart, so it is deep equality: the same members whatever their order,
 * the same elements in order, and equal primitives (`===`: canonicalize accepts only safe
 * integers, and not -0, so equal numbers are written alike). Replay compares records' objects this way where it would otherwise
 * serialize both on every commit (a start marker's sender against the commit's actor).
 */
import type { JsonValue } from '../json.ts';

export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!Object.hasOwn(b, k) || !sameJson(a[k], b[k])) return false;
  }
  return true;
}
