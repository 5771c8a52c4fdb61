/**
 * Keys and I/O completions → state transitions, plus the effects the
 * controller must run (read, publish, quit). Pure: time, reads and
 * publication outcomes arrive as events.
 */
import { wrappedDetails } from './details.ts';
import { helpLines } from './help.ts';
import { blockers, dialogText, openDialog, planOf, withPriority, type ActionKind, type ActionPlan } from './dialog.ts';
import { clamp } from './layout.ts';
import type { Snapshot } from './model.ts';
import { exists, parseKey, rowKey } from './rows.ts';
import { REFRESH_MS, layoutOf, pausedBy, rowsOf, type Ack, type Effect, type KeyPress, type PublishResult, type TuiEvent, type TuiState } from './state.ts';

export interface Reduced {
  state: TuiState;
  effects: Effect[];
}

const none = (state: TuiState): Reduced => ({ state, effects: [] });
const info = (s: TuiState, text: string): TuiState => ({ ...s, message: { tone: 'info', text } });
const error = (s: TuiState, text: string): TuiState => ({ ...s, message: { tone: 'error', text } });

export function reduce(s: TuiState, e: TuiEvent): Reduced {
  switch (e.type) {
    case 'key':
      return s.quit ? none(s) : onKey({ ...s, message: null }, e.key);
    case 'resize':
      return none(settle({ ...s, viewport: e.viewport }));
    case 'tick': {
      const t = { ...s, now: Math.max(s.now, e.now) };
      const due = t.read.lastAttemptAt === null || t.now - t.read.lastAttemptAt >= REFRESH_MS;
      return due && !t.quit && !t.read.loading && pausedBy(t) === null ? startLoad(t) : none(t);
    }
    case 'loaded':
      return readAgain(s, onLoaded(s, e.snapshot));
    case 'load_failed':
      return readAgain(s, { ...s, now: Math.max(s.now, e.at), read: { loading: false, lastAttemptAt: e.at, error: { code: e.code, message: e.message, at: e.at } } });
    case 'published':
      return onPublished(s, e.at, e.plan, e.result);
  }
}

function startLoad(s: TuiState): Reduced {
  // A read in flight may have started before what this read must show (a publication): queue one more.
  if (s.read.loading) return none(s.read.queued === true ? s : { ...s, read: { ...s.read, queued: true } });
  const watch = s.acks.filter((a) => a.result.status === 'uncertain' && a.foundCommit === null).map((a) => a.requestId);
  return { state: { ...s, read: { ...s.read, loading: true } }, effects: [{ type: 'load', watch }] };
}

/** After a read completed (`next`): the queued read, if `before` had one. */
function readAgain(before: TuiState, next: TuiState): Reduced {
  return before.read.queued === true && !next.quit ? startLoad(next) : none(next);
}

function onLoaded(s: TuiState, snapshot: Snapshot): TuiState {
  const selected = new Set([...s.selected].filter((k) => exists(snapshot, k)));
  const acks = s.acks.map((a) => {
    const found = snapshot.committedRequests[a.requestId];
    return a.foundCommit === null && found !== undefined ? { ...a, foundCommit: found } : a;
  });
  return settle({ ...s, snapshot, selected, acks, now: Math.max(s.now, snapshot.readAt), read: { loading: false, lastAttemptAt: snapshot.readAt, error: null } });
}

function onPublished(s: TuiState, at: number, plan: ActionPlan, result: PublishResult): Reduced {
  const ack: Ack = { requestId: plan.requestId, action: plan.action, targets: plan.ids.length, at, result, foundCommit: null };
  const others = [...s.acks.filter((a) => a.result.status !== 'uncertain'), ack].slice(-10);
  const acks = [...s.acks, ack].filter((a) => a.result.status === 'uncertain' || others.includes(a));
  let next: TuiState = { ...s, now: Math.max(s.now, at), dialog: null, acks };
  if (result.status === 'committed' || result.status === 'replayed') {
    const done = new Set(plan.ids.map((id) => (plan.action === 'cancel_claims' ? rowKey('claim', id) : rowKey('work', id))));
    next = info({ ...next, selected: new Set([...s.selected].filter((k) => !done.has(k))) },
      `${result.status === 'replayed' ? 'already committed' : 'committed'} ${plan.requestId}: ${plan.action} of ${plan.ids.length} in ${result.commitId}`);
  } else if (result.status === 'rejected') {
    next = error(next, `not published ${plan.requestId} (${result.code}): ${result.message}`);
  } else {
    next = error(next, `UNCERTAIN ${plan.requestId} (${result.code}): check with fairway explain --request-id ${plan.requestId}`);
  }
  return startLoad(next);
}

