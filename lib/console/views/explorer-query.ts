/**
 * The explorer's URL state (docs/console.md "Pages" `/work`): every filter lives in the
 * query string in a canonical order, so a filtered view is a permalink and
 * the URL round-trips. Pure (no engine imports): the browser uses it too.
 */
import type { WorkState } from '../../../engine/state/state.ts';
import { READINESS, type Readiness } from './readiness.ts';

export const PAGE_SIZE = 50;
export const WORK_STATES: readonly WorkState[] = ['available', 'claimed', 'completed', 'cancelled'];

export interface ExplorerQuery {
  graph: string | null;
  pool: string | null;
  state: WorkState | null;
  readiness: Readiness | null;
  priority: number | null;
  /** Fairness key; the empty key is spelled `(default)` in URLs and forms. */
  key: string | null;
  reason: string | null;
  q: string | null;
  page: number;
  /** Sort column (default `fifo`, the queue's own order) and direction. */
  sort: SortColumn;
  dir: SortDir;
}

/** Columns the explorer sorts by (docs/console.md). */
export const SORT_COLUMNS = ['fifo', 'node', 'graph', 'priority', 'key', 'state', 'readiness', 'reason', 'attempts', 'age', 'waiting', 'running'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export type SortDir = 'asc' | 'desc';

/** The row fields a sort reads (durations in ms; null when not applicable). */
export interface SortableRow {
  fifo: number;
  nodeKey: string;
  graphId: string;
  priority: number;
  key: string;
  state: string;
  readiness: string;
  reason: string;
  attempts: number;
  ageMs: number;
  waitingMs: number | null;
  runningMs: number | null;
}

/** Columns whose first click sorts descending (longest, most first). */
const DESC_FIRST: ReadonlySet<SortColumn> = new Set(['attempts', 'age', 'waiting', 'running']);

const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function value(row: SortableRow, column: SortColumn): string | number | null {
  switch (column) {
    case 'fifo': return row.fifo;
    case 'node': return row.nodeKey;
    case 'graph': return row.graphId;
    case 'priority': return row.priority;
    case 'key': return row.key;
    case 'state': return row.state;
    case 'readiness': return row.readiness;
    case 'reason': return row.reason;
    case 'attempts': return row.attempts;
    case 'age': return row.ageMs;
    case 'waiting': return row.waitingMs;
    case 'running': return row.runningMs;
  }
}

/**
 * Orders rows by `column` in `dir`; rows without a value (no running time,
 * say) come last either way, and ties keep FIFO order, so a sort is total and
 * stable across pages.
 */
export function compareRows(column: SortColumn, dir: SortDir): (a: SortableRow, b: SortableRow) => number {
  const sign = dir === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = value(a, column);
    const y = value(b, column);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else {
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : text(String(x), String(y));
      if (c !== 0) return sign * c;
    }
    return a.fifo - b.fifo;
  };
}

/** The query a column header links to: that column (flipping the direction when it is already sorted by it), first page. */
export function sortedBy(query: ExplorerQuery, column: SortColumn): ExplorerQuery {
  const dir: SortDir = query.sort === column ? (query.dir === 'asc' ? 'desc' : 'asc') : DESC_FIRST.has(column) ? 'desc' : 'asc';
  return { ...query, sort: column, dir, page: 1 };
}

export const DEFAULT_KEY_TOKEN = '(default)';

type Params = URLSearchParams | Record<string, string | string[] | undefined>;

function get(params: Params, name: string): string | null {
  const raw = params instanceof URLSearchParams ? params.get(name) : params[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > 512 ? null : trimmed;
}

/** Lenient parse: unknown or malformed values are dropped, never an error page. */
export function parseExplorerQuery(params: Params): ExplorerQuery {
  const state = get(params, 'state');
  const readiness = get(params, 'readiness');
  const priority = Number(get(params, 'priority'));
  const page = Number(get(params, 'page'));
  const key = get(params, 'key');
  const sort = get(params, 'sort');
  return {
    graph: get(params, 'graph'),
    pool: get(params, 'pool'),
    state: WORK_STATES.includes(state as WorkState) ? (state as WorkState) : null,
    readiness: READINESS.includes(readiness as Readiness) ? (readiness as Readiness) : null,
    priority: Number.isInteger(priority) && priority >= 1 && priority <= 5 ? priority : null,
    key: key === DEFAULT_KEY_TOKEN ? '' : key,
    reason: get(params, 'reason'),
    q: get(params, 'q'),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    sort: SORT_COLUMNS.includes(sort as SortColumn) ? (sort as SortColumn) : 'fifo',
    dir: get(params, 'dir') === 'desc' ? 'desc' : 'asc',
  };
}

/** Canonical query string (fixed parameter order, defaults omitted); `at` is kept for time travel. */
export function serializeExplorerQuery(query: Partial<ExplorerQuery>, at?: string | null): string {
  const p = new URLSearchParams();
  if (query.graph) p.set('graph', query.graph);
  if (query.pool) p.set('pool', query.pool);
  if (query.state) p.set('state', query.state);
  if (query.readiness) p.set('readiness', query.readiness);
  if (query.priority) p.set('priority', String(query.priority));
  if (query.key !== null && query.key !== undefined) p.set('key', query.key === '' ? DEFAULT_KEY_TOKEN : query.key);
  if (query.reason) p.set('reason', query.reason);
  if (query.q) p.set('q', query.q);
  if (query.sort !== undefined && (query.sort !== 'fifo' || query.dir === 'desc')) p.set('sort', query.sort);
  if (query.dir === 'desc') p.set('dir', 'desc');
  if (query.page !== undefined && query.page > 1) p.set('page', String(query.page));
  if (at) p.set('at', at);
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

