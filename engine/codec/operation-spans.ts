/**
 * Where each element of a ledger record's top-level `operations` array sits in its UTF-8 bytes,
 * found in one pass without parsing anything (replay/definitions.ts reads one Work operation of
 * a record back by decoding and parsing its span alone).
 *
 * The pass follows JSON's structure only: strings (skipping escaped characters), nesting and the
 * top-level member names. It relies on UTF-8: every byte of a multi-byte character is 0x80 or
 * more, so none looks like a quote, a backslash or a bracket. It is meant for records replay has
 * validated (well-formed JSON objects); on anything it does not expect (the `operations` member
 * missing, not an array, or named with an escape) it answers null, and the caller parses the
 * whole record instead.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const encoder = new TextEncoder();
const OPERATIONS = encoder.encode('operations');

/** [start0, end0, start1, end1, ...]: byte offsets in `bytes` of each operation's text, or null. */
export function operationSpans(bytes: Uint8Array): Int32Array | null {
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_OBJECT) return null;
  i = skipSpace(bytes, i + 1);
  while (i < bytes.length && bytes[i] === QUOTE) {
    const keyStart = i + 1;
    const keyEnd = skipString(bytes, i) - 1; // the closing quote
    if (keyEnd < keyStart) return null;
    i = skipSpace(bytes, keyEnd + 1);
    if (bytes[i] !== COLON) return null;
    i = skipSpace(bytes, i + 1);
    if (isOperations(bytes, keyStart, keyEnd)) return elementSpans(bytes, i);
    i = skipValue(bytes, i);
    if (i < 0) return null;
    i = skipSpace(bytes, i);
    if (bytes[i] !== COMMA) return null;
    i = skipSpace(bytes, i + 1);
  }
  return null;
}

/**
 * `operationSpans` of a record held as text, in UTF-16 code units of `text` (what `slice` takes):
 * the spans are found on its UTF-8 encoding, then counted in code units.
 */
export function operationSpansOfText(text: string): Int32Array | null {
  const bytes = encoder.encode(text);
  const spans = operationSpans(bytes);
  if (spans === null || bytes.length === text.length) return spans; // ASCII: a byte is a code unit
  const units = new Int32Array(spans.length);
  let unit = 0;
  let at = 0;
  for (let i = 0; i < bytes.length && at < spans.length; i++) {
    while (at < spans.length && spans[at] === i) units[at++] = unit;
    const b = bytes[i]!;
    // A lead byte of 4 (0xF0..) is a surrogate pair; a continuation byte (0x80..0xBF) adds nothing.
    if (b < 0x80) unit += 1;
    else if (b >= 0xf0) unit += 2;
    else if (b >= 0xc0) unit += 1;
  }
  return at === spans.length ? units : null; // every span ends before the record's closing brace
}

function isOperations(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start !== OPERATIONS.length) return false;
  for (let k = 0; k < OPERATIONS.length; k++) if (bytes[start + k] !== OPERATIONS[k]) return false;
  return true;
}

/** The spans of the elements of the array at `i`. */
function elementSpans(bytes: Uint8Array, i: number): Int32Array | null {
  if (bytes[i] !== OPEN_ARRAY) return null;
  const spans: number[] = [];
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === CLOSE_ARRAY) return new Int32Array(0);
  for (;;) {
    const end = skipValue(bytes, i);
    if (end < 0) return null;
    spans.push(i, end);
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_ARRAY) return Int32Array.from(spans);
    if (bytes[i] !== COMMA) return null;
    i = skipSpace(bytes, i + 1);
  }
}

/** Past the value at `i` (an object, an array, a string or a literal), or -1 when the bytes end first. */
function skipValue(bytes: Uint8Array, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return skipString(bytes, i);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or a literal: up to the next delimiter.
    while (i < bytes.length && !isDelimiter(bytes[i]!)) i++;
    return i;
  }
  let depth = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      i = skipString(bytes, i);
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Past the closing quote of the string whose opening quote is at `i` (the end of the bytes if it has none). */
function skipString(bytes: Uint8Array, i: number): number {
  for (i++; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === BACKSLASH) i++;
    else if (b === QUOTE) return i + 1;
  }
  return bytes.length;
}

function isDelimiter(b: number): boolean {
  return b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || isSpace(b);
}

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function skipSpace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isSpace(bytes[i]!)) i++;
  return i;
}
