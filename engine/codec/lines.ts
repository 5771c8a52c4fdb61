/**
 * Ledger framing (spec 7.6: one QueueCommit JSON object per line of work-queue.jsonl;
 * contract `canonical_json`: parser_bytes, line_bytes, truncated_final_line, blank_records).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { fail, isProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { PARSER_BYTES, parseStrict, utf8ByteLength } from './json.ts';
import { canonicalRecordSpans, type RecordSpans } from './canonical.ts';
import { canonicalMembers, type MemberSpans } from './members.ts';
import { parseRepeated, repeatedParameters, type RepeatedParameters } from './repeat.ts';

export const LINE_BYTES = 8388608;

/**
 * Codes thrown here. The contract limits answer the reference's `resource_limit`, with
 * `details.limit` naming which: `ledger_bytes` (> 80 MiB) or `line_bytes` (> 8 MiB, LF
 * excluded). Local names where the contract only says "Rejected": truncated_record (final line
 * without LF), blank_record (empty or whitespace-only line), crlf_record (a line ending in CR);
 * invalid_unicode (bad UTF-8). Line errors carry `line` (1-based).
 */
export const LINE_ERROR_CODES = ['resource_limit', 'truncated_record', 'blank_record', 'crlf_record', 'invalid_unicode'] as const;

export interface LedgerLimits {
  /** UTF-8 bytes of the whole ledger (default 80 MiB = 64 MiB budget + 16 MiB reserve, spec 7.17). */
  ledgerBytes?: number;
  /** UTF-8 bytes of one record, LF excluded (default 8 MiB). */
  lineBytes?: number;
}

export interface LedgerLine {
  text: string;
  /** 1-based physical line. */
  line: number;
}

const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Decode UTF-8, rejecting invalid sequences (`invalid_unicode`, spec 7.6). A BOM is NOT
 * stripped: it stays U+FEFF, which no JSON text may start with, so a ledger beginning with
 * a BOM fails its first record with `invalid_json` (a record must start with `{`).
 * ASCII bytes (one native check; almost every ledger record) are their own UTF-8 decoding and
 * decode as Latin-1, far cheaper than TextDecoder. Otherwise validated first (`isUtf8`, strict
 * UTF-8 as a fatal TextDecoder: no overlong form, surrogate or code point past U+10FFFF), then
 * decoded without the fatal decoder's slower path.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  if (isAscii(bytes)) return decodeAscii(bytes);
  if (!isUtf8(bytes)) fail('invalid_unicode', 'input is not valid UTF-8');
  return DECODER.decode(bytes);
}

/** The text of bytes known to be ASCII (`isAscii`): their UTF-8 decoding, decoded as Latin-1. */
export function decodeAscii(bytes: Uint8Array): string {
  return bufferOf(bytes).toString('latin1');
}

/**
 * The same bytes as a Buffer (no copy). A reader may hand a plain Uint8Array (`--ledger FILE`
 * does), whose `indexOf` is an element loop where Buffer's is memchr: framing 64 MiB took 40 ms
 * against 10.
 */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const BLANK = /^[ \t\r]*$/;

/**
 * Split a ledger into its LF-terminated records. An empty ledger has no records. Every
 * record must end with LF: a final segment without one is a truncated append. CRLF
 * endings are rejected rather than read as JSON whitespace, so every accepted record is
 * byte-for-byte the text between two LFs.
 */
export function splitLedger(input: Uint8Array | string, limits: LedgerLimits = {}): LedgerLine[] {
  const ledgerBytes = limits.ledgerBytes ?? PARSER_BYTES;
  const lineBytes = limits.lineBytes ?? LINE_BYTES;
  let text: string;
  let maxBytes: number; // an upper bound of the ledger's UTF-8 size
  if (typeof input === 'string') {
    text = input;
    maxBytes = text.length * 3;
    if (text.length > ledgerBytes || (maxBytes > ledgerBytes && utf8ByteLength(text) > ledgerBytes)) tooLarge(ledgerBytes);
  } else {
    if (input.length > ledgerBytes) tooLarge(ledgerBytes);
    text = decodeUtf8(input);
    maxBytes = input.length;
  }
  const out: LedgerLine[] = [];
  // UTF-8 bytes >= UTF-16 units and <= 3 units, so only long lines need counting.
  const checkLines = maxBytes > lineBytes;
  let pos = 0;
  for (let line = 1; pos < text.length; line++) {
    const end = text.indexOf('\n', pos);
    if (end < 0) fail('truncated_record', 'final ledger record has no terminating LF', { line });
    const record = text.slice(pos, end);
    pos = end + 1;
    const first = record.charCodeAt(0);
    if (record.length === 0 || ((first === 0x20 || first === 0x09 || first === 0x0d) && BLANK.test(record))) {
      fail('blank_record', 'blank ledger record', { line });
    }
    if (record.charCodeAt(record.length - 1) === 0x0d) fail('crlf_record', 'ledger record ends with CR (CRLF line ending)', { line });
    if (checkLines && record.length * 3 > lineBytes && (record.length > lineBytes || utf8ByteLength(record) > lineBytes)) {
      fail('resource_limit', `ledger record exceeds ${lineBytes} bytes`, { line }, { limit: 'line_bytes', max: lineBytes });
    }
    out.push({ text: record, line });
  }
  return out;
}

export interface LedgerFrame {
  /** Byte offsets of the record (LF excluded) in the input. */
  start: number;
  end: number;
  /** 1-based physical line. */
  line: number;
}

