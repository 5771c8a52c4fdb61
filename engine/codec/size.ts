/**
 * `canonicalSize(v)`: the UTF-8 byte length of `canonicalize(v)` without writing the text (spec
 * 7.17 limits are on canonical bytes: evidence records, Result descriptors, assignments, and
 * replay measures one or more per commit). It walks the value exactly as the serializer does
 * (json.ts `write`): the same nesting and array limits at the same depths, keys visited in
 * canonical order, every string and number measured through `canonicalize` itself unless it is
 * plain (no character that needs an escape or is a surrogate: its quoted form is itself in
 * quotes), so every error is the serializer's, in the serializer's order.
 */
import { fail } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { ARRAY_MEMBER_LIMIT, NESTING_LIMIT, canonicalize, compareCodePoints } from './json.ts';

// eslint-disable-next-line no-control-regex -- matching C0 controls is the point
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

// Printable ASCII but `"` and `\\`: written as is between quotes, one byte per character (the
// common case: one regex test instead of a second one and a UTF-8 count).
const PLAIN_ASCII = /^[\u0020\u0021\u0023-\u005b\u005d-\u007e]*$/;

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** `canonicalSize` of a string: its canonical text's UTF-8 bytes, quotes included (same errors). */
export function canonicalStringSize(s: string): number {
  if (PLAIN_ASCII.test(s)) return s.length + 2;
  return NEEDS_CARE.test(s) ? utf8(canonicalize(s)) : utf8(s) + 2;
}

/** Characters of `String(n)` for a safe integer other than -0 (what json.ts `number` writes). */
function integerSize(n: number): number {
  let digits = n < 0 ? 2 : 1;
  let rest = n < 0 ? -n : n;
  while (rest >= 10000) {
    rest = Math.floor(rest / 10000);
    digits += 4;
  }
  while (rest >= 10) {
    rest = Math.floor(rest / 10);
    digits += 1;
  }
  return digits;
}

function size(v: unknown, depth: number): number {
  if (depth > NESTING_LIMIT) fail('resource_limit', `JSON nesting exceeds ${NESTING_LIMIT}`, {}, { limit: 'nesting', max: NESTING_LIMIT });
  switch (typeof v) {
    case 'string':
      return canonicalStringSize(v);
    case 'number':
      // Anything else is refused by the serializer itself, with its error.
      return Number.isSafeInteger(v) && !Object.is(v, -0) ? integerSize(v) : canonicalize(v).length;
    case 'boolean':
      return v ? 4 : 5;
    case 'object': {
      if (v === null) return 4;
      if (Array.isArray(v)) {
        if (v.length > ARRAY_MEMBER_LIMIT) fail('resource_limit', `JSON array exceeds ${ARRAY_MEMBER_LIMIT} members`, {}, { limit: 'array_members', max: ARRAY_MEMBER_LIMIT });
        let n = v.length > 0 ? v.length + 1 : 2; // brackets and commas
        for (let i = 0; i < v.length; i++) n += size(v[i], depth + 1);
        return n;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) fail('unsupported_value', 'only plain objects are JSON objects');
      return objectSize(v as Record<string, unknown>, depth);
    }
    default:
      return fail('unsupported_value', `${typeof v} is not a JSON value`);
  }
}

/** json.ts `writeObject`, counting: the same key order (so the same first error), colons and commas. */
function objectSize(o: Record<string, unknown>, depth: number): number {
  const keys = Object.keys(o);
  let sorted = true;
  let plain = true;
  let keyBytes = 0; // of plain keys, which measuring cannot refuse: summed in any order
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (plain) {
      if (PLAIN_ASCII.test(k)) keyBytes += k.length + 2;
      else if (NEEDS_CARE.test(k)) plain = false;
      else keyBytes += utf8(k) + 2;
    }
    if (i > 0 && keys[i - 1]! > k) sorted = false;
  }
  if (!plain) keys.sort(compareCodePoints);
  else if (!sorted) keys.sort();
  let n = keys.length > 0 ? 2 * keys.length + 1 : 2; // braces, colons and commas
  if (plain) {
    n += keyBytes;
    for (let i = 0; i < keys.length; i++) n += size(o[keys[i]!], depth + 1);
    return n;
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    n += canonicalStringSize(k) + size(o[k], depth + 1);
  }
  return n;
}

/** UTF-8 bytes of `canonicalize(value)`, with its errors (see the module comment). */
export function canonicalSize(value: JsonValue): number {
  return size(value, 0);
}

/**
 * `canonicalSize` of `value` where it sits at nesting `depth` of an enclosing value (so with the
 * nesting error it meets there): what measuring the enclosing value adds for it.
 */
export function canonicalSizeAt(value: JsonValue, depth: number): number {
  return size(value, depth);
}
