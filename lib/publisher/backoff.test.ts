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
    expect(pacer.spread).toBeCloseTo(50); // half an attempt
    pacer.lost(100);
    expect(pacer.spread).toBeCloseTo(150);
    expect(pacer.wait()).toBeCloseTo(75); // uniform in [0, spread)
    for (let i = 0; i < 20; i++) pacer.lost(100);
    expect(pacer.spread).toBe(800); // at most 8 attempts' worth
    const slow = new ContentionPacer(() => 0.5);
    for (let i = 0; i < 20; i++) slow.lost(1000);
    expect(slow.spread).toBe(BACKOFF_CAP_MS); // and never over the cap
    let commits = 0;
    while (pacer.spread > 0) {
      pacer.committed(100);
      commits++;
    }
    expect(commits).toBe(10); // halved per commit: 800 ms is gone after 10

  });

  it('the winner of a contended race gets no head start: its next wait is drawn as a loser\'s of that race', () => {
    const winner = new ContentionPacer(() => 1);
    const loser = new ContentionPacer(() => 1);
    for (let i = 0; i < 3; i++) {
      winner.lost(100);
      loser.lost(100);
    }
    winner.committed(100);
    loser.lost(100);
    expect(winner.wait()).toBe(loser.wait()); // the next race: same spread for both
    expect(winner.spread).toBeLessThan(loser.spread); // what the winner remembers is halved
    expect(winner.wait()).toBe(winner.spread); // and later waits use it
  });
});
