/**
 * Strict JSON codec of the version-3 wire profile (spec 7.6 "Current wire encoding",
 * contract `canonical_json` / `codec_errors`).
 */
import { fail } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';

/** Ceilings of contract `canonical_json`. */
export const NESTING_LIMIT = 64;
export const ARRAY_MEMBER_LIMIT = 16384;
export const PARSER_BYTES = 83886080;

/**
 * Codes thrown here. Contract (`codec_errors`): invalid_unicode, duplicate_key,
 * noncanonical_number. Contract limits (`canonical_json` nesting_limit, array_member_limit,
 * parser_bytes) answer the reference's `resource_limit`, with `details.limit` naming which one
 * (`nesting`, `array_members`, `parser_bytes`). Local: invalid_json (RFC 8259 syntax, trailing
 * data), unsupported_value (canonicalize of a non-JSON value).
 */
export const JSON_ERROR_CODES = [
  'invalid_unicode', 'duplicate_key', 'noncanonical_number', 'invalid_json', 'resource_limit', 'unsupported_value',
] as const;

export interface ParseLimits {
  /** UTF-8 bytes of the whole text (default 80 MiB, contract parser_bytes). */
  maxBytes?: number;
  /** Largest number of containers enclosing any value (default 64). */
  maxDepth?: number;
  /** Largest array length (default 16384). */
  maxArrayMembers?: number;
}

// Surrogate code units; LONE finds one that is not part of a high+low pair.
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// Characters that make a string take the slow (escaping / validating) path.
// eslint-disable-next-line no-control-regex -- matching C0 controls is the point
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** UTF-8 length of a JS string (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8ByteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // pair: 2 units -> 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** True when `s` has no unpaired surrogate (is a sequence of Unicode scalar values). */
export const isWellFormedUnicode: (s: string) => boolean = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
  ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
  : (s) => !SURROGATE.test(s) || !LONE_SURROGATE.test(s);

// ---------------------------------------------------------------- canonical serializer

function quote(s: string): string {
  if (!NEEDS_CARE.test(s)) return '"' + s + '"';
  if (!isWellFormedUnicode(s)) fail('invalid_unicode', 'string has an unpaired surrogate');
  // For well-formed text JSON.stringify escapes exactly `"`, `\` and U+0000-U+001F
  // (\b \t \n \f \r, else \u00xx): the reference spelling; no HTML or U+2028/9 escaping.
  return JSON.stringify(s);
}

function number(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) {
    fail('noncanonical_number', `number ${String(n)} is not a canonical safe integer`);
  }
  return '' + n;
}

/** Code-point (= UTF-8 byte) order; differs from `<` only around surrogates. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Move surrogates (D800-DFFF) above E000-FFFF, which is where their code points sort.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

function writeObject(o: Record<string, unknown>, depth: number): string {
  const keys = Object.keys(o);
  let sorted = true;
  let plain = true; // no key needs escaping or holds a surrogate
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (plain && NEEDS_CARE.test(k)) plain = false;
    if (i > 0 && keys[i - 1]! > k) sorted = false;
  }
  // Without surrogates, UTF-16 unit order (`>`, default sort) equals code-point order.
  if (!plain) keys.sort(compareCodePoints);
  else if (!sorted) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out += ',';
    out += (plain ? '"' + k + '"' : quote(k)) + ':' + write(o[k], depth + 1);
  }
  return out + '}';
}

function write(v: unknown, depth: number): string {
  if (depth > NESTING_LIMIT) fail('resource_limit', `JSON nesting exceeds ${NESTING_LIMIT}`, {}, { limit: 'nesting', max: NESTING_LIMIT });
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      return number(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        if (v.length > ARRAY_MEMBER_LIMIT) fail('resource_limit', `JSON array exceeds ${ARRAY_MEMBER_LIMIT} members`, {}, { limit: 'array_members', max: ARRAY_MEMBER_LIMIT });
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          out += write(v[i], depth + 1);
        }
        return out + ']';
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) fail('unsupported_value', 'only plain objects are JSON objects');
      return writeObject(v as Record<string, unknown>, depth);
    }
    default:
      return fail('unsupported_value', `${typeof v} is not a JSON value`);
  }
}

/**
 * Canonical text (spec 7.6): keys in UTF-8 byte order, no whitespace, minimal escaping,
 * safe integers only (typed -0, fractions, NaN, infinities: `noncanonical_number`).
 * `depth` is how deep `value` sits in the text being written (a record's member: 1), so the
 * nesting limit counts from the record's root.
 */
export function canonicalize(value: JsonValue, depth = 0): string {
  return write(value, depth);
}

// ---------------------------------------------------------------- strict parser

function hex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

const LITERALS: ReadonlyArray<readonly [string, JsonValue]> = [['true', true], ['false', false], ['null', null]];
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };

class Parser {
  pos = 0;
  readonly text: string;
  readonly maxDepth: number;
  readonly maxArray: number;

  constructor(text: string, maxDepth: number, maxArray: number) {
    this.text = text;
    this.maxDepth = maxDepth;
    this.maxArray = maxArray;
  }

  /** Offsets are diagnostics only: they may differ between engines (`codec_errors`). */
  error(code: string, message: string, at: number = this.pos, details: Record<string, unknown> = {}): never {
    return fail(code, `${message} at offset ${at}`, {}, { offset: at, ...details });
  }

