import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { PARSER_BYTES, canonicalize, parseStrict } from './json.ts';
import { LINE_BYTES, decodeUtf8, frameLedger, splitLedger } from './lines.ts';
import { parseLedgerLine } from '../../tests/support/bytes.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const GENERATED = fileURLToPath(new URL('../../../shared/reference/gh-aw-generated/', import.meta.url));
const LEDGER_1M = GENERATED + 'ledger-1m.jsonl';

/** The thrown ProtocolError (code and line), or undefined when fn returns. */
function errorOf(fn: () => unknown): { code: string; line?: number } | undefined {
  try {
    fn();
  } catch (e) {
    // The contract limits answer the reference's resource_limit; details.limit says which one.
    const code = e instanceof ProtocolError && e.code === 'resource_limit' ? `resource_limit:${String(e.details?.limit)}` : (e as ProtocolError).code;
    if (e instanceof ProtocolError) return e.line === undefined ? { code } : { code, line: e.line };
    throw e;
  }
  return undefined;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('decodeUtf8', () => {
  it('decodes valid UTF-8, including 4-byte sequences', () => {
    expect(decodeUtf8(utf8('{"x":"é😀"}\n'))).toBe('{"x":"é😀"}\n');
  });
  it('rejects invalid UTF-8 with invalid_unicode', () => {
    const bad = [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x61, 0x80]];
    for (const bytes of bad) expect(errorOf(() => decodeUtf8(Uint8Array.from(bytes)))?.code).toBe('invalid_unicode');
  });
  it('keeps a BOM, so the first record then fails as JSON', () => {
    const text = decodeUtf8(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('{}\n')]));
    expect(text).toBe('\ufeff{}\n');
    const [first] = splitLedger(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('{}\n')]));
    expect(errorOf(() => parseLedgerLine(first!.text))?.code).toBe('invalid_json');
  });
});

describe('frameLedger', () => {
  // A reader may hand a plain Uint8Array over a larger memory (`--ledger FILE` does): framed through a Buffer view of exactly its bytes.
  const framesOrError = (bytes: Uint8Array): unknown => errorOf(() => frameLedger(bytes)) ?? frameLedger(bytes);
  it('frames a plain Uint8Array at a byte offset exactly as a Buffer of the same bytes, errors included', () => {
    const ledgers = ['{"a":1}\n{"b":"é"}\n', '{"a":1}\n\n', '{"a":1}\r\n', '{"a":1}\n{"b":', ' \t\n', ''];
    for (const ledger of ledgers) {
      const body = utf8(ledger);
      const memory = new Uint8Array(body.length + 16).fill(0x0a); // LFs around it: a view that strays past its bytes frames differently
      memory.set(body, 8);
      const view = memory.subarray(8, 8 + body.length);
      expect(Buffer.isBuffer(view)).toBe(false);
      expect(framesOrError(view), ledger).toEqual(framesOrError(Buffer.from(body)));
    }
    expect(frameLedger(utf8('{"a":1}\n{"b":"é"}\n'))).toEqual([{ start: 0, end: 7, line: 1 }, { start: 8, end: 18, line: 2 }]);
  });
});