/** Re-anchors the cursor (by key while its row is shown, else by position) and the scroll offsets. */
function settle(s: TuiState): TuiState {
  const rows = rowsOf(s);
  let cursor = s.cursorKey === null ? -1 : rows.findIndex((r) => r.key === s.cursorKey);
  if (cursor < 0) cursor = clamp(s.cursor, 0, Math.max(0, rows.length - 1));
  return place(s, cursor);
}

function place(s: TuiState, index: number): TuiState {
  const rows = rowsOf(s);
  const l = layoutOf(s);
  const h = Math.max(1, l.paneLines);
  const cursor = clamp(index, 0, Math.max(0, rows.length - 1));
  const cursorKey = rows[cursor]?.key ?? null;
  let top = clamp(s.top, cursor - h + 1, cursor);
  top = clamp(top, 0, Math.max(0, rows.length - h));
  const detailsMax = Math.max(0, wrappedDetails(s.snapshot, cursorKey, l.detailsInner).length - l.paneLines);
  const detailsTop = cursorKey === s.cursorKey ? clamp(s.detailsTop, 0, detailsMax) : 0;
  return { ...s, cursor, cursorKey, top, detailsTop };
}

function scrollDetails(s: TuiState, to: (top: number, page: number, max: number) => number): TuiState {
  const l = layoutOf(s);
  const max = Math.max(0, wrappedDetails(s.snapshot, s.cursorKey, l.detailsInner).length - l.paneLines);
  return { ...s, detailsTop: clamp(to(s.detailsTop, Math.max(1, l.paneLines), max), 0, max) };
}

function scrollHelp(s: TuiState, name: KeyPress['name']): TuiState {
  const l = layoutOf(s);
  const max = Math.max(0, helpLines(l.overlayWidth).length - l.overlayLines);
  const page = Math.max(1, l.overlayLines);
  const moves: Partial<Record<KeyPress['name'], number>> = { up: -1, down: 1, pageup: -page, pagedown: page, home: -Infinity, end: Infinity };
  const delta = moves[name];
  return delta === undefined ? s : { ...s, helpTop: clamp(s.helpTop + delta, 0, max) };
}

function navigate(s: TuiState, to: (at: number, page: number, last: number) => number): TuiState {
  if (s.focus === 'details') return scrollDetails(s, to);
  return place(s, to(s.cursor, Math.max(1, layoutOf(s).paneLines), rowsOf(s).length - 1));
}

function collapse(s: TuiState): TuiState {
  const row = rowsOf(s)[s.cursor];
  if (row === undefined) return s;
  if (row.kind === 'graph') return settle({ ...s, collapsedGraphs: new Set([...s.collapsedGraphs, row.id]) });
  const workId = row.workId!;
  if (row.kind === 'work' && !s.expandedWork.has(workId)) return settle({ ...s, cursorKey: rowKey('graph', row.graphId) });
  const expandedWork = new Set(s.expandedWork);
  expandedWork.delete(workId);
  return settle({ ...s, expandedWork, cursorKey: rowKey('work', workId) });
}

function expand(s: TuiState): TuiState {
  const row = rowsOf(s)[s.cursor];
  if (row === undefined || row.kind === 'claim') return s;
  if (row.kind === 'graph') {
    const collapsedGraphs = new Set(s.collapsedGraphs);
    collapsedGraphs.delete(row.id);
    return settle({ ...s, collapsedGraphs });
  }
  if ((s.snapshot?.works.get(row.id)?.claims.length ?? 0) === 0) return info(s, 'this Work has no Claim attempts yet');
  return settle({ ...s, expandedWork: new Set([...s.expandedWork, row.id]) });
}

function toggleSelection(s: TuiState): TuiState {
  const rows = rowsOf(s);
  const row = rows[s.cursor];
  if (row === undefined) return s;
  const selected = new Set(s.selected);
  if (row.kind !== 'graph') {
    if (!selected.delete(row.key)) selected.add(row.key);
    return { ...s, selected };
  }
  // A graph row toggles every Work of that graph currently shown.
  const members = rows.filter((r) => r.kind === 'work' && r.graphId === row.id).map((r) => r.key);
  const all = members.every((k) => selected.has(k));
  for (const k of members) {
    if (all) selected.delete(k);
    else selected.add(k);
  }
  return { ...s, selected };
}

