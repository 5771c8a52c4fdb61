/**
 * The explorer's URL state (issue 5 §2 `/work`): every filter lives in the
 * query string in a canonical order, so a filtered view is a permalink and
 * the URL round-trips. Pure (no engine imports): the browser uses it too.
 */
import type { WorkState } from '../../../engine/replay/state.ts';
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
  if (query.page !== undefined && query.page > 1) p.set('page', String(query.page));
  if (at) p.set('at', at);
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

