/**
 * Canonical-form check of one ledger record in a single pass over its text (spec 7.6, 7.17 hot
 * path), instead of re-serialising the parsed value and comparing.
 *
 * `canonicalSpans(text)` answers the spans of the top-level members when `text` is, character
 * for character, what `canonicalize` writes for the object it encodes; otherwise it answers null,
 * which means "not proven" (never "invalid"): the caller then takes the general path
 * (`canonicalMembers` + `parseStrict`), which names the precise error. So this scanner may only
 * ever be too strict, never too lenient. It accepts exactly:
 *   - no whitespace anywhere; a top-level object whose keys are printable ASCII (as
 *     `canonicalMembers` requires for spans);
 *   - object keys that are "plain" (no escape, no surrogate) and strictly increasing in UTF-16
 *     order, which for surrogate-free keys is code-point (= UTF-8 byte) order, so sorted and
 *     unique; any other key answers null;
 *   - strings spelled as `canonicalize` spells them: raw characters except `"`, `\` and C0
 *     controls; the escapes `\"` `\\` `\b` `\t` `\n` `\f` `\r`, and `\u00xx` (lowercase hex) for
 *     the other C0 controls only; surrogates only as well-formed pairs;
 *   - integers as `String(n)` of a safe integer: no `-0`, no leading zero, no fraction or
 *     exponent, at most 9007199254740991 in magnitude;
 *   - `true`, `false`, `null`;
 *   - nesting and array length within `NESTING_LIMIT` / `ARRAY_MEMBER_LIMIT`, counted as
 *     `canonicalize` counts them.
 * A canonical text has exactly one decoding, so `JSON.parse(text)` is then the value
 * `parseStrict` would return (see `parseLedgerRecord`).
 */
import { ARRAY_MEMBER_LIMIT, NESTING_LIMIT } from './json.ts';
import type { MemberSpans } from './members.ts';
import { FlatSpans } from './spans.ts';

const MAX_SAFE = '9007199254740991';

// Every scanning function takes the text and a position and answers the position after what it
// scanned, or -1 when the text is not proven canonical there (positions stay in registers).

/** Spans of the top-level members' values when `text` is a canonical object, else null. */
export function canonicalSpans(text: string): MemberSpans | null {
  return canonicalRecordSpans(text)?.members ?? null;
}

/** A canonical ledger record's spans: its members and, one and two levels down, its request's. */
export interface RecordSpans {
  members: MemberSpans;
  /** Members of the `request` member, when its value is an object. */
  request: MemberSpans | null;
  /** Members of `request.parameters`, when its value is an object. */
  parameters: MemberSpans | null;
  /**
   * The member of `request.parameters` (`nodes` or `operations`) whose text is the `operations`
   * member's text, character for character, or null (replay then validates that copy once).
   */
  repeats: string | null;
  /**
   * When `operations` is an array: for each element, OPERATION_SPAN numbers: its span, then the
   * spans of its `descriptor`, `evidence` and `payload` values when it is an object that has them
   * (-1, -1 when not). A value's span is its canonical text, so its length is its canonical size.
   */
  operations: number[] | null;
}

/** Numbers per element of `RecordSpans.operations`, and the offsets of its spans in them. */
export const OPERATION_SPAN = 8;
export const DESCRIPTOR_AT = 2;
export const EVIDENCE_AT = 4;
export const PAYLOAD_AT = 6;

/** Deepest `value` depth entered since it was last reset (the nesting proof of a repeated span). */
let deepest = 0;

/**
 * The text being scanned is known to be ASCII (so no surrogate) and to hold no raw control
 * character in a string (`JSON.parse` accepted it), or else `JSON.parse` checks it afterwards
 * (lines.ts), and it has no backslash, as almost every ledger line. Then every string token runs
 * to the next `"` and holds only characters the general loop accepts, so `string` and
 * `plainKey` find its end with `indexOf`.
 */
let plainText = false;

// The record being scanned by `canonicalRecordSpans` (module state rather than a closure per
// record): its `operations` member's span and depth, and the request's and parameters' members.
let operationsStart = -1;
let operationsEnd = -1;
let operationsDepth = 0;
let requestAt: number[] | null = null;
let parametersAt: number[] | null = null;
let repeats: string | null = null;
let operationsAt: number[] | null = null;

