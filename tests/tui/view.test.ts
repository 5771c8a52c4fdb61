/**
 * What the screen shows, rendered to a string: panes by width, text markers
 * for cursor/selection/focus, full ids in details with dependency and gate
 * cross-references, escaped metadata, status lines, overlays; never payloads.
 */
import { stripVTControlCharacters } from 'node:util';
import { renderToString } from 'ink';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { detailLines, wrappedDetails } from '../../cli/tui/details.ts';
import { layout } from '../../cli/tui/layout.ts';
import { reduce } from '../../cli/tui/reducer.ts';
import { rowsOf, type TuiState } from '../../cli/tui/state.ts';
import { Screen } from '../../cli/tui/view.ts';
import { ISSUE, RECEIPT, SECRET, completedQueue, fresh, goTo, press, queueOf, snapshot, workByKey } from './fixtures.ts';

function screen(s: TuiState): string[] {
  const text = stripVTControlCharacters(renderToString(createElement(Screen, { state: s }), { columns: s.viewport.columns }));
  return text.split('\n');
}

describe('layout', () => {
  it('at 100+ columns the tree is beside the details, the frame fills the terminal but one line', () => {
    const lines = screen(fresh());
    expect(lines).toHaveLength(29);
    expect(lines.every((l) => l.length <= 120)).toBe(true);
    expect(lines[2]).toMatch(/>> TREE rows 1-21 of 37 .* {3}DETAILS lines 1-/);
  });

  it('narrower, one pane at a time: Tab switches, and the title says so', () => {
    const tree = screen(fresh({ columns: 60, rows: 20 }));
    expect(tree.join('\n')).toContain('>> TREE rows 1-11 of 37  (Tab: details)');
    expect(tree.join('\n')).not.toContain('DETAILS');
    const details = screen(press(fresh({ columns: 60, rows: 20 }), 'tab').state);
    expect(details.join('\n')).toContain('>> DETAILS lines 1-');
    expect(details.join('\n')).not.toContain('TREE');
    expect(details).toHaveLength(19);
  });

  it('below 45x16 it says the terminal is too small', () => {
    const s = reduce(fresh(), { type: 'resize', viewport: { columns: 44, rows: 16 } }).state;
    expect(screen(s).join('\n')).toMatch(/terminal too small: 44x16/);
  });
});

describe('markers, not color alone', () => {
  it('cursor ">", selection "[x]", a partly selected graph "[~]", focus ">>", collapsed "+"', () => {
    const s = press(fresh(), 'j', ' ', 'j').state;
    const lines = screen(s);
    expect(lines.find((l) => l.includes('"Task-01"'))).toMatch(/║ \[x\] {5}available P3 [0-9a-f]{8}… "Task-01"/);
    expect(lines.find((l) => l.includes('"Task-02"'))).toMatch(/║>\[ \] {5}available/);
    expect(lines.find((l) => l.includes('graph "backlog"'))).toMatch(/\[~\] - graph "backlog" \(30 Work\)/);
    const claimed = screen(goTo(fresh(), `w:${workByKey(snapshot(), 'lint').id}`, rowsOf(fresh())));
    expect(claimed.find((l) => l.includes('"lint" ('))).toMatch(/>\[ \] {3}\+ claimed {3}P1 [0-9a-f]{8}… "lint" \(1 claim\)/);
  });

  it('list labels abbreviate ids; details show them in full', () => {
    const lint = workByKey(snapshot(), 'lint');
    const s = goTo(fresh(), `w:${lint.id}`, rowsOf(fresh()));
    const text = screen(s).join('\n');
    expect(text).toContain(`${lint.id.slice(0, 8)}…`);
    expect(text).toContain(lint.id);
    expect(text).toContain(lint.claims[0]);
  });
});

