/**
 * Canonical text of a top-level object together with the exact span of each
 * member's value in that text. Replay uses the spans of a canonical ledger line
 * to hash and compare request parameters and operations as substrings of the
 * line instead of serializing them again (spec 7.17 hot path).
 */
import type { JsonValue } from '../json.ts';
import { canonicalize } from './json.ts';

export type MemberSpans = ReadonlyMap<string, readonly [start: number, end: number]>;

const PLAIN_KEY = /^[\u0020-\u0021\u0023-\u005b\u005d-\u007e]*$/;

/**
 * Returns null when the object has a key that is not plain printable ASCII
 * (its canonical order and spelling then need the general serializer).
 */
export function canonicalMembers(value: { [key: string]: JsonValue }): { text: string; spans: MemberSpans } | null {
  const keys = Object.keys(value);
  for (const k of keys) if (!PLAIN_KEY.test(k)) return null;
  keys.sort(); // plain ASCII: UTF-16 order is UTF-8 byte order
  const spans = new Map<string, readonly [number, number]>();
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    text += (i > 0 ? ',"' : '"') + k + '":';
    const start = text.length;
    text += canonicalize(value[k]!, 1); // one level inside the record: nesting counts from its root
    spans.set(k, [start, text.length]);
  }
  return { text: text + '}', spans };
}