describe('splitLedger', () => {
  it('returns no records for an empty ledger', () => {
    expect(splitLedger('')).toEqual([]);
    expect(splitLedger(new Uint8Array(0))).toEqual([]);
  });
  it('splits LF-terminated records with 1-based line numbers, from text or bytes', () => {
    const ledger = '{"a":1}\n{"b":"é"}\n';
    const expected = [{ text: '{"a":1}', line: 1 }, { text: '{"b":"é"}', line: 2 }];
    expect(splitLedger(ledger)).toEqual(expected);
    expect(splitLedger(utf8(ledger))).toEqual(expected);
  });
  it('rejects a truncated final record (no LF)', () => {
    expect(errorOf(() => splitLedger('{"a":1}'))).toEqual({ code: 'truncated_record', line: 1 });
    expect(errorOf(() => splitLedger('{"a":1}\n{"b":'))).toEqual({ code: 'truncated_record', line: 2 });
  });
  it('rejects blank records, including CRLF-only and whitespace-only lines', () => {
    expect(errorOf(() => splitLedger('\n'))).toEqual({ code: 'blank_record', line: 1 });
    expect(errorOf(() => splitLedger('\r\n'))).toEqual({ code: 'blank_record', line: 1 });
    expect(errorOf(() => splitLedger('{}\n\n{}\n'))).toEqual({ code: 'blank_record', line: 2 });
    expect(errorOf(() => splitLedger('{}\n \t\n'))).toEqual({ code: 'blank_record', line: 2 });
    expect(errorOf(() => splitLedger('{}\n{}\n\n'))).toEqual({ code: 'blank_record', line: 3 });
  });
  it('rejects CRLF line endings', () => {
    expect(errorOf(() => splitLedger('{}\n{"a":1}\r\n'))).toEqual({ code: 'crlf_record', line: 2 });
  });
  it('enforces the ledger byte limit in UTF-8 bytes (text and bytes input)', () => {
    expect(splitLedger('{}\n{}\n', { ledgerBytes: 6 })).toHaveLength(2);
    expect(errorOf(() => splitLedger('{}\n{}\n', { ledgerBytes: 5 }))?.code).toBe('resource_limit:ledger_bytes');
    expect(errorOf(() => splitLedger(utf8('{}\n{}\n'), { ledgerBytes: 5 }))?.code).toBe('resource_limit:ledger_bytes');
    // 7 UTF-16 units but 9 UTF-8 bytes.
    expect(errorOf(() => splitLedger('"éé"\n', { ledgerBytes: 6 }))?.code).toBe('resource_limit:ledger_bytes');
    expect(splitLedger('"éé"\n', { ledgerBytes: 7 })).toHaveLength(1);
  });
  it(`rejects a ledger above the default ${PARSER_BYTES} bytes before decoding it`, () => {
    const bytes = new Uint8Array(PARSER_BYTES + 1).fill(0xff); // invalid UTF-8: size must win
    expect(errorOf(() => splitLedger(bytes))?.code).toBe('resource_limit:ledger_bytes');
    expect(errorOf(() => splitLedger('x'.repeat(PARSER_BYTES + 1)))?.code).toBe('resource_limit:ledger_bytes');
  });
  it('enforces the line byte limit in UTF-8 bytes, LF excluded', () => {
    expect(splitLedger('[1]\n[12]\n', { lineBytes: 4 })).toHaveLength(2);
    expect(errorOf(() => splitLedger('[1]\n[123]\n', { lineBytes: 4 }))).toEqual({ code: 'resource_limit:line_bytes', line: 2 });
    // 2 units, 6 bytes: only the byte count catches it.
    expect(errorOf(() => splitLedger('[1]\n"😀"\n', { lineBytes: 5 }))).toEqual({ code: 'resource_limit:line_bytes', line: 2 });
    expect(errorOf(() => splitLedger(utf8('[1]\n"😀"\n'), { lineBytes: 5 }))).toEqual({ code: 'resource_limit:line_bytes', line: 2 });
    expect(splitLedger('"😀"\n', { lineBytes: 6 })).toHaveLength(1);
  });
  it(`rejects a record above the default ${LINE_BYTES} bytes`, () => {
    const ok = '"' + 'a'.repeat(LINE_BYTES - 2) + '"';
    expect(splitLedger(ok + '\n')).toHaveLength(1);
    const big = '"' + 'é'.repeat(LINE_BYTES / 2) + '"'; // fewer units than the limit, more bytes
    expect(errorOf(() => splitLedger('{}\n' + big + '\n'))).toEqual({ code: 'resource_limit:line_bytes', line: 2 });
  });
});