  ws(): void {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.pos);
  }

  value(depth: number): JsonValue {
    if (depth > this.maxDepth) this.error('resource_limit', `JSON nesting exceeds ${this.maxDepth}`, this.pos, { limit: 'nesting', max: this.maxDepth });
    this.ws();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    for (const [word, v] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.error('invalid_json', Number.isNaN(c) ? 'unexpected end of JSON' : 'unexpected character');
  }

  object(depth: number): JsonObject {
    const t = this.text;
    const obj: JsonObject = {};
    this.pos++;
    this.ws();
    if (t.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return obj;
    }
    for (;;) {
      this.ws();
      if (t.charCodeAt(this.pos) !== 0x22) this.error('invalid_json', 'expected an object key');
      const keyAt = this.pos;
      const key = this.string();
      // Compared after decoding, so escaped spellings of one key collide (spec 7.6).
      if (Object.hasOwn(obj, key)) this.error('duplicate_key', 'duplicate object key', keyAt);
      this.ws();
      if (t.charCodeAt(this.pos) !== 0x3a) this.error('invalid_json', 'expected ":"');
      this.pos++;
      const v = this.value(depth + 1);
      // `__proto__` stays an ordinary own member, as with JSON.parse.
      if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[key] = v;
      this.ws();
      const c = t.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x7d) this.error('invalid_json', 'expected "," or "}"');
      this.pos++;
      if (c === 0x7d) return obj;
    }
  }

  array(depth: number): JsonValue[] {
    const t = this.text;
    const arr: JsonValue[] = [];
    this.pos++;
    this.ws();
    if (t.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return arr;
    }
    for (;;) {
      if (arr.length >= this.maxArray) this.error('resource_limit', `JSON array exceeds ${this.maxArray} members`, this.pos, { limit: 'array_members', max: this.maxArray });
      arr.push(this.value(depth + 1));
      this.ws();
      const c = t.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x5d) this.error('invalid_json', 'expected "," or "]"');
      this.pos++;
      if (c === 0x5d) return arr;
    }
  }

  string(): string {
    const t = this.text;
    let i = this.pos + 1;
    let start = i;
    let out = '';
    let surrogate = false;
    for (;;) {
      if (i >= t.length) this.error('invalid_json', 'unterminated string', i);
      const c = t.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        out += t.slice(start, i);
        const e = t.charCodeAt(i + 1);
        if (e === 0x75) {
          const u = (hex(t.charCodeAt(i + 2)) << 12) | (hex(t.charCodeAt(i + 3)) << 8) | (hex(t.charCodeAt(i + 4)) << 4) | hex(t.charCodeAt(i + 5));
          if (u < 0) this.error('invalid_json', 'invalid \\u escape', i);
          if (u >= 0xd800 && u <= 0xdfff) surrogate = true;
          out += String.fromCharCode(u);
          i += 6;
        } else {
          const s = ESCAPES[e];
          if (s === undefined) this.error('invalid_json', 'invalid escape', i);
          out += s;
          i += 2;
        }
        start = i;
        continue;
      }
      if (c < 0x20) this.error('invalid_json', 'control character in string', i);
      if (c >= 0xd800 && c <= 0xdfff) surrogate = true;
      i++;
    }
    out += t.slice(start, i);
    if (surrogate && LONE_SURROGATE.test(out)) this.error('invalid_unicode', 'string has an unpaired surrogate');
    this.pos = i + 1;
    return out;
  }

  number(): number {
    const t = this.text;
    const start = this.pos;
    let i = start;
    if (t.charCodeAt(i) === 0x2d) i++;
    const intStart = i;
    while (isDigit(t.charCodeAt(i))) i++;
    const digits = i - intStart;
    if (digits === 0) this.error('invalid_json', 'invalid number');
    let integral = true;
    if (t.charCodeAt(i) === 0x2e) {
      const f = ++i;
      while (isDigit(t.charCodeAt(i))) i++;
      if (i === f) this.error('invalid_json', 'invalid number fraction', i);
      integral = false;
    }
    if ((t.charCodeAt(i) | 0x20) === 0x65) {
      i++;
      if (t.charCodeAt(i) === 0x2b || t.charCodeAt(i) === 0x2d) i++;
      const f = i;
      while (isDigit(t.charCodeAt(i))) i++;
      if (i === f) this.error('invalid_json', 'invalid number exponent', i);
      integral = false;
    }
    const token = t.slice(start, i);
    // Spec 7.6: one spelling per value; no fraction, exponent, leading zero ("01") or -0.
    const zeroSpelling = t.charCodeAt(intStart) === 0x30 && (digits > 1 || intStart > start);
    const n = integral && !zeroSpelling && digits <= 16 ? Number(token) : NaN;
    if (!Number.isSafeInteger(n)) this.error('noncanonical_number', `number ${token} is not a canonical safe integer`);
    this.pos = i;
    return n;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Strict RFC 8259 parse of one JSON text within the wire profile (spec 7.6): rejects
 * duplicate decoded keys, unpaired surrogates, non-canonical numbers and limit breaches.
 */
export function parseStrict(text: string, limits: ParseLimits = {}): JsonValue {
  const maxBytes = limits.maxBytes ?? PARSER_BYTES;
  if (typeof text !== 'string') fail('invalid_json', 'JSON input must be a string');
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8ByteLength(text) > maxBytes)) {
    fail('resource_limit', `JSON input exceeds ${maxBytes} bytes`, {}, { limit: 'parser_bytes', max: maxBytes });
  }
  const p = new Parser(text, limits.maxDepth ?? NESTING_LIMIT, limits.maxArrayMembers ?? ARRAY_MEMBER_LIMIT);
  const v = p.value(0);
  p.ws();
  if (p.pos !== text.length) p.error('invalid_json', 'trailing data after JSON value');
  return v;
}