function review(s: TuiState, kind: 'cancel' | 'priority'): TuiState {
  if (s.snapshot === null) return error(s, 'no queue read yet');
  const row = rowsOf(s)[s.cursor];
  const keys = s.selected.size > 0 ? [...s.selected] : row !== undefined && row.kind !== 'graph' ? [row.key] : [];
  if (keys.length === 0) return error(s, 'nothing to act on: move to a Work or Claim, or select with Space');
  const kinds = new Set(keys.map((k) => parseKey(k)?.kind));
  let action: ActionKind = 'reprioritize';
  if (kind === 'cancel') {
    if (kinds.size > 1) return error(s, 'the selection mixes Work and Claims: c cancels Work (cancel-work) or Claims (cancel-claim), not both');
    action = kinds.has('claim') ? 'cancel_claims' : 'cancel_work';
  }
  const seq = s.seq + 1;
  const requestId = `tui-${action}-${s.session}-${seq}`;
  return { ...s, seq, dialog: openDialog(s.snapshot, action, keys, requestId) };
}

function dialogKey(s: TuiState, k: KeyPress): Reduced {
  const d = s.dialog!;
  if (d.phase === 'publishing') return none(s);
  if (k.name === 'escape' || (k.name === 'char' && k.char === 'n')) return none(info({ ...s, dialog: null }, 'dismissed: nothing was published'));
  if (k.name !== 'char') return none(s);
  if (d.action === 'reprioritize' && /^[1-5]$/.test(k.char ?? '')) return none({ ...s, dialog: withPriority(s.snapshot!, d, Number(k.char)) });
  if (k.char !== 'y') return none(s);
  // A `y` inside pasted text is not the operator's confirmation: it is ignored, and said so.
  if (k.burst === true) return none(error(s, 'a pasted y does not confirm: press y on its own to publish'));
  const text = dialogText(d, s.authority, s.snapshot?.repository ?? null, layoutOf(s), s.read.error);
  const blocked = blockers(d, s.authority, text.fits, s.read.error);
  if (blocked.length > 0) return none(error(s, `cannot publish: ${blocked[0]}`));
  const publishing = { ...d, phase: 'publishing' as const };
  return { state: { ...s, dialog: publishing }, effects: [{ type: 'publish', plan: planOf(publishing) }] };
}

function searchKey(s: TuiState, k: KeyPress): TuiState {
  const draft = s.searchDraft ?? '';
  if (k.name === 'escape') return { ...s, searchDraft: null };
  if (k.name === 'backspace') return { ...s, searchDraft: draft.slice(0, -1) };
  if (k.name === 'enter') {
    const next = { ...s, searchDraft: null, search: draft.trim() };
    return place(next, Math.max(0, rowsOf(next).findIndex((r) => r.key === s.cursorKey)));
  }
  if (k.name === 'char') return { ...s, searchDraft: (draft + [...(k.char ?? '')].filter((ch) => ch >= ' ' && ch !== '\x7f').join('')).slice(0, 200) };
  return s;
}

const CHAR_KEYS: Record<string, KeyPress['name']> = { j: 'down', k: 'up', g: 'home', G: 'end', h: 'left', l: 'right' };

function onKey(s: TuiState, k: KeyPress): Reduced {
  const quit = (): Reduced => ({ state: { ...s, quit: true }, effects: [{ type: 'quit' }] });
  if (layoutOf(s).tooSmall) return k.name === 'char' && k.char === 'q' ? quit() : none(s);
  if (s.dialog !== null) return dialogKey(s, k);
  if (s.searchDraft !== null) return none(searchKey(s, k));
  const name = k.name === 'char' ? (CHAR_KEYS[k.char ?? ''] ?? 'char') : k.name;
  if (s.help) {
    if (k.name === 'char' && k.char === 'q') return quit();
    if (k.name === 'escape' || (k.name === 'char' && k.char === '?')) return none({ ...s, help: false });
    return none(scrollHelp(s, name));
  }
  switch (name) {
    case 'up': return none(navigate(s, (at) => at - 1));
    case 'down': return none(navigate(s, (at) => at + 1));
    case 'pageup': return none(navigate(s, (at, page) => at - page));
    case 'pagedown': return none(navigate(s, (at, page) => at + page));
    case 'home': return none(navigate(s, () => 0));
    case 'end': return none(navigate(s, (_at, _page, last) => last));
    case 'left': return none(collapse(s));
    case 'right': return none(expand(s));
    case 'tab':
    case 'enter': return none({ ...s, focus: s.focus === 'tree' ? 'details' : 'tree' });
    case 'escape': return none(info(settle({ ...s, search: '', selected: new Set() }), 'search and selection cleared'));
    case 'backspace': return none(s);
  }
  switch (k.char) {
    case ' ': return none(toggleSelection(s));
    case '/': return none({ ...s, searchDraft: s.search });
    case 'c': return none(review(s, 'cancel'));
    case 'p': return none(review(s, 'priority'));
    case 'r': return s.read.loading ? none(info(s, 'a read is already in progress')) : startLoad(s);
    case '?': return none({ ...s, help: true, helpTop: 0 });
    case 'q': return quit();
    default: return none(s);
  }
}