describe('details', () => {
  const snap = snapshot();

  it('cross-reference shared Work dependencies and Issue gates with their latest observation', () => {
    const docs = workByKey(snap, 'docs');
    const inspect = workByKey(snap, 'inspect');
    const lines = detailLines(snap, `w:${docs.id}`).join('\n');
    expect(lines).toContain('DEPENDS ON (2)');
    expect(lines).toContain(`- work "inspect" cancelled (1 attempts)\n  ${inspect.id}`);
    expect(lines).toContain(`- issue gate: ${ISSUE.repository}#7 must be completed`);
    expect(lines).toContain('latest: no observation yet');
    expect(lines).toContain('BLOCKING PATH');
    const up = detailLines(snap, `w:${inspect.id}`).join('\n');
    expect(up).toContain('DEPENDED ON BY (2)');
    expect(up).toContain(workByKey(snap, 'code').id);
  });

  it('a Claim shows its Work, ownership, dispatch group and reservation', () => {
    const lint = workByKey(snap, 'lint');
    const lines = detailLines(snap, `c:${lint.claims[0]}`).join('\n');
    expect(lines).toContain(`claim_id\n${lint.claims[0]}`);
    expect(lines).toContain('current         yes (owns the Work)');
    expect(lines).toContain('DISPATCH GROUP');
    expect(lines).toContain('reservation     outstanding');
  });

  it('no view shows payloads; metadata is escaped', () => {
    const all = [...snap.works.keys()].map((k) => `w:${k}`).concat([...snap.claims.keys()].map((k) => `c:${k}`), ['g:sdk', 'g:backlog']);
    for (const key of all) expect(detailLines(snap, key).join('\n')).not.toContain(SECRET);
    const weird = workByKey(snap, 'w\u00e9ird\u009b[31m');
    const s = goTo(fresh(), `w:${weird.id}`, rowsOf(fresh()));
    const text = screen(s).join('\n');
    expect(text).not.toContain(SECRET);
    expect(text).toContain('"w\\u00e9ird\\u009b[31m"');
    expect(text).not.toContain('\u009b');
  });

  it('Claim handles and gate observation ids (identities: any text but C0 controls) are escaped in details too', () => {
    const lint = workByKey(snap, 'lint');
    const claimId = lint.claims[0]!;
    const claim = snap.claims.get(claimId)!;
    const claims = new Map(snap.claims).set(claimId, { ...claim, handle: 'h\u009b31m', observations: ['obs-\u202eevil'] });
    const odd = { ...snap, claims };
    const text = [...detailLines(odd, `c:${claimId}`), ...detailLines(odd, `w:${lint.id}`)].join('\n');
    expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(text).toContain('h\\u009b31m');
    expect(text).toContain('obs-\\u202eevil');
  });
});

