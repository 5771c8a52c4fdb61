/**
 * The keyboard browser's reducer without a terminal: loading, navigation and
 * pagination, Claim history, pane focus and details scrolling, search and
 * multi-selection, help, quit and terminal size.
 */
import { describe, expect, it } from 'vitest';
import { layout } from '../../cli/tui/layout.ts';
import { reduce } from '../../cli/tui/reducer.ts';
import { hiddenSelected, initialState, rowsOf } from '../../cli/tui/state.ts';
import { AUTHORITY, T0, fresh, goTo, press, queueOf, snapshot, workByKey } from './fixtures.ts';

describe('loading', () => {
  it('the first tick reads; the read anchors the cursor on the first row', () => {
    const s0 = initialState({ session: 's', now: T0, viewport: { columns: 120, rows: 30 }, authority: AUTHORITY });
    const t = reduce(s0, { type: 'tick', now: T0 });
    expect(t.effects).toEqual([{ type: 'load', watch: [] }]);
    expect(t.state.read.loading).toBe(true);
    const l = reduce(t.state, { type: 'loaded', snapshot: snapshot() }).state;
    expect(l.read).toEqual({ loading: false, lastAttemptAt: snapshot().readAt, error: null });
    expect(l.cursor).toBe(0);
    expect(l.cursorKey).toBe('g:backlog');
  });

  it('the tree groups graphs, Work in admission order, and no Claims until expanded', () => {
    const rows = rowsOf(fresh());
    expect(rows.filter((r) => r.kind === 'graph').map((r) => r.id)).toEqual(['backlog', 'sdk']);
    expect(rows).toHaveLength(1 + 30 + 1 + 5);
    expect(rows.some((r) => r.kind === 'claim')).toBe(false);
    const snap = snapshot();
    expect(rows.slice(32).map((r) => snap.works.get(r.id)!.nodeKey)).toEqual(['inspect', 'code', 'docs', 'lint', 'w\u00e9ird\u009b[31m']);
  });
});

describe('navigation and pagination', () => {
  const page = layout({ columns: 120, rows: 30 }).paneLines;

  it('j/k and arrows move one row and stop at the ends', () => {
    let s = fresh();
    s = press(s, 'j', 'down', 'j').state;
    expect(s.cursor).toBe(3);
    s = press(s, 'k', 'up').state;
    expect(s.cursor).toBe(1);
    s = press(s, 'k', 'k', 'up').state;
    expect(s.cursor).toBe(0);
    s = press(s, 'G', 'j', 'down').state;
    expect(s.cursor).toBe(36);
  });

  it('PgDn/PgUp move a page, g/G (and Home/End) jump, and the window follows the cursor', () => {
    let s = fresh();
    expect(page).toBe(21);
    s = press(s, 'pagedown').state;
    expect(s.cursor).toBe(page);
    expect(s.top).toBe(1);
    s = press(s, 'pagedown').state;
    expect([s.cursor, s.top]).toEqual([36, 36 - page + 1]);
    s = press(s, 'pageup').state;
    expect([s.cursor, s.top]).toEqual([36 - page, 36 - page]);
    s = press(s, 'G').state;
    expect([s.cursor, s.top]).toEqual([36, 36 - page + 1]);
    s = press(s, 'g').state;
    expect([s.cursor, s.top]).toEqual([0, 0]);
    s = press(s, 'end').state;
    expect(s.cursor).toBe(36);
    s = press(s, 'home').state;
    expect(s.cursor).toBe(0);
  });

  it('a read keeps the cursor on the same row key and prunes vanished selections', () => {
    let s = press(fresh(), 'G').state;
    const key = s.cursorKey;
    s = press(s, ' ').state;
    s = { ...s, selected: new Set([...s.selected, 'w:gone']) };
    const snap = snapshot();
    s = reduce(s, { type: 'loaded', snapshot: { ...snap, readAt: snap.readAt + 1 } }).state;
    expect(s.cursorKey).toBe(key);
    expect([...s.selected]).toEqual([key]);
  });
});

