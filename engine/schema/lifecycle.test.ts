/**
 * A Claim's observations are unique (JSON Schema `uniqueItems`): the pairwise comparison of short
 * arrays in lifecycle.ts must answer what the `Set` definition answers, issue for issue, on
 * arrays of every length around the cut-over, with duplicates, NaN and non-strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IdentitySchema } from './common.ts';
import { ClaimOperationSchema } from './lifecycle.ts';

const definition = z
  .array(IdentitySchema)
  .max(64)
  .refine((items) => new Set(items).size === items.length, { message: 'observations must be unique' });

const answer = (r: { success: boolean; data?: unknown; error?: { issues: unknown } }): unknown => (r.success ? { data: r.data } : { issues: r.error!.issues });

describe('Claim observations uniqueness (lifecycle.ts)', () => {
  it('answers what a Set answers', () => {
    const observations = ClaimOperationSchema.shape.observations;
    const item = fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', '', 'a\u0000'), fc.string({ maxLength: 3 }), fc.constantFrom(NaN, 0, -0, 1, null));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 70 }), (items) => {
        expect(answer(observations.safeParse(items))).toEqual(answer(definition.safeParse(items)));
      }),
      { numRuns: 4000, seed: 11 },
    );
    for (const items of [[], ['a'], ['a', 'a'], ['a', 'b', 'a'], [NaN, NaN], Array.from({ length: 9 }, (_, i) => String(i % 8)), Array.from({ length: 8 }, (_, i) => String(i))]) {
      expect(answer(observations.safeParse(items)), JSON.stringify(items)).toEqual(answer(definition.safeParse(items)));
    }
  });
});
