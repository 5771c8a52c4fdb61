/**
 * Work admission's payload measure (ops/payload-size.ts): `canonicalSize`, with the
 * `JSON.stringify` measure where `canonicalize` refuses the payload. Checked against the measure
 * admission used before (`stringifiedSize`): the same bytes for every payload, kept for the
 * scheduler as before or (where canonicalize accepts it) as its canonical size; on every Work
 * payload of generated and reference-written ledgers and on arbitrary values, wire and not.
 */
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { REFERENCE_ROOT, referenceSkip } from '../../tests/support/reference.ts';
import { canonicalize, utf8ByteLength } from '../codec/json.ts';
import type { JsonValue } from '../json.ts';
import { payloadSize, stringifiedSize } from './ops/payload-size.ts';

/** The canonical size, or null where `canonicalize` refuses the value. */
function canonicalBytes(v: unknown): number | null {
  try {
    return utf8ByteLength(canonicalize(v as JsonValue));
  } catch {
    return null;
  }
}

function expectSame(payload: unknown): void {
  const fast = payloadSize(payload);
  const exact = stringifiedSize(payload);
  expect(fast.bytes).toBe(exact.bytes);
  const canonical = canonicalBytes(payload);
  // Measured canonically: its canonical size, kept; refused by canonicalize: the old measure as it was.
  expect(fast).toEqual(canonical === null ? exact : { bytes: canonical, canonical: true });
}

function payloadsOf(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    for (const op of (JSON.parse(line) as { operations: { kind: string; payload?: unknown }[] }).operations) {
      if (op.kind === 'Work') out.push(op.payload);
    }
  }
  return out;
}

describe('Work payload size ≡ the JSON.stringify measure', () => {
  it('every Work payload of a generated ledger', () => {
    const payloads = payloadsOf(generateLedger(1024 * 1024, 1).text);
    expect(payloads.length).toBeGreaterThan(100);
    for (const p of payloads) expectSame(p);
  });

  const reference = ['gh-aw-generated/ledger-1m.jsonl', 'gh-aw-generated/ledger-16m.jsonl'].map((p) => new URL(p, REFERENCE_ROOT));
  it.skipIf(referenceSkip(reference.every((u) => existsSync(u))))('every Work payload of the reference-written ledgers', () => {
    for (const url of reference) {
      const payloads = payloadsOf(readFileSync(url, 'utf8'));
      expect(payloads.length).toBeGreaterThan(10);
      for (const p of payloads) expectSame(p);
    }
  });

  it('payloads canonicalize refuses or that spell a surrogate escape: the old measure, kept only when it was', () => {
    const deep = (d: number): unknown => (d === 0 ? 1 : { a: deep(d - 1) });
    for (const p of [
      { n: -0 }, { n: 1.5 }, { n: 2 ** 53 }, { s: '\ud800' }, { s: 'a\udc00b' }, { s: '\\ud800' }, { s: '\udbff\udfff' },
      { s: 'é😀"\\\n' }, { a: [1, -0] }, deep(70), deep(63), { a: new Array(16385).fill(0) }, { u: undefined }, { d: new Date(0) },
      Object.assign(Object.create(null), { b: 1, a: 2 }), { ['\ud800']: 1 }, { __proto__: null, x: [] }, 'text', 7, null, [],
    ]) expectSame(p);
  });

  it('on arbitrary values', () => {
    const leaf = fc.oneof(
      fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\ud800', '\\ud800', 'a\udc00', '"', '\\', '\u0000'),
      fc.integer(), fc.maxSafeInteger(), fc.double(), fc.constantFrom(-0, 2 ** 53), fc.boolean(), fc.constant(null),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v')), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('\ud800', 'é', '__proto__')), tie('v'))),
    })).v;
    fc.assert(fc.property(value, (v) => expectSame(v)), { numRuns: 5000 });
  });
});