/**
 * Like `splitLedger`, but on bytes and without decoding: the record boundaries
 * only. Callers decode each record with `decodeUtf8` (so a projection can keep
 * the bytes and decode a record again on demand instead of keeping one large
 * decoded string alive). Same framing rules and codes as `splitLedger`.
 */
export function frameLedger(input: Uint8Array, limits: LedgerLimits = {}): LedgerFrame[] {
  const bytes = bufferOf(input);
  const ledgerBytes = limits.ledgerBytes ?? PARSER_BYTES;
  const lineBytes = limits.lineBytes ?? LINE_BYTES;
  if (bytes.length > ledgerBytes) tooLarge(ledgerBytes);
  const out: LedgerFrame[] = [];
  let pos = 0;
  for (let line = 1; pos < bytes.length; line++) {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) fail('truncated_record', 'final ledger record has no terminating LF', { line });
    if (end === pos) fail('blank_record', 'blank ledger record', { line });
    const first = bytes[pos]!;
    if (first === 0x20 || first === 0x09 || first === 0x0d) {
      let i = pos;
      while (i < end && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0d)) i++;
      if (i === end) fail('blank_record', 'blank ledger record', { line });
    }
    if (bytes[end - 1] === 0x0d) fail('crlf_record', 'ledger record ends with CR (CRLF line ending)', { line });
    if (end - pos > lineBytes) fail('resource_limit', `ledger record exceeds ${lineBytes} bytes`, { line }, { limit: 'line_bytes', max: lineBytes });
    out.push({ start: pos, end, line });
    pos = end + 1;
  }
  return out;
}

function tooLarge(limit: number): never {
  return fail('resource_limit', `ledger exceeds ${limit} bytes`, {}, { limit: 'ledger_bytes', max: limit });
}

/**
 * Parse one ledger record (spec 7.17 hot path). Fast path: JSON.parse, then accept iff
 * canonicalize(value) === text. That equality proves the text is canonical and therefore
 * strict: canonicalize emits each decoded key once (so the text has no duplicate, even
 * escape-equivalent, keys), spells every number as String(safe integer) (no fraction,
 * exponent, leading zero or -0), rejects unpaired surrogates (which JSON.parse accepts
 * via \u escapes) and enforces the same nesting and array limits as parseStrict; a
 * canonical text has exactly one decoding, so JSON.parse's value is parseStrict's.
 * Otherwise parseStrict decides: it returns the value of a valid but non-canonical line
 * (accepted silently) or throws the precise error code.
 *
 * For a canonical record it also returns the span of each top-level member's value in
 * `text` (null for a valid non-canonical line), and from the one-pass check the request's
 * member spans (`record`, see `canonicalRecordSpans`). The same proof applies: the spans
 * index the canonical serialization itself. `bytes`, when known, is the record's UTF-8
 * length (equal to its length: an ASCII record, which the one-pass check scans faster).
 * `repeat`: where a canonical record's request parameters repeat its operations (repeat.ts), or null.
 */
export function parseLedgerRecord(text: string, bytes?: number): { value: JsonValue; spans: MemberSpans | null; record: RecordSpans | null; repeat: RepeatedParameters | null } {
  if (text.length > LINE_BYTES || (text.length * 3 > LINE_BYTES && utf8ByteLength(text) > LINE_BYTES)) {
    fail('resource_limit', `ledger record exceeds ${LINE_BYTES} bytes`, {}, { limit: 'line_bytes', max: LINE_BYTES });
  }
  // An ASCII record (almost every ledger line) is proven canonical before it is parsed, so the
  // copy of the operations its parameters repeat need not be parsed (repeat.ts). The one-pass
  // check then skips string contents natively; JSON.parse checks them (every string of the
  // parameters' copy is also a string of the operations it parses), and a text it refuses
  // takes the general path below, which names the error.
  const ascii = bytes === text.length;
  if (ascii) {
    const fast = canonicalRecordSpans(text, true);
    if (fast !== null) {
      const repeat = repeatedParameters(fast);
      const value = parseProven(text, repeat);
      if (value !== undefined) return { value, spans: fast.members, record: fast, repeat };
    }
  }
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    // Syntax, nesting or Unicode problem: the strict parser names it.
    return { value: parseStrict(text, { maxBytes: LINE_BYTES }), spans: null, record: null, repeat: null };
  }
  // Fast proof of canonical form in one pass over the text (codec/canonical.ts). It answers
  // null for anything it cannot prove (e.g. an escaped key); the re-serialising check below
  // then decides, so both paths accept exactly the same lines. Neither throws on a bad line:
  // anything they throw is a bug, and surfaces as one.
  const fast = ascii ? null : canonicalRecordSpans(text);
  if (fast !== null) return { value, spans: fast.members, record: fast, repeat: repeatedParameters(fast) };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    let members: ReturnType<typeof canonicalMembers> = null;
    try {
      members = canonicalMembers(value);
    } catch (e) {
      // A value canonical form cannot spell (lone surrogate, too deep): the strict parser names it.
      if (!isProtocolError(e)) throw e;
    }
    if (members !== null && members.text === text) return { value, spans: members.spans, record: null, repeat: null };
  }
  return { value: parseStrict(text, { maxBytes: LINE_BYTES }), spans: null, record: null, repeat: null };
}

/** The value of a text the one-pass check proved canonical (skipping string contents), or undefined when JSON.parse refuses it. */
function parseProven(text: string, repeat: RepeatedParameters | null): JsonValue | undefined {
  try {
    return repeat === null ? (JSON.parse(text) as JsonValue) : parseRepeated(text, repeat);
  } catch {
    return undefined;
  }
}
