import { describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, ContentionPacer } from './backoff.ts';

describe('CAS retry pacing (docs/performance.md, Contention)', () => {
  it('a publisher that never loses a race never waits', () => {
    const pacer = new ContentionPacer(() => 1);
    for (let i = 0; i < 10; i++) {
      expect(pacer.wait()).toBe(0);
      pacer.committed(50);
    }
  });

  it('lost races widen the spread in proportion to the attempt duration, commits shrink it to nothing', () => {
    const pacer = new ContentionPacer(() => 0.5);
    pacer.lost(100);
    expect(pacer.spread).toBeCloseTo(10); // a tenth of an attempt
    pacer.lost(100);
    expect(pacer.spread).toBeCloseTo(30);
    expect(pacer.wait()).toBeCloseTo(15); // uniform in [0, spread)
    for (let i = 0; i < 20; i++) pacer.lost(100);
    expect(pacer.spread).toBe(BACKOFF_CAP_MS);
    let commits = 0;
    while (pacer.spread > 0) {
      pacer.committed(100);
      commits++;
    }
    expect(commits).toBe(11); // halved per commit: 2000 ms is gone after 11

  });

  it('the wait does not grow with the losses of the current publication (every contender draws from the same spread)', () => {
    const a = new ContentionPacer(() => 1);
    const b = new ContentionPacer(() => 1);
    for (let i = 0; i < 3; i++) a.lost(100);
    for (let i = 0; i < 3; i++) b.lost(100);
    b.committed(100);
    b.lost(100);
    // a lost three in a row, b committed in between: b's wait is not shorter for it.
    expect(b.wait()).toBeGreaterThanOrEqual(a.wait() * 0.7);
    expect(a.wait()).toBe(a.spread);
  });
});