describe('Claim history (left/right, h/l)', () => {
  it('expands and collapses a Work\'s Claim attempts; h walks up to the graph, then collapses it', () => {
    const snap = snapshot();
    const lint = workByKey(snap, 'lint');
    let s = goTo(fresh(), `w:${lint.id}`, rowsOf(fresh()));
    s = press(s, 'l').state;
    expect(rowsOf(s).filter((r) => r.kind === 'claim').map((r) => r.id)).toEqual(lint.claims);
    s = press(s, 'j').state;
    expect(s.cursorKey).toBe(`c:${lint.claims[0]}`);
    s = press(s, 'h').state;
    expect(s.cursorKey).toBe(`w:${lint.id}`);
    expect(rowsOf(s).some((r) => r.kind === 'claim')).toBe(false);
    s = press(s, 'right', 'left', 'left').state;
    expect(s.cursorKey).toBe('g:sdk');
    s = press(s, 'h').state;
    expect(rowsOf(s).filter((r) => r.graphId === 'sdk').map((r) => r.kind)).toEqual(['graph']);
    s = press(s, 'right').state;
    expect(rowsOf(s).filter((r) => r.graphId === 'sdk')).toHaveLength(6);
  });

  it('a Work without attempts has nothing to expand', () => {
    const s = press(fresh(), 'j', 'l').state;
    expect(s.message?.text).toMatch(/no Claim attempts/);
    expect(rowsOf(s)).toHaveLength(37);
  });
});

describe('focus and details', () => {
  it('Tab/Enter switch focus; in details the movement keys scroll, and a new row starts at the top', () => {
    const snap = snapshot();
    let s = goTo(fresh({ rows: 16 }), `w:${workByKey(snap, 'docs').id}`, rowsOf(fresh({ rows: 16 })));
    const cursor = s.cursor;
    s = press(s, 'tab').state;
    expect(s.focus).toBe('details');
    s = press(s, 'j', 'j').state;
    expect([s.cursor, s.detailsTop]).toEqual([cursor, 2]);
    s = press(s, 'G').state;
    const bottom = s.detailsTop;
    expect(bottom).toBeGreaterThan(2);
    s = press(s, 'pageup', 'g').state;
    expect(s.detailsTop).toBe(0);
    s = press(s, 'pagedown', 'enter').state;
    expect(s.focus).toBe('tree');
    expect(s.detailsTop).toBeGreaterThan(0);
    s = press(s, 'k').state;
    expect(s.detailsTop).toBe(0);
  });
});

