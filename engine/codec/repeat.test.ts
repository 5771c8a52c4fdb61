/**
 * A record's repeated parameters parsed once (repeat.ts), and the ASCII order of
 * `parseLedgerRecord` (proven canonical first, then parsed without the copy). The oracle is the
 * parse-first order the same function takes for a text of unknown byte length: on every record
 * of generated and reference-written ledgers and on mutated record texts, both give the same
 * value, spans and repeat, or the same error code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { edit, MUTATIONS, mutateRecord } from '../../tests/support/record-mutation.ts';
import { REFERENCE_ROOT, referenceSkip } from '../../tests/support/reference.ts';
import { isProtocolError } from '../errors.ts';
import { canonicalRecordSpans } from './canonical.ts';
import { utf8ByteLength } from './json.ts';
import { parseLedgerRecord } from './lines.ts';
import { parseRepeated, repeatedParameters } from './repeat.ts';

type Json = any;
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

/** What `parseLedgerRecord` answers, as data: its value and spans, or its error code. */
function outcome(text: string, bytes: number | undefined): unknown {
  try {
    const { value, spans, record } = parseLedgerRecord(text, bytes);
    return { value, spans: spans === null ? null : [...spans], repeats: record?.repeats ?? null };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code };
  }
}

/** The byte path (its UTF-8 length known: the ASCII order for an ASCII text) agrees with the parse-first order. */
function expectSameOutcome(text: string): void {
  expect(outcome(text, utf8ByteLength(text)), text.slice(0, 200)).toEqual(outcome(text, undefined));
}

describe('repeated parameters are parsed once', () => {
  const records = lines(generateLedger(200 * 1024, 4).text);

  it('every record of a generated ledger: the value JSON.parse gives, the repeated copy being the operations array itself', () => {
    let repeated = 0;
    for (const text of records) {
      const { value } = parseLedgerRecord(text, utf8ByteLength(text)) as { value: Json };
      expect(value).toEqual(JSON.parse(text));
      const repeat = repeatedParameters(canonicalRecordSpans(text, true)!);
      if (repeat === null) continue;
      repeated += 1;
      expect(value.request.parameters[repeat.name]).toBe(value.operations);
      expect(Object.keys(value.request.parameters)).toEqual([repeat.name]);
      expect(parseRepeated(text, repeat)).toEqual(JSON.parse(text));
    }
    expect(repeated).toBeGreaterThan(records.length / 3);
  });

  it('parameters with a member beside the repeat are not elided (the copy is not the whole parameters object)', () => {
    const text = records.find((t) => repeatedParameters(canonicalRecordSpans(t, true)!)?.name === 'operations')!;
    const widened = text.replace(/"parameters":\{"operations":/, '"parameters":{"extra":1,"operations":');
    const spans = canonicalRecordSpans(widened, true)!;
    expect(spans.repeats).toBe('operations');
    expect(repeatedParameters(spans)).toBeNull();
    expect(parseLedgerRecord(widened, widened.length).value).toEqual(JSON.parse(widened));
  });

  it('a raw control character in a string of the operations (so in both copies) is refused as the parse-first order refuses it', () => {
    const text = records.find((t) => repeatedParameters(canonicalRecordSpans(t, true)!)?.name === 'nodes')!;
    const at = text.indexOf('"instructions":"') + '"instructions":"'.length;
    expect(at).toBeGreaterThan(20);
    // Insert the same raw character into the operations and into their copy: the repeat still holds.
    const inOps = text.slice(0, at) + '\u0001' + text.slice(at);
    const copyAt = inOps.indexOf('"instructions":"', inOps.indexOf('"parameters":')) + '"instructions":"'.length;
    const both = inOps.slice(0, copyAt) + '\u0001' + inOps.slice(copyAt);
    expect(canonicalRecordSpans(both, true)?.repeats).toBe('nodes');
    expect(() => JSON.parse(both)).toThrow();
    expectSameOutcome(both);
    expect(outcome(both, both.length)).toMatchObject({ code: expect.any(String) });
    // Only in the copy: no repeat, and the whole text is parsed (and refused).
    const copyOnly = text.slice(0, text.indexOf('"instructions":"', text.indexOf('"parameters":')) + 16) + '\u0001' + text.slice(text.indexOf('"instructions":"', text.indexOf('"parameters":')) + 16);
    expectSameOutcome(copyOnly);
    expect(outcome(copyOnly, copyOnly.length)).toMatchObject({ code: expect.any(String) });
  });

  it('mutated records: the byte path gives the parse-first order\'s value, spans and repeat, or its error code', () => {
    fc.assert(fc.property(fc.nat(), fc.nat(), fc.nat(), fc.constantFrom(...MUTATIONS), (r, at, how, unit) => {
      expectSameOutcome(mutateRecord(records[r % records.length]!, at, how, unit));
    }), { numRuns: 4000, seed: 11 });
  });

  it('the same mutation in both copies keeps the repeat: still the parse-first order\'s outcome', () => {
    const repeating = records.filter((t) => repeatedParameters(canonicalRecordSpans(t, true)!) !== null);
    fc.assert(fc.property(fc.nat(), fc.nat(), fc.nat(), fc.constantFrom(...MUTATIONS), (r, at, how, unit) => {
      const t = repeating[r % repeating.length]!;
      const repeat = repeatedParameters(canonicalRecordSpans(t, true)!)!;
      const opsStart = t.indexOf('"operations":') + '"operations":'.length;
      const copyStart = repeat.start + repeat.name.length + 4;
      const length = repeat.end - 1 - copyStart;
      const i = at % length;
      // The copy comes after the operations: edit it first so the operations' offsets still hold.
      const mutated = edit(edit(t, copyStart + i, unit, how), opsStart + i, unit, how);
      expectSameOutcome(mutated);
    }), { numRuns: 2000, seed: 5 });
  });
});

const REFERENCE = ['gh-aw-generated/ledger-1m.jsonl', 'gh-aw-generated/ledger-16m.jsonl'].map((p) => new URL(p, REFERENCE_ROOT));
describe.skipIf(referenceSkip(REFERENCE.every((u) => existsSync(fileURLToPath(u)))))('repeated parameters on the reference-written ledgers', () => {
  it('every record: the value JSON.parse gives', () => {
    let n = 0;
    for (const url of REFERENCE) {
      for (const text of lines(readFileSync(url, 'utf8'))) {
        expect(parseLedgerRecord(text, utf8ByteLength(text)).value).toEqual(JSON.parse(text));
        n += 1;
      }
    }
    expect(n).toBeGreaterThan(8000);
  });
});
