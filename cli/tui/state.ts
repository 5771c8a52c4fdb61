/**
 * The keyboard browser's pure state: everything the screen shows is derived
 * from a `TuiState`, and every change is an event through `reduce`
 * (reducer.ts). Nothing here touches a terminal, a clock or a store.
 */
import type { ActionPlan, Authority, Dialog } from './dialog.ts';
import { layout, type Layout, type Viewport } from './layout.ts';
import type { Snapshot } from './model.ts';
import { visibleRows, type Row } from './rows.ts';

/** Automatic reads while idle: at most one per this many milliseconds. */
export const REFRESH_MS = 10_000;

export type KeyName = 'up' | 'down' | 'left' | 'right' | 'pageup' | 'pagedown' | 'home' | 'end' | 'tab' | 'enter' | 'escape' | 'backspace' | 'char';

export interface KeyPress {
  name: KeyName;
  /** The typed text for `char` (a space is `' '`). */
  char?: string;
  /** One of several characters that arrived together (a paste, or tmux): never a confirmation. */
  burst?: true;
}

export type PublishResult =
  | { status: 'committed'; commitId: string }
  /** The request id was already committed (a retry): nothing new was written. */
  | { status: 'replayed'; commitId: string }
  /** Definitely not written (checked against the ledger, or failed before any write). */
  | { status: 'rejected'; code: string; message: string }
  /** A write was attempted and its outcome is unknown. */
  | { status: 'uncertain'; code: string; message: string };

export type TuiEvent =
  | { type: 'key'; key: KeyPress }
  | { type: 'resize'; viewport: Viewport }
  | { type: 'tick'; now: number }
  | { type: 'loaded'; snapshot: Snapshot }
  | { type: 'load_failed'; at: number; code: string; message: string }
  | { type: 'published'; at: number; plan: ActionPlan; result: PublishResult };

export type Effect =
  /** Read the queue; `watch`: request ids whose commit to look up (uncertain acknowledgements). */
  | { type: 'load'; watch: string[] }
  | { type: 'publish'; plan: ActionPlan }
  | { type: 'quit' };

export interface Ack {
  requestId: string;
  action: ActionPlan['action'];
  targets: number;
  at: number;
  result: PublishResult;
  /** An uncertain request later found committed in this commit. */
  foundCommit: string | null;
}

export interface ReadStatus {
  loading: boolean;
  /** Completion time of the last read attempt (success or failure). */
  lastAttemptAt: number | null;
  /** The failure of the last read (the view then shows the previous snapshot as stale). */
  error: { code: string; message: string; at: number } | null;
  /**
   * Another read is due as soon as this one completes: one was asked for (after a publication)
   * while a read that may predate it was in flight.
   */
  queued?: boolean;
}

export interface TuiState {
  /** Random per session; request ids are `tui-<action>-<session>-<seq>`. */
  session: string;
  seq: number;
  now: number;
  viewport: Viewport;
  authority: Authority;
  snapshot: Snapshot | null;
  read: ReadStatus;
  focus: 'tree' | 'details';
  cursor: number;
  cursorKey: string | null;
  top: number;
  detailsTop: number;
  expandedWork: ReadonlySet<string>;
  collapsedGraphs: ReadonlySet<string>;
  /** Applied search ('' = none). */
  search: string;
  /** The search being typed after `/` (null: not editing). */
  searchDraft: string | null;
  /** Selected row keys (`w:` Work, `c:` Claims), kept while hidden by search. */
  selected: ReadonlySet<string>;
  dialog: Dialog | null;
  help: boolean;
  helpTop: number;
  acks: Ack[];
  message: { tone: 'info' | 'error'; text: string } | null;
  quit: boolean;
}

export function initialState(o: { session: string; now: number; viewport: Viewport; authority: Authority }): TuiState {
  return {
    session: o.session,
    seq: 0,
    now: o.now,
    viewport: o.viewport,
    authority: o.authority,
    snapshot: null,
    read: { loading: false, lastAttemptAt: null, error: null },
    focus: 'tree',
    cursor: 0,
    cursorKey: null,
    top: 0,
    detailsTop: 0,
    expandedWork: new Set(),
    collapsedGraphs: new Set(),
    search: '',
    searchDraft: null,
    selected: new Set(),
    dialog: null,
    help: false,
    helpTop: 0,
    acks: [],
    message: null,
    quit: false,
  };
}

export const layoutOf = (s: TuiState): Layout => layout(s.viewport);
export const rowsOf = (s: TuiState): Row[] => visibleRows(s.snapshot, s);

/** Automatic reads pause while a search is typed or an action is reviewed. */
export function pausedBy(s: TuiState): 'search' | 'review' | null {
  if (s.dialog !== null) return 'review';
  if (s.searchDraft !== null) return 'search';
  return null;
}

/** Selected keys not shown right now (hidden by the search or a collapsed branch); they stay selected. */
export function hiddenSelected(s: TuiState): number {
  if (s.selected.size === 0) return 0;
  const shown = new Set(rowsOf(s).map((r) => r.key));
  let n = 0;
  for (const k of s.selected) if (!shown.has(k)) n += 1;
  return n;
}

/** Uncertain acknowledgements stay listed for `explain --request-id`. */
export function uncertainAcks(s: TuiState): Ack[] {
  return s.acks.filter((a) => a.result.status === 'uncertain');
}

/**
 * What the operator must still check when the browser closes (the screen goes with it): a
 * publication still in flight (quit with Ctrl-C, or a signal) and uncertain acknowledgements
 * not since found committed, each with the command that tells its outcome.
 */
export function unsettledLines(s: TuiState): string[] {
  const check = (id: string) => `check with: fairway explain --request-id ${id}`;
  const lines: string[] = [];
  if (s.dialog?.phase === 'publishing') {
    lines.push(`fairway tui: request ${s.dialog.requestId} (${s.dialog.action}) was still being published when the browser closed; its outcome is unknown: ${check(s.dialog.requestId)}`);
  }
  for (const a of uncertainAcks(s)) {
    if (a.foundCommit === null) lines.push(`fairway tui: UNCERTAIN request ${a.requestId} (${a.action} x${a.targets}): ${check(a.requestId)}`);
  }
  return lines;
}
