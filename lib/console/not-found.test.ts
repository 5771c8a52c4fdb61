import { describe, expect, it } from 'vitest';
import { describeMissing } from './not-found.ts';

describe('the 404 page names what is missing (issue 14 §5)', () => {
  it('an unknown ?at= commit is an unknown commit (not a ledger read failure), whatever the page', () => {
    const m = describeMissing('/work/abc?at=q_nope', false);
    expect(m.code).toBe('unknown_commit');
    expect(m.id).toBe('q_nope');
    expect(m.links[0]).toEqual({ href: '/work/abc', label: 'This page, live' });
  });

  it('unknown Work, graph and receipt ids by path; a known ?at= keeps the kind and offers the live view', () => {
    expect(describeMissing('/work/w_1', null)).toMatchObject({ code: 'unknown_work', id: 'w_1' });
    expect(describeMissing('/graphs/g%20x', null)).toMatchObject({ code: 'unknown_graph', id: 'g x' });
    expect(describeMissing('/receipts/r-1', null)).toMatchObject({ code: 'unknown_request', id: 'r-1' });
    const pinned = describeMissing('/work/w_1?at=q_ok', true);
    expect(pinned.code).toBe('unknown_work');
    expect(pinned.message).toContain('at this commit');
    expect(pinned.links[0]!.href).toBe('/work/w_1');
  });

  it('any other path is an unknown page; a missing header is the root; long ids are bounded', () => {
    expect(describeMissing('/nowhere/at/all', null).code).toBe('unknown_page');
    expect(describeMissing(null, null).code).toBe('unknown_page');
    expect(describeMissing(`/work/${'a'.repeat(500)}`, null).message.length).toBeLessThan(400);
    expect(describeMissing('/work/%E0%A4%A', null).id).toBe('%E0%A4%A');
  });
});
