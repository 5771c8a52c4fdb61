import { describe, expect, it } from 'vitest';
import { commitsAgo, safeCallback, withAt } from './links.ts';

describe('links keep time travel (issue 14 §5)', () => {
  it('appends ?at= after the page parameters, and nothing when live', () => {
    expect(withAt('/work', 'q_abc')).toBe('/work?at=q_abc');
    expect(withAt('/work', null)).toBe('/work');
    expect(withAt('/work', '', { state: 'available' })).toBe('/work?state=available');
    expect(withAt('/next', 'q_1', { pool: 'default', empty: '', none: null })).toBe('/next?pool=default&at=q_1');
    expect(withAt('/work', 'q_a&b=c')).toBe('/work?at=q_a%26b%3Dc');
  });

  it('says how far behind the tip a pinned commit is', () => {
    expect(commitsAgo(9, 10)).toBe('the tip');
    expect(commitsAgo(8, 10)).toBe('1 commit ago');
    expect(commitsAgo(0, 10)).toBe('9 commits ago');
  });
});

describe('the sign-in callback stays on the console', () => {
  it('keeps a console path and turns anything a browser would resolve to another site into /admin', () => {
    expect(safeCallback('/work?state=available#x')).toBe('/work?state=available#x');
    expect(safeCallback(null)).toBe('/admin');
    for (const raw of ['//evil.example', '/\\evil.example', '/\\/evil.example', '/\t/evil.example', '/\n/evil.example', 'https://evil.example', 'javascript:alert(1)']) {
      expect(safeCallback(raw), JSON.stringify(raw)).toBe('/admin');
    }
  });
});