describe('search', () => {
  it('/ then Enter applies a case-insensitive id/metadata search; typing is not navigation', () => {
    let s = press(fresh(), '/', 'tASK-0').state;
    expect(s.searchDraft).toBe('tASK-0');
    expect(s.cursor).toBe(0);
    s = press(s, 'backspace', '1', 'enter').state;
    expect(s.search).toBe('tASK-1');
    const snap = snapshot();
    expect(rowsOf(s).filter((r) => r.kind === 'work').map((r) => snap.works.get(r.id)!.nodeKey)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Task-${String(i + 10)}`));
    expect(s.cursorKey).toBe('g:backlog');
  });

  it('matches ids, graph ids, states and Claim ids', () => {
    const snap = snapshot();
    const lint = workByKey(snap, 'lint');
    const byId = press(fresh(), '/', lint.id.slice(5, 20).toUpperCase(), 'enter').state;
    expect(rowsOf(byId).map((r) => r.key)).toEqual(['g:sdk', `w:${lint.id}`]);
    const byState = press(fresh(), '/', 'CLAIMED', 'enter').state;
    expect(rowsOf(byState).filter((r) => r.kind === 'work')).toHaveLength(2);
    const byClaim = press(fresh(), '/', lint.claims[0]!, 'enter').state;
    expect(rowsOf(byClaim).map((r) => r.kind)).toEqual(['graph', 'work', 'claim']);
  });

  it('Esc while typing cancels the edit and keeps the applied search', () => {
    let s = press(fresh(), '/', 'lint', 'enter', '/', 'xyz', 'escape').state;
    expect([s.search, s.searchDraft]).toEqual(['lint', null]);
    s = press(s, 'escape').state;
    expect(s.search).toBe('');
  });

  it('a search with no match shows no rows; q is typed, not quit', () => {
    const r = press(fresh(), '/', 'nothing-q', 'enter');
    expect(r.effects).toEqual([]);
    expect(rowsOf(r.state)).toEqual([]);
    expect(r.state.quit).toBe(false);
  });
});

describe('multi-selection', () => {
  it('Space toggles; selections stay while the search hides them; Esc clears search and selection', () => {
    let s = press(fresh(), 'j', ' ', 'j', ' ', 'j', ' ', ' ').state;
    expect(s.selected.size).toBe(2);
    s = press(s, '/', 'lint', 'enter').state;
    expect(s.selected.size).toBe(2);
    expect(hiddenSelected(s)).toBe(2);
    s = press(s, 'j', ' ').state;
    expect(s.selected.size).toBe(3);
    expect(hiddenSelected(s)).toBe(2);
    s = press(s, 'escape').state;
    expect([s.search, s.selected.size]).toEqual(['', 0]);
    expect(s.message?.text).toMatch(/cleared/);
  });

  it('Space on a graph row selects every shown Work of it, and again unselects them', () => {
    let s = press(fresh(), '/', 'task-0', 'enter', ' ').state;
    expect(s.selected.size).toBe(9);
    s = press(s, ' ').state;
    expect(s.selected.size).toBe(0);
  });
});

describe('help, quit, terminal size', () => {
  it('? shows help (movement keys scroll it), Esc or ? closes it, q quits from anywhere outside a dialog', () => {
    let s = press(fresh({ columns: 45, rows: 16 }), '?').state;
    expect(s.help).toBe(true);
    s = press(s, 'j', 'j', 'G').state;
    expect(s.helpTop).toBeGreaterThan(2);
    expect(s.cursor).toBe(0);
    s = press(s, 'escape').state;
    expect(s.help).toBe(false);
    s = press(s, '?', '?').state;
    expect(s.help).toBe(false);
    const q = press(s, '?', 'q');
    expect(q.effects).toEqual([{ type: 'quit' }]);
    expect(q.state.quit).toBe(true);
    expect(press(q.state, 'j').state).toBe(q.state);
  });

  it('below 45x16 only q works; resizing back restores the view', () => {
    let s = reduce(fresh(), { type: 'resize', viewport: { columns: 44, rows: 30 } }).state;
    expect(press(s, 'j', 'c', 'r').effects).toEqual([]);
    expect(press(s, 'j').state.cursor).toBe(0);
    s = reduce(s, { type: 'resize', viewport: { columns: 45, rows: 16 } }).state;
    expect(press(s, 'j').state.cursor).toBe(1);
    const small = reduce(fresh(), { type: 'resize', viewport: { columns: 80, rows: 15 } }).state;
    expect(press(small, 'q').effects).toEqual([{ type: 'quit' }]);
  });

  it('a resize keeps the cursor visible', () => {
    let s = press(fresh(), 'G').state;
    s = reduce(s, { type: 'resize', viewport: { columns: 60, rows: 16 } }).state;
    const page = layout(s.viewport).paneLines;
    expect(s.cursor).toBe(36);
    expect(s.top).toBe(36 - page + 1);
  });
});

describe('search what the screen shows', () => {
  it('metadata shown as \\u escapes is found by the escape typed as shown, as by the character itself, in any case', () => {
    const snap = queueOf([{ node_key: '\u4e2d\u6587-docs', payload: {} }, { node_key: 'plain', payload: {} }], '\u56fe');
    const wide = [...snap.works.values()].find((w) => w.nodeKey.startsWith('\u4e2d'))!;
    for (const typed of ['\\u4e2d\\u6587', '\\U4E2D', '\u4e2d', '\\u4e2d\\u6587-DOCS']) {
      const s = press(fresh({ snap }), '/', typed, 'enter').state;
      expect(rowsOf(s).map((r) => r.key), typed).toEqual(['g:\u56fe', `w:${wide.id}`]);
    }
    // A graph id is searchable as shown too: every Work of the graph matches.
    expect(rowsOf(press(fresh({ snap }), '/', '\\u56fe', 'enter').state).filter((r) => r.kind === 'work')).toHaveLength(2);
  });
});