/** Which object `members` scans: the record, its `request`, the request's `parameters`. */
const RECORD = 0;
const REQUEST = 1;
const PARAMETERS = 2;

/**
 * `canonicalSpans` with the request's member spans (replay hashes and compares them in place).
 * `parsedAscii`: the caller knows `text` has no character past U+007F (its UTF-8 length is its
 * length), which lets strings be skipped natively; string contents are then left unchecked, so a
 * caller that has not parsed the text yet parses it before trusting the answer (lines.ts
 * `parseLedgerRecord` does: JSON.parse refuses a raw control character in a string).
 * Submit and operations requests repeat their `operations` as `request.parameters.nodes` or
 * `.operations`; when the text at that position is the same text, it is not scanned again: the
 * canonical grammar is the same at any position, and the repeated copy, two levels deeper,
 * stays within the nesting limit (its own deepest value + 2).
 */
export function canonicalRecordSpans(text: string, parsedAscii = false): RecordSpans | null {
  if (text.charCodeAt(0) !== 0x7b) return null;
  plainText = parsedAscii && text.indexOf('\\') < 0;
  operationsStart = -1;
  operationsEnd = -1;
  requestAt = null;
  parametersAt = null;
  repeats = null;
  operationsAt = null;
  const at: number[] = [];
  if (members(text, 0, 0, RECORD, at) < 0) return null;
  return {
    members: new FlatSpans(text, at),
    request: requestAt === null ? null : new FlatSpans(text, requestAt),
    parameters: parametersAt === null ? null : new FlatSpans(text, parametersAt),
    repeats,
    operations: operationsAt,
  };
}

/**
 * Scans the object at `p` (a value at `depth`: the record, its request or the request's
 * parameters, `level`) into `at` (per member: key start and end, value start and end).
 * Answers the position after the object (the whole text for the record), or -1.
 */
function members(t: string, p: number, depth: number, level: number, at: number[]): number {
  if (depth > NESTING_LIMIT) return -1;
  if (depth > deepest) deepest = depth;
  p++;
  if (t.charCodeAt(p) === 0x7d) return depth > 0 || p + 1 === t.length ? p + 1 : -1;
  // The record's keys must be printable ASCII, as `canonicalMembers` requires for spans.
  const maxKey = level === RECORD ? 0x7e : 0xffff;
  let prevStart = -1;
  let prevEnd = -1;
  for (;;) {
    const keyStart = p + 1;
    p = plainKey(t, p, maxKey);
    if (p < 0) return -1;
    const keyEnd = p - 1;
    if (prevStart >= 0 && !ascending(t, prevStart, prevEnd, keyStart, keyEnd)) return -1;
    prevStart = keyStart;
    prevEnd = keyEnd;
    if (t.charCodeAt(p) !== 0x3a) return -1;
    const start = p + 1;
    p = member(t, start, depth, level, keyStart, keyEnd - keyStart);
    if (p < 0) return -1;
    at.push(keyStart, keyEnd, start, p);
    const c = t.charCodeAt(p++);
    if (c === 0x7d) return depth > 0 || p === t.length ? p : -1;
    if (c !== 0x2c) return -1;
  }
}

