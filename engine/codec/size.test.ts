/**
 * `canonicalSize` (size.ts) measures `canonicalize` without writing it: the same byte count for
 * every value, and the same error (code and message) for every value the serializer refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { ARRAY_MEMBER_LIMIT, NESTING_LIMIT, canonicalize, utf8ByteLength } from './json.ts';
import { canonicalSize } from './size.ts';

function answer(run: () => number): unknown {
  try {
    return run();
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

const expectSame = (v: unknown): void => {
  expect(answer(() => canonicalSize(v as JsonValue))).toEqual(answer(() => utf8ByteLength(canonicalize(v as JsonValue))));
};

const leaf = fc.oneof(
  fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\b\f\n\r\t', '\u0000\u001f\u000b', '\u007f\u2028', '😀', 'é', '\ud800', 'a\udc00', '\udbff\udfff'),
  fc.integer(), fc.maxSafeInteger(), fc.constantFrom(-0, 1.5, NaN, Infinity, 2 ** 53, -(2 ** 53)),
  fc.boolean(), fc.constant(null), fc.constantFrom(undefined, () => 1, new Date(0), Symbol('s')),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v')), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a', 'b', '"', '\\', '\ud800', 'é', '😀', '\u0001', '__proto__')), tie('v'))),
})).v;

describe('canonicalSize ≡ UTF-8 bytes of canonicalize', () => {
  it('on arbitrary values, wire and not: the same size or the same error', () => {
    fc.assert(fc.property(value, (v) => {
      expectSame(v);
    }), { numRuns: 5000 });
  });

  it('at the nesting and array limits, and on non-plain objects', () => {
    const nest = (d: number): unknown => (d === 0 ? 'x' : [nest(d - 1)]);
    for (const d of [NESTING_LIMIT - 1, NESTING_LIMIT, NESTING_LIMIT + 1]) expectSame({ a: nest(d) });
    expectSame(new Array(ARRAY_MEMBER_LIMIT).fill(0));
    expectSame(new Array(ARRAY_MEMBER_LIMIT + 1).fill(0));
    expectSame(Object.assign(Object.create(null), { b: 1, a: 'é' }));
    expectSame({ z: 1, '\ud800': 2, a: -0 }); // first error in canonical key order
    expectSame({ b: 1.5, a: '\ud800' });
  });

  it('at every digit count of a safe integer, both signs, and on every ASCII character in strings and keys', () => {
    for (let p = 1; p <= Number.MAX_SAFE_INTEGER; p *= 10) {
      for (const n of [p - 1, p, p + 1]) for (const v of [n, -n]) if (Number.isSafeInteger(v)) expectSame(v);
    }
    for (const v of [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 0, -0, 1e21, 1e-7]) expectSame(v);
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      expectSame(ch);
      expectSame(`a${ch}b`);
      expectSame({ [ch]: 1, [`k${ch}`]: [ch], z: ch });
    }
    expectSame({ b: 1, a: 2, é: 3 }); // a plain but non-ASCII key among ASCII ones
    expectSame({ b: '\ud800', a: 1.5 }); // errors in canonical key order with plain keys
  });
});
