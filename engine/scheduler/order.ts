/**
 * Stable tie-break orders of spec 7.5: classes in numeric order, accounting
 * keys in UTF-8 byte order (the canonical JSON key order, contract `canonical_json`).
 */

import { compareCodePoints } from '../codec/json.ts';

/** UTF-8 byte order (= code-point order): the canonical JSON key order, as -1 / 0 / 1. */
export function utf8Compare(a: string, b: string): number {
  return Math.sign(compareCodePoints(a, b));
}

export function numericCompare(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