describe('status and overlays', () => {
  it('a failed read shows STALE with the previous view kept; with no view yet, ERROR', () => {
    const s = fresh();
    const stale = reduce(s, { type: 'load_failed', at: s.now + 1000, code: 'store_read_failed', message: 'git: fatal' }).state;
    const text = screen(stale).join('\n');
    expect(text).toMatch(/STALE: read failed \d\d:\d\d:\d\d \(store_read_failed\); showing the read of/);
    expect(text).toContain('read error: git: fatal');
    expect(text).toContain('"Task-01"');
    const none = reduce(fresh({ snap: null }), { type: 'load_failed', at: 1, code: 'queue_uninitialized', message: 'no queue' }).state;
    expect(screen(none).join('\n')).toMatch(/ERROR: read failed .* \(queue_uninitialized\)/);
  });

  it('read times are the terminal\'s local time of day, not UTC', () => {
    const tz = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo'; // UTC+9, no daylight saving
    try {
      const s = fresh();
      const at = Date.UTC(2026, 0, 1, 0, 0, 5);
      const stale = reduce(s, { type: 'load_failed', at, code: 'store_read_failed', message: 'git: fatal' }).state;
      expect(screen(stale).join('\n')).toContain('STALE: read failed 09:00:05 (store_read_failed)');
      expect(screen(fresh()).join('\n')).toMatch(/live, read 09:00:05/);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('search prompt, search, selection and the pause show on the status line', () => {
    const typing = screen(press(fresh(), 'j', ' ', '/', 'lin').state).join('\n');
    expect(typing).toContain('/ lin_   (Enter apply, Esc cancel; auto-refresh paused)');
    const applied = screen(press(fresh(), 'j', ' ', '/', 'lint', 'enter').state).join('\n');
    expect(applied).toMatch(/search "lint" \| selected 1 \(1 not shown\)/);
  });

  it('the confirmation overlay names authority, request id and full target ids; uncertain outcomes stay listed', () => {
    const t1 = workByKey(snapshot(), 'Task-01');
    const review = press(fresh(), 'j', 'c');
    const text = screen(review.state).join('\n');
    expect(text).toContain('>> CONFIRM (automatic reads paused)');
    expect(text).toContain('authority: administrator, principal 1');
    expect(text).toContain('request id: tui-cancel_work-sess-1');
    expect(text).toContain(`- work ${t1.id}`);
    expect(text).toContain('y publish, n/Esc dismiss');
    const y = press(review.state, 'y');
    const plan = (y.effects[0] as { type: 'publish'; plan: never }).plan;
    const after = reduce(y.state, { type: 'published', at: y.state.now, plan, result: { status: 'uncertain', code: 'store_write_failed', message: 'reset' } }).state;
    const later = press(after, 'j', 'j').state;
    expect(screen(later).join('\n')).toContain('UNCERTAIN tui-cancel_work-sess-1: cancel_work x1 store_write_failed; fairway explain --request-id tui-cancel_work-sess-1');
  });

  it('with several uncertain outcomes, the latest is shown and the count of the others is never cut off, down to 60 columns', () => {
    let s = fresh({ columns: 60, rows: 20 });
    for (let i = 0; i < 3; i++) {
      const y = press(s, 'j', 'c', 'y');
      const plan = (y.effects[0] as { type: 'publish'; plan: never }).plan;
      s = reduce(y.state, { type: 'published', at: y.state.now, plan, result: { status: 'uncertain', code: 'store_write_failed', message: 'reset' } }).state;
      s = reduce(s, { type: 'loaded', snapshot: snapshot() }).state;
    }
    const line = screen(press(s, 'k').state).filter((l) => l.startsWith('UNCERTAIN')).at(-1)!; // the line that stays for uncertain outcomes
    expect(line).toMatch(/^UNCERTAIN tui-cancel_work-sess-3 \(\+2 more uncertain\): /);
  });

  it('a blocked confirmation at 45x16 shows its whole reason and how to dismiss, never cut off below the targets', () => {
    const readOnly = { principal: '1', source: 'file:/tmp/a/longer/path/to/demo.jsonl', writable: false, basis: 'read-only ledger file' };
    const lines = screen(press(fresh({ columns: 45, rows: 16, authority: readOnly }), 'j', 'c').state);
    expect(lines).toHaveLength(15);
    const text = lines.join('\n');
    expect(text).toContain('CANNOT PUBLISH');
    expect(text.replace(/\s+/g, ' ')).toContain('is read-only (--ledger); publish through --repo, --remote or --github. n/Esc dismiss');
    expect(lines.at(-1)).toContain('nothing is published until y');
  });

  it('help lists the keys', () => {
    const text = screen(press(fresh(), '?').state).join('\n');
    expect(text).toContain('>> HELP');
    expect(text).toMatch(/Space +select \/ unselect \(kept while hidden by search\)/);
  });
});

describe('hostile and wide metadata', () => {
  // 256-byte identities (the protocol's ceiling; ASCII controls are refused by replay, everything else is admitted).
  const CJK = '\u4e2d\u6587\u5bbd'.repeat(28) + '\u5b57'; // 85 wide characters, 255 bytes
  const EMOJI = '\u{1F600}'.repeat(64); // 64 astral wide characters (surrogate pairs), 256 bytes
  const HOSTILE = `\u202e\u009b2J\u009d0;title\u009c\u200b${'\u00e9'.repeat(60)}\u0085${'x'.repeat(100)}`; // bidi override, C1 CSI/OSC/ST, zero-width, NEL
  const LONG = 'L'.repeat(256);
  const snap = queueOf([CJK, EMOJI, HOSTILE, LONG].map((node_key) => ({ node_key, payload: { text: `PAYLOAD\u001b[2J${SECRET}` } })), '\u56fe\u8868');
  /** The UI's own characters: printable ASCII, box drawing and the ellipsis of abbreviated ids and cut lines. */
  const SCREEN_TEXT = /^[\x20-\x7e\u2500-\u257f\u2026]*$/;

  it('reach the screen only as printable ASCII escapes: every line fits the columns and pane borders stay aligned, at every size', () => {
    for (const [columns, rows] of [[120, 30], [100, 24], [60, 20], [45, 16]] as const) {
      const base = fresh({ columns, rows, snap });
      for (const w of snap.works.values()) {
        for (const s of [goTo(base, `w:${w.id}`, rowsOf(base)), press(goTo(base, `w:${w.id}`, rowsOf(base)), 'tab').state, press(goTo(base, `w:${w.id}`, rowsOf(base)), 'c').state]) {
          const lines = screen(s);
          const where = `${columns}x${rows} ${w.id.slice(0, 8)} ${s.focus} ${s.dialog === null ? '' : 'review'}`;
          expect(lines, where).toHaveLength(rows - 1);
          for (const line of lines) {
            expect(line, where).toMatch(SCREEN_TEXT);
            expect(line.length, where).toBeLessThanOrEqual(columns);
          }
          // Every pane line closes its border in the last column (a wide character would push it out).
          const boxed = lines.filter((l) => /^[║│]/.test(l));
          if (s.dialog === null) expect(boxed.length, where).toBeGreaterThan(0);
          for (const line of boxed) expect(line.length, where).toBe(columns);
          expect(lines.join('\n'), where).not.toContain(SECRET);
        }
      }
    }
  });

  it('the details show each escaped node key in full, wrapped; the tree shows it cut at the pane', () => {
    const cjk = [...snap.works.values()].find((w) => w.nodeKey === CJK)!;
    const s = goTo(fresh({ snap }), `w:${cjk.id}`, rowsOf(fresh({ snap })));
    const details = wrappedDetails(s.snapshot, s.cursorKey, layout(s.viewport).detailsInner).join('');
    expect(details).toContain(`"${[...CJK].map((ch) => `\\u${ch.charCodeAt(0).toString(16)}`).join('')}"`);
    const hostile = [...snap.works.values()].find((w) => w.nodeKey === HOSTILE)!;
    const h = detailLines(snap, `w:${hostile.id}`).join('\n');
    expect(h).toContain('"\\u202e\\u009b2J\\u009d0;title\\u009c\\u200b\\u00e9');
    expect(h).not.toMatch(/[^\x20-\x7e\n]/);
    const tree = screen(s).find((l) => l.includes(abbrevOf(cjk.id)))!;
    expect(tree).toMatch(/ "\\u4[\\u0-9a-f]*…║/);
  });
});

const abbrevOf = (id: string): string => `${id.slice(0, 8)}…`;

describe('the reference\'s layout and review limits, at their edges', () => {
  it('at exactly 100 columns the tree is beside the details; at 99, one pane', () => {
    const wide = screen(fresh({ columns: 100, rows: 20 }));
    expect(wide[2]).toMatch(/^║>> TREE rows 1-\d+ of 37 +║│ +DETAILS lines 1-/);
    expect(wide[2]).toHaveLength(100);
    const narrow = screen(fresh({ columns: 99, rows: 20 })).join('\n');
    expect(narrow).toContain('>> TREE rows 1-11 of 37  (Tab: details)');
    expect(narrow).not.toContain('DETAILS');
  });

  it('a review whose targets do not all fit shows those that do, says how many lines are missing, and cannot publish', () => {
    const s = press(fresh({ columns: 45, rows: 16 }), 'j ', 'j ', 'j ', 'c').state;
    expect(s.dialog!.targets).toHaveLength(3);
    const lines = screen(s);
    expect(lines).toHaveLength(15);
    const text = lines.join('\n');
    expect(text).toMatch(/\.\.\. \d+ more target lines do not fit/);
    expect(text.replace(/\s+/g, ' ')).toContain('CANNOT PUBLISH: not every target fits in this view: enlarge the terminal or select fewer');
    expect(lines.at(-1)).toContain('nothing is published until y');
    expect(press(s, 'y').effects).toEqual([]);
  });
});

describe('a Work run to the end, and a pull request gate', () => {
  const done = completedQueue();
  const build = [...done.works.values()].find((w) => w.nodeKey === 'build')!;
  const ship = [...done.works.values()].find((w) => w.nodeKey === 'ship')!;

  it('details name the Completion and Result commits and the bound run, never the Result descriptor, the receipt or the payload', () => {
    expect(build.state).toBe('completed');
    const work = detailLines(done, `w:${build.id}`).join('\n');
    expect(work).toContain(`completion\n${build.completion}`);
    expect(work).toContain(`result\n${build.result}`);
    const claim = detailLines(done, `c:${build.claims[0]}`).join('\n');
    expect(claim).toContain('run             bound (evidence not shown)');
    expect(claim).toMatch(/reservation\nreleased in q_[0-9a-f]+/);
    let s = fresh({ snap: done });
    const all: string[] = [];
    for (const key of ['g:release', `w:${build.id}`, `c:${build.claims[0]}`, `w:${ship.id}`]) {
      all.push(...detailLines(done, key));
      s = press(s, 'g').state;
      s = goTo(s, key, rowsOf(s));
      if (key.startsWith('w:')) s = press(s, 'l').state;
      all.push(...screen(s), ...screen(press(s, 'tab', 'G').state));
    }
    expect(all.join('\n')).not.toContain(SECRET);
    expect(all.join('\n')).not.toContain(RECEIPT);
  });

  it('a pull request gate is cross-referenced with its identity and condition', () => {
    const lines = detailLines(done, `w:${ship.id}`).join('\n');
    expect(lines).toContain('DEPENDS ON (2)');
    expect(lines).toContain(`- work "build" completed (1 attempts)\n  ${build.id}`);
    expect(lines).toContain('- pull request gate: acme/app#12 must be merged');
    expect(lines).toContain('host github.com repository_id 1 resource_id 200012');
    expect(detailLines(done, `w:${build.id}`).join('\n')).toContain(`DEPENDED ON BY (1)\n- work "ship"`);
  });
});
