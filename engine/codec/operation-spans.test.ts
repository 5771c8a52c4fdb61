/**
 * operationSpans (operation-spans.ts) against JSON.parse: every span it finds is the text of the
 * operation at that index, on real ledgers and on any JSON object holding an `operations` array
 * (escapes, non-ASCII, nesting, whitespace, members in any order); where it cannot tell, it says
 * null and never a wrong span.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operationSpans, operationSpansOfText } from './operation-spans.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { REPOSITORY, step, T0 } from '../../tests/support/checkpoint-ledgers.ts';
import { bootstrapRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const LEDGER_1M = fileURLToPath(new URL('../../../shared/reference/gh-aw-generated/ledger-1m.jsonl', import.meta.url));

/** Each span's operation, parsed on its own (null when no spans were found). */
function spannedOperations(text: string): unknown[] | null {
  const bytes = encoder.encode(text);
  const spans = operationSpans(bytes);
  if (spans === null) return null;
  const out: unknown[] = [];
  for (let k = 0; k < spans.length; k += 2) out.push(JSON.parse(decoder.decode(bytes.subarray(spans[k]!, spans[k + 1]!))));
  return out;
}

/** The same, from the record as text (spans in UTF-16 code units). */
function spannedOperationsOfText(text: string): unknown[] | null {
  const spans = operationSpansOfText(text);
  if (spans === null) return null;
  const out: unknown[] = [];
  for (let k = 0; k < spans.length; k += 2) out.push(JSON.parse(text.slice(spans[k]!, spans[k + 1]!)));
  return out;
}

function expectSpansOf(text: string): void {
  const operations = (JSON.parse(text) as { operations: unknown[] }).operations;
  expect(spannedOperations(text)).toEqual(operations);
  expect(spannedOperationsOfText(text)).toEqual(operations);
}

describe('operationSpans', () => {
  it('finds every operation of records with escapes, non-ASCII text, nesting, whitespace and members in any order', () => {
    expectSpansOf('{"actor":{"a":"}]"},"operations":[{"kind":"Work","payload":{"t":"quote \\" backslash \\\\ ] } { [ ,"}},{"kind":"Claim"}],"z":1}');
    expectSpansOf('{"operations":[],"id":"q"}');
    expectSpansOf('{ "id" : "x" , "operations" : [ {"payload":{"ß":"straße ✓ 🚀","n":[1,[2,{"x":[]}]]}} , 5 , "s" , true , null , -1.5e3 ] }');
    expectSpansOf('{"request":{"parameters":{"operations":[{"kind":"Nested"}]}},"operations":[{"kind":"Top"}]}');
    expectSpansOf('{"payload":"\\\\","operations":[{"kind":"Work","payload":"ends in a backslash \\\\"}]}');
  });

  it('answers null where it cannot tell: no operations member, not an array, a name written with an escape', () => {
    expect(spannedOperations('{"id":"q","previous":null}')).toBeNull();
    expect(spannedOperationsOfText('{"ß":"✓","op\\u0065rations":[{"kind":"Work"}]}')).toBeNull();
    expect(spannedOperations('{"operations":{"kind":"Work"}}')).toBeNull();
    expect(spannedOperations('{"op\\u0065rations":[{"kind":"Work"}]}')).toBeNull();
    expect(spannedOperations('["operations",[1]]')).toBeNull();
  });

  it('is JSON.parse on any object with an operations array (property)', () => {
    const value = fc.jsonValue({ maxDepth: 4 });
    fc.assert(fc.property(fc.dictionary(fc.string(), value, { maxKeys: 4 }), fc.array(value, { maxLength: 6 }), fc.nat(4), fc.boolean(), (members, operations, at, spaced) => {
      const entries = Object.entries(members).filter(([k]) => k !== 'operations');
      entries.splice(Math.min(at, entries.length), 0, ['operations', operations]);
      const record = Object.fromEntries(entries);
      const text = spaced ? JSON.stringify(record, null, 2) : JSON.stringify(record);
      expect(spannedOperations(text)).toEqual(JSON.parse(text).operations);
      expect(spannedOperationsOfText(text)).toEqual(JSON.parse(text).operations);
    }), { numRuns: 500 });
  });

  it('counts spans of a text record in UTF-16 code units past 2-, 3- and 4-byte characters (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    fc.assert(fc.property(text, fc.array(fc.dictionary(text, text, { maxKeys: 3 }), { maxLength: 5 }), (head, operations) => {
      const record = JSON.stringify({ actor: head, operations, tail: head });
      expectSpansOf(record);
    }), { numRuns: 500 });
  });

  it('finds every operation of a busy Fairway ledger\'s records (submits, grants, lifecycle, Results)', () => {
    const w = new LedgerWriter();
    const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', weights: { alpha: 1, beta: 2, gamma: 3 }, logicalLimit: 8, nativeLimit: 4, maxClaims: 2 });
    w.publish('bootstrap', { role: 'producer', principal: '1001', repository: REPOSITORY }, T0 - 1000, bootstrapRequest(policy, 'epoch-1', [{ node_key: 'seed', payload: { seed: 'ß ✓ "quoted" \\' } }], { graphId: 'seed', at: T0 - 1000 }));
    for (let i = 0; i < 20; i++) step(w, i);
    expect(w.lines.length).toBeGreaterThan(100);
    for (const line of w.lines) expectSpansOf(line.replace(/\n$/, ''));
  });

  it.skipIf(referenceSkip(existsSync(LEDGER_1M)))('finds every operation of the reference-written ledger-1m\'s records', () => {
    let records = 0;
    for (const line of readFileSync(LEDGER_1M, 'utf8').split('\n')) {
      if (line === '') continue;
      expectSpansOf(line);
      records++;
    }
    expect(records).toBeGreaterThan(400);
  });
});