/** Scans the value at `start` of the member whose key (`keyLength` long) starts at `keyStart`. */
function member(t: string, start: number, depth: number, level: number, keyStart: number, keyLength: number): number {
  if (level === RECORD) {
    if (keyLength === 10 && t.startsWith('operations', keyStart)) {
      deepest = 0;
      let end: number;
      if (t.charCodeAt(start) === 0x5b) {
        // `value(t, start, 1)` of an array (depth 1 is within the limit), recording its elements' spans (`RecordSpans.operations`).
        if (deepest < 1) deepest = 1;
        end = array(t, start, 1, (operationsAt = []));
      } else {
        end = value(t, start, 1);
      }
      if (end >= 0) {
        operationsStart = start;
        operationsEnd = end;
        operationsDepth = deepest;
      }
      return end;
    }
    if (keyLength === 7 && t.charCodeAt(start) === 0x7b && t.startsWith('request', keyStart)) {
      requestAt = [];
      return members(t, start, 1, REQUEST, requestAt);
    }
  } else if (level === REQUEST) {
    if (keyLength === 10 && t.charCodeAt(start) === 0x7b && t.startsWith('parameters', keyStart)) {
      parametersAt = [];
      return members(t, start, 2, PARAMETERS, parametersAt);
    }
  } else if (operationsStart >= 0 && operationsDepth + 2 <= NESTING_LIMIT) {
    const nodes = keyLength === 5 && t.startsWith('nodes', keyStart);
    if (nodes || (keyLength === 10 && t.startsWith('operations', keyStart))) {
      const length = operationsEnd - operationsStart;
      // Equality of a slice (a native comparison of the characters), not startsWith (much slower on long texts).
      if (t.slice(start, start + length) === t.slice(operationsStart, operationsEnd)) {
        repeats = nodes ? 'nodes' : 'operations';
        return start + length;
      }
    }
  }
  return value(t, start, depth + 1);
}

/**
 * `value(t, p, depth)` of one element of the record's `operations` (`at[i..]` its entry of
 * `RecordSpans.operations`): an object element records its measured members' spans.
 */
function operation(t: string, p: number, depth: number, at: number[], i: number): number {
  if (t.charCodeAt(p) !== 0x7b) return value(t, p, depth);
  if (depth > NESTING_LIMIT) return -1;
  if (depth > deepest) deepest = depth;
  return object(t, p, depth, at, i);
}

/** Records in `at[i..]` the span of a member's value when its key is one whose size replay measures. */
function measuredMember(t: string, keyStart: number, keyLength: number, start: number, end: number, at: number[], i: number): void {
  const slot =
    keyLength === 10 && t.startsWith('descriptor', keyStart) ? DESCRIPTOR_AT
    : keyLength === 8 && t.startsWith('evidence', keyStart) ? EVIDENCE_AT
    : keyLength === 7 && t.startsWith('payload', keyStart) ? PAYLOAD_AT
    : -1;
  if (slot >= 0) {
    at[i + slot] = start;
    at[i + slot + 1] = end;
  }
}

/** True when `text` is a canonical JSON text of any value. */
export function isCanonicalText(text: string): boolean {
  plainText = false;
  return value(text, 0, 0) === text.length;
}

function value(t: string, p: number, depth: number): number {
  if (depth > NESTING_LIMIT) return -1;
  if (depth > deepest) deepest = depth;
  const c = t.charCodeAt(p);
  switch (c) {
    case 0x22: return string(t, p);
    case 0x7b: return object(t, p, depth, null, 0);
    case 0x5b: return array(t, p, depth, null);
    case 0x74: return t.startsWith('true', p) ? p + 4 : -1;
    case 0x66: return t.startsWith('false', p) ? p + 5 : -1;
    case 0x6e: return t.startsWith('null', p) ? p + 4 : -1;
    default: return number(t, p, c);
  }
}

/** `at` (else null): the operation's entry of `RecordSpans.operations` from `i`, where its measured members' value spans go. */
function object(t: string, p: number, depth: number, at: number[] | null, i: number): number {
  p++;
  if (t.charCodeAt(p) === 0x7d) return p + 1;
  let prevStart = -1;
  let prevEnd = -1;
  for (;;) {
    const keyStart = p + 1;
    p = plainKey(t, p, 0xffff);
    if (p < 0) return -1;
    const keyEnd = p - 1;
    if (prevStart >= 0 && !ascending(t, prevStart, prevEnd, keyStart, keyEnd)) return -1;
    prevStart = keyStart;
    prevEnd = keyEnd;
    if (t.charCodeAt(p) !== 0x3a) return -1;
    const start = p + 1;
    p = value(t, start, depth + 1);
    if (p < 0) return -1;
    if (at !== null) measuredMember(t, keyStart, keyEnd - keyStart, start, p, at, i);
    const c = t.charCodeAt(p++);
    if (c === 0x7d) return p;
    if (c !== 0x2c) return -1;
  }
}

