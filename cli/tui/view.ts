/**
 * Rendering: a pure function of `TuiState` to ink elements (no JSX; the
 * project's tsconfig has no `jsx` setting, so elements are built with
 * `React.createElement`). Selection, cursor and focus are text markers
 * (`[x]`, `>`, `>>`), with color only as a second cue.
 */
import { Box, Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import { wrappedDetails } from './details.ts';
import { dialogText } from './dialog.ts';
import { helpLines } from './help.ts';
import { abbrev, clock, quoted, safe, type Layout } from './layout.ts';
import type { Row } from './rows.ts';
import { hiddenSelected, layoutOf, pausedBy, rowsOf, uncertainAcks, type Ack, type TuiState } from './state.ts';

type Tone = 'normal' | 'error' | 'warn' | 'dim';
const COLORS: Record<Tone, string | undefined> = { normal: undefined, error: 'red', warn: 'yellow', dim: 'gray' };

function line(text: string, key: string | number, o: { tone?: Tone; inverse?: boolean; bold?: boolean } = {}): ReactElement {
  return h(Text, { key, wrap: 'truncate-end', color: COLORS[o.tone ?? 'normal'], inverse: o.inverse ?? false, bold: o.bold ?? false }, text === '' ? ' ' : text);
}

function rowText(s: TuiState, row: Row, cursor: boolean): string {
  const snap = s.snapshot!;
  const indent = '  '.repeat(row.depth);
  const mark = cursor ? '>' : ' ';
  if (row.kind === 'graph') {
    const works = snap.graphs.find((g) => g.id === row.id)?.works ?? [];
    const picked = works.filter((w) => s.selected.has(`w:${w}`)).length;
    const sel = picked === 0 ? '[ ]' : picked === works.length ? '[x]' : '[~]';
    return `${mark}${sel} ${indent}${s.collapsedGraphs.has(row.id) ? '+' : '-'} graph ${quoted(row.id)} (${row.count} Work${row.count === works.length ? '' : ` of ${works.length}`})`;
  }
  const sel = s.selected.has(row.key) ? '[x]' : '[ ]';
  if (row.kind === 'work') {
    const w = snap.works.get(row.id)!;
    const twisty = w.claims.length === 0 ? ' ' : s.expandedWork.has(w.id) ? '-' : '+';
    const claims = w.claims.length === 0 ? '' : ` (${w.claims.length} claim${w.claims.length === 1 ? '' : 's'})`;
    return `${mark}${sel} ${indent}${twisty} ${w.state.padEnd(9)} P${w.effectivePriority} ${abbrev(w.id, 8)} ${quoted(w.nodeKey)}${claims}${w.barrier === 'none' ? '' : ` barrier=${w.barrier}`}`;
  }
  const c = snap.claims.get(row.id)!;
  const current = snap.works.get(c.workId)?.currentClaim === c.id ? ' current' : '';
  return `${mark}${sel} ${indent}claim ${c.state.padEnd(9)} ${abbrev(c.id, 8)} ${safe(c.handle)}${current}`;
}

function pane(title: string, focused: boolean, width: number, l: Layout, lines: ReactElement[]): ReactElement {
  const pad = Array.from({ length: Math.max(0, l.paneLines - lines.length) }, (_, i) => line('', `pad${i}`));
  return h(Box, { flexDirection: 'column', width, height: l.paneLines + 3, borderStyle: focused ? 'double' : 'single', borderColor: focused ? 'cyan' : 'gray' },
    line(`${focused ? '>> ' : '   '}${title}`, 'title', { bold: focused }), ...lines, ...pad);
}

function treePane(s: TuiState, l: Layout, rows: Row[]): ReactElement {
  const focused = s.focus === 'tree';
  const shown = rows.slice(s.top, s.top + l.paneLines);
  const lines = s.snapshot === null
    ? [line(s.read.error === null ? 'reading the queue...' : 'no queue view yet (see status below)', 'empty', { tone: 'dim' })]
    : shown.length === 0
      ? [line(s.search === '' ? 'the queue has no Work' : `no Work matches ${quoted(s.search)}`, 'empty', { tone: 'dim' })]
      : shown.map((r, i) => line(rowText(s, r, s.top + i === s.cursor), r.key, { inverse: s.top + i === s.cursor && focused }));
  const range = rows.length === 0 ? 'no rows' : `rows ${s.top + 1}-${s.top + shown.length} of ${rows.length}`;
  return pane(`TREE ${range}${l.wide ? '' : '  (Tab: details)'}`, focused, l.treeWidth, l, lines);
}

function detailsPane(s: TuiState, l: Layout): ReactElement {
  const all = wrappedDetails(s.snapshot, s.cursorKey, l.detailsInner);
  const shown = all.slice(s.detailsTop, s.detailsTop + l.paneLines);
  const title = `DETAILS lines ${all.length === 0 ? 0 : s.detailsTop + 1}-${s.detailsTop + shown.length} of ${all.length}${l.wide ? '' : '  (Tab: tree)'}`;
  return pane(title, s.focus === 'details', l.detailsWidth, l, shown.map((t, i) => line(t, i)));
}

/** Help or a confirmation: full width between the header and the key line, with its own title. */
function overlay(s: TuiState, l: Layout): ReactElement[] {
  let title: string;
  let lines: ReactElement[];
  if (s.dialog !== null) {
    const t = dialogText(s.dialog, s.authority, s.snapshot?.repository ?? null, l, s.read.error);
    const room = Math.max(0, l.overlayLines - t.head.length - t.foot.length - 1);
    const shown = t.fits ? t.targets : t.targets.slice(0, room);
    title = '>> CONFIRM (automatic reads paused)';
    lines = [
      ...t.head.map((x, i) => line(x, `h${i}`)),
      ...shown.map((x, i) => line(x, `t${i}`, { tone: x.startsWith('!') || x.startsWith('  !') ? 'error' : 'normal' })),
      ...(t.fits ? [] : [line(`... ${t.targets.length - shown.length} more target lines do not fit`, 'more', { tone: 'error' })]),
      ...t.foot.map((x, i) => line(x, `f${i}`, { tone: x.startsWith('CANNOT') ? 'error' : 'warn', bold: true })),
    ];
  } else {
    const all = helpLines(l.overlayWidth);
    const shown = all.slice(s.helpTop, s.helpTop + l.overlayLines);
    title = `>> HELP lines ${s.helpTop + 1}-${s.helpTop + shown.length} of ${all.length} (j/k scroll, ? or Esc closes)`;
    lines = shown.map((x, i) => line(x, i));
  }
  const shown = lines.slice(0, l.overlayLines);
  const pad = Array.from({ length: l.overlayLines - shown.length }, (_, i) => line('', `pad${i}`));
  return [line(title, 'title', { bold: true, inverse: true }), ...shown, ...pad];
}

function body(s: TuiState, l: Layout): ReactElement {
  const rows = rowsOf(s);
  if (l.wide) return h(Box, { flexDirection: 'row' }, treePane(s, l, rows), detailsPane(s, l));
  return s.focus === 'tree' ? treePane(s, l, rows) : detailsPane(s, l);
}

function readStatus(s: TuiState): { text: string; tone: Tone } {
  const e = s.read.error;
  if (e !== null && s.snapshot !== null) return { text: `STALE: read failed ${clock(e.at)} (${e.code}); showing the read of ${clock(s.snapshot.readAt)}`, tone: 'warn' };
  if (e !== null) return { text: `ERROR: read failed ${clock(e.at)} (${e.code})`, tone: 'error' };
  if (s.snapshot === null) return { text: 'reading...', tone: 'dim' };
  return { text: `live, read ${clock(s.snapshot.readAt)}${s.read.loading ? ' (reading...)' : ''}`, tone: 'normal' };
}

/**
 * Request id first: in a narrow terminal the tail is cut, never the id. `others`: how many more
 * uncertain acknowledgements there are, said right after the id so the cut never hides them.
 */
function ackText(a: Ack, others = 0): string {
  const r = a.result;
  const what = `${a.action} x${a.targets}`;
  if (r.status === 'uncertain') {
    const more = others > 0 ? ` (+${others} more uncertain)` : '';
    const found = a.foundCommit === null ? '' : ` (since found committed in ${a.foundCommit})`;
    return `UNCERTAIN ${a.requestId}${more}: ${what} ${r.code}${found}; fairway explain --request-id ${a.requestId}`;
  }
  if (r.status === 'rejected') return `rejected ${a.requestId}: ${what} ${r.code}: ${safe(r.message)}`;
  return `${r.status} ${a.requestId}: ${what} in ${r.commitId}`;
}

function footer(s: TuiState): ReactElement[] {
  const status = readStatus(s);
  const parts = [status.text];
  if (s.search !== '') parts.push(`search ${quoted(s.search)}`);
  if (s.selected.size > 0) {
    const hidden = hiddenSelected(s);
    parts.push(`selected ${s.selected.size}${hidden === 0 ? '' : ` (${hidden} not shown)`}`);
  }
  const paused = pausedBy(s);
  if (paused !== null) parts.push(`auto-refresh paused (${paused})`);
  const first = s.searchDraft !== null
    // The prompt takes the status line's place, so it says the reads are paused itself.
    ? line(`/ ${safe(s.searchDraft)}_   (Enter apply, Esc cancel; auto-refresh paused)`, 'status', { bold: true })
    : line(parts.join(' | '), 'status', { tone: status.tone });
  const latest = s.acks.at(-1);
  const message = s.message !== null
    ? line(safe(s.message.text), 'message', { tone: s.message.tone === 'error' ? 'error' : 'normal' })
    : line(latest === undefined ? '' : ackText(latest), 'message', { tone: 'dim' });
  const uncertain = uncertainAcks(s);
  const detail = uncertain.length > 0
    ? line(ackText(uncertain.at(-1)!, uncertain.length - 1), 'uncertain', { tone: 'error', bold: true })
    : s.read.error !== null
      ? line(`read error: ${safe(s.read.error.message)}`, 'uncertain', { tone: 'warn' })
      : line('', 'uncertain');
  return [first, message, detail];
}

function keyLine(s: TuiState): ReactElement {
  const keys = s.dialog !== null
    ? 'nothing is published until y'
    : s.help
      ? 'j/k scroll  ? or Esc close  q quit'
      : layoutOf(s).wide
      ? 'j/k move h/l claims Tab pane / search Space select c cancel p priority r refresh ? help q quit'
      : 'j/k h/l Tab / Space c:cancel p:priority r ? q';
  return line(keys, 'keys', { tone: 'dim' });
}

function header(s: TuiState): ReactElement {
  const snap = s.snapshot;
  const tip = snap === null ? 'no read yet' : `tip ${snap.tip === null ? '-' : abbrev(snap.tip)} (${snap.commits} commits) epoch ${safe(snap.policyEpoch ?? '-')}`;
  const controls = snap === null ? '' : `${snap.controls.grants_paused ? ' [grants paused]' : ''}${snap.controls.admission_paused ? ' [admission paused]' : ''}`;
  return line(`FAIRWAY${s.authority.writable ? '' : ' [read-only]'} ${safe(snap?.repository ?? '')} ${safe(s.authority.source)}  ${tip}${controls}`, 'header', { bold: true });
}

export function Screen({ state: s }: { state: TuiState }): ReactElement {
  const l = layoutOf(s);
  if (l.tooSmall) {
    return h(Box, { flexDirection: 'column' },
      line(`terminal too small: ${s.viewport.columns}x${s.viewport.rows}`, 'a', { tone: 'error' }),
      line('need 45x16: enlarge, or q quits', 'b'));
  }
  const middle = s.help || s.dialog !== null ? overlay(s, l) : [body(s, l), ...footer(s)];
  return h(Box, { flexDirection: 'column', width: s.viewport.columns, height: l.height }, header(s), ...middle, keyLine(s));
}