describe('parseLedgerLine', () => {
  it('returns the value of a canonical line', () => {
    expect(parseLedgerLine('{"a":[1,"x",null,true],"b":{"c":-2}}')).toEqual({ a: [1, 'x', null, true], b: { c: -2 } });
  });
  it('accepts a valid non-canonical line (whitespace, key order, escapes) via the strict parser', () => {
    expect(parseLedgerLine('{ "b":1, "a":"\\u0041" }')).toEqual({ a: 'A', b: 1 });
    expect(parseLedgerLine('{"2":1,"10":2}')).toEqual({ 10: 2, 2: 1 });
  });
  const rejected: Array<[string, string, string]> = [
    ['duplicate key', '{"a":1,"a":1}', 'duplicate_key'],
    ['escaped duplicate key', '{"a":1,"\\u0061":1}', 'duplicate_key'],
    ['lone surrogate escape that JSON.parse accepts', '{"a":"\\ud800"}', 'invalid_unicode'],
    ['lone surrogate key', '{"\\udc00":1}', 'invalid_unicode'],
    ['fraction', '{"a":1.0}', 'noncanonical_number'],
    ['exponent', '{"a":1e2}', 'noncanonical_number'],
    ['negative zero', '{"a":-0}', 'noncanonical_number'],
    ['unsafe integer', '{"a":9007199254740993}', 'noncanonical_number'],
    ['syntax error', '{"a":1', 'invalid_json'],
    ['trailing data', '{"a":1} {}', 'invalid_json'],
    ['too deep', '{"a":' + '['.repeat(64) + '1' + ']'.repeat(64) + '}', 'resource_limit:nesting'],
    ['too deep for JSON.parse itself', '['.repeat(200000) + ']'.repeat(200000), 'resource_limit:nesting'],
    ['too many members', '[' + Array(16385).fill('0').join(',') + ']', 'resource_limit:array_members'],
    ['too long', '"' + 'x'.repeat(LINE_BYTES) + '"', 'resource_limit:line_bytes'],
  ];
  for (const [name, text, code] of rejected) {
    it(`rejects: ${name}`, () => expect(errorOf(() => parseLedgerLine(text))?.code).toBe(code));
  }
});

// Loose values: doubles (fractions, -0, unsafe and huge numbers) and lone surrogates too.
const loose = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5, 1e21, 2 ** 53, -(2 ** 53) - 2),
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.string({ unit: fc.integer({ min: 0xd7fe, max: 0xe001 }).map((c) => String.fromCharCode(c)), maxLength: 3 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 3 }), tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

/** A value or the ProtocolError code, so outcomes of two parsers compare with toEqual. */
function outcome(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (e) {
    if (e instanceof ProtocolError) return { code: e.code };
    throw e;
  }
}

describe('parseLedgerLine fast path agrees with parseStrict (property)', () => {
  it('same value or same error code, for canonical, reordered, pretty and corrupted texts', () => {
    fc.assert(
      fc.property(loose, fc.constantFrom('stringify', 'pretty', 'canonical'), fc.nat(), fc.string({ maxLength: 2 }), (v, form, at, junk) => {
        let text = form === 'pretty' ? JSON.stringify(v, null, 1) : JSON.stringify(v);
        if (form === 'canonical') {
          const c = outcome(() => canonicalize(v as JsonValue)) as { value?: string };
          if (c.value !== undefined) text = c.value;
        }
        for (const t of [text, text.slice(0, at % (text.length + 1)) + junk + text.slice(at % (text.length + 1))]) {
          expect(outcome(() => parseLedgerLine(t))).toEqual(outcome(() => parseStrict(t)));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe.skipIf(referenceSkip(existsSync(LEDGER_1M)))(`reference ledger-1m.jsonl (needs ${GENERATED})`, () => {
  it('is already canonical: every record round-trips byte for byte', () => {
    const records = splitLedger(readFileSync(LEDGER_1M));
    expect(records.length).toBe(572);
    for (const { text, line } of records) {
      const value = parseLedgerLine(text);
      expect(canonicalize(value), `line ${line}`).toBe(text);
      expect(value).toEqual(JSON.parse(text) as JsonValue);
    }
  });
});