/** `at` (else null): the record's `operations`, where each element's entry of `RecordSpans.operations` goes. */
function array(t: string, p: number, depth: number, at: number[] | null): number {
  p++;
  if (t.charCodeAt(p) === 0x5d) return p + 1;
  let n = 0;
  for (;;) {
    if (++n > ARRAY_MEMBER_LIMIT) return -1;
    if (at === null) p = value(t, p, depth + 1);
    else {
      const i = at.length;
      at.push(p, -1, -1, -1, -1, -1, -1, -1);
      p = operation(t, p, depth + 1, at, i);
      at[i + 1] = p;
    }
    if (p < 0) return -1;
    const c = t.charCodeAt(p++);
    if (c === 0x5d) return p;
    if (c !== 0x2c) return -1;
  }
}

/**
 * A key without escapes or surrogates (not a control, `"` or `\`): its text is its value. A
 * top-level key must also be printable ASCII (`max` 0x7e), as `canonicalMembers` requires.
 */
function plainKey(t: string, p: number, max: number): number {
  if (t.charCodeAt(p) !== 0x22) return -1;
  if (plainText && max > 0x7f) {
    const q = t.indexOf('"', p + 1);
    return q < 0 ? -1 : q + 1;
  }
  let i = p + 1;
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i + 1;
    // NaN (past the end) fails every comparison below and is caught here.
    if (!(c >= 0x20 && c <= max && c !== 0x5c && (c < 0xd800 || c > 0xdfff))) return -1;
    i++;
  }
}

/** Strict UTF-16 order of two key spans of `t` (code-point order, as they hold no surrogates). */
function ascending(t: string, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  for (let i = 0; i < n; i++) {
    const x = t.charCodeAt(aStart + i);
    const y = t.charCodeAt(bStart + i);
    if (x !== y) return x < y;
  }
  return aEnd - aStart < bEnd - bStart;
}

function string(t: string, p: number): number {
  if (plainText) {
    const q = t.indexOf('"', p + 1);
    return q < 0 ? -1 : q + 1;
  }
  let i = p + 1;
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c >= 0x20 && c !== 0x5c && c < 0xd800) {
      i++;
      continue;
    }
    if (c === 0x5c) {
      const e = t.charCodeAt(i + 1);
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      // \u00xx, lowercase hex, only for a C0 control without a short escape.
      if (e !== 0x75 || t.charCodeAt(i + 2) !== 0x30 || t.charCodeAt(i + 3) !== 0x30) return -1;
      const h = t.charCodeAt(i + 4);
      const l = t.charCodeAt(i + 5);
      const hi = h === 0x30 ? 0 : h === 0x31 ? 1 : -1;
      const lo = l >= 0x30 && l <= 0x39 ? l - 0x30 : l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
      if (hi < 0 || lo < 0) return -1;
      const u = hi * 16 + lo;
      if (u === 0x08 || u === 0x09 || u === 0x0a || u === 0x0c || u === 0x0d) return -1;
      i += 6;
      continue;
    }
    // A C0 control, or NaN past the end of the text.
    if (!(c >= 0x20)) return -1;
    if (c <= 0xdbff) {
      // A high surrogate must start a well-formed pair.
      const d = t.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return -1;
      i += 2;
      continue;
    }
    if (c <= 0xdfff) return -1; // a low surrogate alone
    i++;
  }
}

function number(t: string, p: number, first: number): number {
  let i = p;
  let c = first;
  if (c === 0x2d) c = t.charCodeAt(++i);
  const digitsStart = i;
  if (c === 0x30) {
    // "0" alone; "-0" and leading zeros are not canonical.
    if (i > p) return -1;
    i++;
  } else if (c >= 0x31 && c <= 0x39) {
    i++;
    for (c = t.charCodeAt(i); c >= 0x30 && c <= 0x39; c = t.charCodeAt(i)) i++;
  } else {
    return -1;
  }
  c = t.charCodeAt(i);
  if (c === 0x2e || c === 0x65 || c === 0x45 || (c >= 0x30 && c <= 0x39)) return -1;
  const digits = i - digitsStart;
  if (digits > 16) return -1;
  if (digits === 16 && t.slice(digitsStart, i) > MAX_SAFE) return -1;
  return i;
}
