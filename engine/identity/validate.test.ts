import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { identitySlow, isDecimalId, isIdentity, isReasonCode, isRevision } from './validate.ts';
import { RevisionSchema } from '../schema/common.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const FIXTURES = fileURLToPath(new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url));
const haveFixtures = existsSync(FIXTURES);
const fixture = (name: string): unknown => JSON.parse(readFileSync(FIXTURES + name, 'utf8'));

interface IdentityFixture {
  identity_max_utf8_bytes: number;
  decimal_max_digits: number;
  identity: Array<{ name: string; text: string; repeat: number; expected_utf8_bytes: number; valid: boolean }>;
  decimal: Array<{ name: string; digits: number; valid: boolean }>;
}
interface ReasonFixture {
  pattern: string;
  cases: Array<{ name: string; reason: string; valid: boolean }>;
}

describe.skipIf(referenceSkip(haveFixtures))(`identity-validation.json (needs ${FIXTURES})`, () => {
  const fx = (haveFixtures ? fixture('identity-validation.json') : { identity: [], decimal: [] }) as IdentityFixture;
  it('states the ceilings the helpers implement', () => {
    expect(fx.identity_max_utf8_bytes).toBe(256);
    expect(fx.decimal_max_digits).toBe(256);
    expect(fx.identity.length).toBeGreaterThan(5);
  });
  for (const c of fx.identity) {
    it(`identity: ${c.name}`, () => {
      const s = c.text.repeat(c.repeat);
      expect(Buffer.byteLength(s, 'utf8')).toBe(c.expected_utf8_bytes);
      expect(isIdentity(s)).toBe(c.valid);
    });
  }
  for (const c of fx.decimal) {
    it(`decimal: ${c.name}`, () => {
      const s = '1234567890'.repeat(26).slice(0, c.digits); // canonical: nonzero lead
      expect(s).toHaveLength(c.digits);
      expect(isDecimalId(s)).toBe(c.valid);
    });
  }
});

describe.skipIf(referenceSkip(haveFixtures))(`reason-validation.json (needs ${FIXTURES})`, () => {
  const fx = (haveFixtures ? fixture('reason-validation.json') : { pattern: '', cases: [] }) as ReasonFixture;
  it('uses the pattern of the contract', () => expect(fx.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$'));
  for (const c of fx.cases) {
    it(`reason: ${c.name}`, () => expect(isReasonCode(c.reason)).toBe(c.valid));
  }
});

describe('identity helpers beyond the fixtures', () => {
  it('isIdentity rejects every C0 control and DEL, unpaired surrogates, and accepts other text', () => {
    for (let c = 0; c < 0x20; c++) expect(isIdentity(`a${String.fromCharCode(c)}b`)).toBe(false);
    expect(isIdentity('a\u007f')).toBe(false);
    expect(isIdentity('a\ud800')).toBe(false);
    expect(isIdentity('\udc00')).toBe(false);
    for (const ok of [' ', 'owner/repo', 'q_0', 'é', '😀', '\u0080', '\u2028', 'a b']) expect(isIdentity(ok)).toBe(true);
    expect(isIdentity('é'.repeat(128) + 'a')).toBe(false); // 257 bytes, 129 units
  });
  it('isIdentity (one pass) answers exactly what the check-by-check definition answers', () => {
    const unit = fc.constantFrom('a', ' ', '\u001f', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '€', '\ud800', '\udbff', '\udc00', '\udfff', '😀', '\uffff');
    const s = fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.array(unit, { maxLength: 300 }).map((u) => u.join('')), fc.nat(300).map((n) => 'é'.repeat(n)), fc.nat(300).map((n) => '😀'.repeat(n >> 1) + 'a'.repeat(n & 1)));
    fc.assert(fc.property(s, (x) => {
      expect(isIdentity(x), JSON.stringify(x)).toBe(identitySlow(x));
    }), { numRuns: 5000 });
    for (const n of [85, 86, 127, 128, 129, 255, 256, 257]) {
      for (const x of ['a'.repeat(n), 'é'.repeat(n), '€'.repeat(n), 'é'.repeat(n) + 'a']) expect(isIdentity(x), `${n}`).toBe(identitySlow(x));
    }
  });
  it('isDecimalId', () => {
    for (const ok of ['1', '10', '9007199254740993', '1'.repeat(256)]) expect(isDecimalId(ok)).toBe(true);
    for (const bad of ['', '0', '01', '-1', '+1', '1.0', '1e3', ' 1', '1 ', '١', '1'.repeat(257)]) expect(isDecimalId(bad)).toBe(false);
  });
  it('isReasonCode', () => {
    for (const ok of ['a', 'Z9', 'x.y:z-w_v', 'a'.repeat(128)]) expect(isReasonCode(ok)).toBe(true);
    for (const bad of ['', '-a', '.a', 'a'.repeat(129), 'a/b', 'a b', 'a\n', 'ä']) expect(isReasonCode(bad)).toBe(false);
  });
  it('isRevision: what RevisionSchema accepts (40 or 64 lowercase hex digits)', () => {
    for (const ok of ['a1'.repeat(20), '0'.repeat(64), 'f'.repeat(40)]) {
      expect(isRevision(ok)).toBe(true);
      expect(RevisionSchema.safeParse(ok).success).toBe(true);
    }
    for (const bad of ['', 'abc', 'a1'.repeat(21), 'A1'.repeat(20), 'g'.repeat(40), `${'a'.repeat(40)}\n`, 'a'.repeat(63)]) {
      expect(isRevision(bad)).toBe(false);
      expect(RevisionSchema.safeParse(bad).success).toBe(false);
    }
  });
});
