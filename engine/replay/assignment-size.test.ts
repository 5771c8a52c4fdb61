/**
 * Replay measures each admitted Work's worst-case assignment by arithmetic on canonical sizes
 * (`worstAssignmentSize`); it must equal the definition (`worstAssignmentBytes`, which writes
 * the whole envelope) for every Work: any ids and strings (escapes, non-ASCII, astral), any
 * payload, any number of Work and gate edges, any epoch, pool, profile and result bound.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalSize } from '../codec/index.ts';
import type { JsonValue } from '../json.ts';
import { worstAssignmentBytes, worstAssignmentSize } from './assignment-fit.ts';

const text = fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme', minLength: 1 }), fc.constantFrom('w', '"q"', 'back\\slash', 'tab\t', 'é', '😀', 'x'.repeat(256)));
const json: fc.Arbitrary<JsonValue> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), text, fc.array(tie('v')), fc.dictionary(text, tie('v'))),
})).v as fc.Arbitrary<JsonValue>;
const edge = fc.oneof(
  text.map((id) => ({ kind: 'work' as const, work_id: id })),
  fc.constant({ kind: 'issue' as const, condition: 'completed' as const, resource: { kind: 'issue' as const, host: 'github.com', repository: 'o/r', repository_id: '1', resource_id: '2', number: '3' } }),
);
const work = fc.record({
  work_id: text,
  pool: text,
  worker_profile: text,
  payload: fc.dictionary(text, json),
  depends_on: fc.array(edge, { maxLength: 12 }),
});

describe('worstAssignmentSize ≡ worstAssignmentBytes', () => {
  it('for any Work, epoch and result bound', () => {
    fc.assert(fc.property(work, text, fc.integer({ min: 2, max: 8192 }), (w, epoch, resultBytes) => {
      const op = { kind: 'Work', ...w } as never;
      expect(worstAssignmentSize(op, epoch, resultBytes, canonicalSize(w.payload))).toBe(worstAssignmentBytes(op, epoch, resultBytes));
    }), { numRuns: 3000 });
  });
});
