/**
 * `sameJson` ≡ equality of canonical texts, for any two JSON values canonicalize accepts: pairs
 * drawn independently, a value and a copy with its objects' keys in another order, and a value
 * and a copy with one leaf changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../json.ts';
import { canonicalize } from './index.ts';
import { sameJson } from './same.ts';

const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.constantFrom(0, 2 ** 53 - 1, -(2 ** 53 - 1)), fc.constantFrom('', 'a', 'b', 'é', '😀', '"', 'a\nb'));
const json: fc.Arbitrary<JsonValue> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c', 'é'), tie('v'), { maxKeys: 3 })),
})).v as fc.Arbitrary<JsonValue>;

const canonicalEqual = (a: JsonValue, b: JsonValue): boolean => canonicalize(a) === canonicalize(b);

/** `v` with every object's keys inserted in reverse order. */
function reordered(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(reordered);
  if (typeof v !== 'object' || v === null) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).reverse()) out[k] = reordered(v[k]!);
  return out;
}

/** `v` with its first leaf (depth first) replaced by `by`. */
function changed(v: JsonValue, by: JsonValue): [JsonValue, boolean] {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const [c, done] = changed(v[i]!, by);
      if (done) return [[...v.slice(0, i), c, ...v.slice(i + 1)], true];
    }
    return [v, false];
  }
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) {
      const [c, done] = changed(v[k]!, by);
      if (done) return [{ ...v, [k]: c }, true];
    }
    return [v, false];
  }
  return [by, true];
}

describe('sameJson ≡ equal canonical texts', () => {
  it('for independent pairs', () => {
    fc.assert(fc.property(json, json, (a, b) => {
      expect(sameJson(a, b)).toBe(canonicalEqual(a, b));
    }), { numRuns: 5000 });
  });

  it('for a value and a copy with its keys in another order (equal)', () => {
    fc.assert(fc.property(json, (a) => {
      const b = reordered(a);
      expect(sameJson(a, b)).toBe(true);
      expect(canonicalEqual(a, b)).toBe(true);
    }), { numRuns: 2000 });
  });

  it('for a value and a copy with one leaf changed', () => {
    fc.assert(fc.property(json, leaf, (a, by) => {
      const [b] = changed(a, by);
      expect(sameJson(a, b)).toBe(canonicalEqual(a, b));
    }), { numRuns: 5000 });
  });

  it('names the cases: member order, arrays against objects, a missing against a null member', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({ a: null }, { b: null })).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });
});
