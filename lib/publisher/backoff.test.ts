import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, nextBackoffMs } from './publisher.ts';

describe('CAS retry backoff: decorrelated jitter (issue 18 §5)', () => {
  it('stays in [base, min(cap, 3 × previous)] and spans that range', () => {
    let prev = BACKOFF_BASE_MS;
    for (let i = 0; i < 200; i++) {
      const ms = nextBackoffMs(prev);
      expect(ms).toBeGreaterThanOrEqual(BACKOFF_BASE_MS);
      expect(ms).toBeLessThanOrEqual(Math.min(BACKOFF_CAP_MS, Math.max(BACKOFF_BASE_MS, 3 * prev)));
      prev = ms;
    }
    expect(nextBackoffMs(100, () => 0)).toBe(BACKOFF_BASE_MS);
    expect(nextBackoffMs(100, () => 1)).toBe(300);
    expect(nextBackoffMs(BACKOFF_CAP_MS, () => 1)).toBe(BACKOFF_CAP_MS);
  });

  it('two racers that collided draw different sleeps (not one shared schedule)', () => {
    const a = Array.from({ length: 50 }, () => nextBackoffMs(200));
    expect(new Set(a.map((x) => Math.round(x))).size).toBeGreaterThan(10);
  });
});
