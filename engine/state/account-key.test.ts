/**
 * `accountKey` (mutate.ts) is built once per pool and fairness key and reused: the same string
 * as building it, for any pool and key, and every call after the first answers that string.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountKey } from './mutate.ts';

describe('accountKey', () => {
  it('is `${pool}\\u0000${fairnessKey}` for any pool and key, on every call', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (pool, key) => {
      expect(accountKey(pool, key)).toBe(`${pool}\u0000${key}`);
      expect(accountKey(pool, key)).toBe(`${pool}\u0000${key}`);
    }), { numRuns: 3000 });
  });

  it('tells accounts apart across pools and keys', () => {
    const keys = new Set<string>();
    for (const pool of ['default', 'gpu', 'd']) for (const key of ['tenant-01', 'tenant-02', 'efault\u0000tenant-01']) keys.add(accountKey(pool, key));
    expect(keys.size).toBe(9);
  });
});
