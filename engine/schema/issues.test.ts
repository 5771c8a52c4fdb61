/**
 * The one problem a closed-schema validation reports (aw.json settings, the simulate workload):
 * first in document order, as the hand-written validators it replaced answered.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { firstIssue } from './issues.ts';

const Inner = z.strictObject({ a: z.number({ error: 'a' }), b: z.number({ error: 'b' }) });
const Outer = z.strictObject({ x: z.number({ error: 'x' }).optional(), inner: Inner.optional(), choice: z.union([z.boolean(), Inner]).optional() });

function first(value: unknown, reportInput = false): { path: PropertyKey[]; code: string; message: string } {
  const parsed = Outer.safeParse(value, { reportInput });
  if (parsed.success) throw new Error('accepted');
  const { path, code, message } = firstIssue(parsed.error.issues);
  return { path, code, message };
}

describe('firstIssue', () => {
  it('reports an unknown key of an enclosing object before the problems of its fields, outermost first', () => {
    expect(first({ x: 'no', extra: 1 })).toMatchObject({ path: [], code: 'unrecognized_keys' });
    expect(first({ inner: { a: 'no', b: 1, extra: 1 } })).toMatchObject({ path: ['inner'], code: 'unrecognized_keys' });
    expect(first({ inner: { a: 'no', b: 1, extra: 1 }, outer: 1 })).toMatchObject({ path: [], code: 'unrecognized_keys' });
    // An unknown key of an object that does not enclose the first problem waits its turn.
    expect(first({ x: 'no', inner: { a: 1, b: 1, extra: 1 } })).toMatchObject({ path: ['x'], message: 'x' });
  });

  it('with the inputs reported, a missing property of an enclosing object comes before its other problems', () => {
    expect(first({ inner: { b: 'no' } }, true)).toMatchObject({ path: ['inner', 'a'], message: 'a' });
    expect(first({ inner: { b: 'no' } }, false)).toMatchObject({ path: ['inner', 'a'] }); // zod's own order agrees here
    expect(first({ inner: { a: 'no' } }, true)).toMatchObject({ path: ['inner', 'b'] });
  });

  it('answers a union with the branch the value\'s type selected', () => {
    expect(first({ choice: { a: 1, b: 'no' } })).toMatchObject({ path: ['choice', 'b'], message: 'b' });
    expect(first({ choice: { a: 1, b: 1, extra: 1 } })).toMatchObject({ path: ['choice'], code: 'unrecognized_keys' });
    expect(first({ choice: 'text' })).toMatchObject({ path: ['choice'], code: 'invalid_union' });
  });
});
