/**
 * The Work explorer (docs/console.md "Pages" `/work`): filters by graph, pool, state,
 * readiness, priority, fairness key, reason and text, all serialized in the
 * URL (so a filtered view is a permalink), and server-side pagination in FIFO
 * order.
 */
import { commitTime } from '../../../engine/receipts/committed.ts';
import { backingIssue } from './backing-issue.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import type { WorkRecord, WorkState } from '../../../engine/replay/index.ts';
import { compareRows, PAGE_SIZE, type ExplorerQuery, type SortableRow } from './explorer-query.ts';
import { admittedAt, workStatus, type Readiness } from './status.ts';

export { DEFAULT_KEY_TOKEN, PAGE_SIZE, parseExplorerQuery, serializeExplorerQuery, sortedBy, SORT_COLUMNS, type ExplorerQuery, type SortColumn } from './explorer-query.ts';

function issueOf(projection: Projection, workId: string): ExplorerRow['issue'] {
  const b = backingIssue(projection, workId);
  return b === null ? null : { number: b.number, url: b.url };
}

export interface ExplorerRow extends SortableRow {
  workId: string;
  graphId: string;
  nodeKey: string;
  pool: string;
  priority: number;
  admittedPriority: number;
  key: string;
  state: WorkState;
  readiness: Readiness;
  reason: string;
  currentClaim: string | null;
  attempts: number;
  admittedAt: number;
  /** The ledger-bound backing Issue (docs/backing-issues.md), if any. */
  issue: { number: string; url: string | null } | null;
}

export interface ExplorerView {
  query: ExplorerQuery;
  rows: ExplorerRow[];
  total: number;
  /** Works before filtering. */
  all: number;
  page: number;
  pages: number;
  facets: { graphs: string[]; pools: string[]; keys: string[]; reasons: Array<[string, number]> };
}

/**
 * Age (since admission), time waiting (since it last became available: its
 * admission or its previous Claim's end, until its current Claim's grant or
 * `asOf`) and time running (its current Claim's grant to `asOf`, or its last
 * Claim's grant to that Claim's end). Null where it does not apply.
 */
export function durations(projection: Projection, work: WorkRecord, admitted: number, asOf: number): { ageMs: number; waitingMs: number | null; runningMs: number | null } {
  const claims = work.claims.map((id) => projection.claim(id)).filter((c) => c !== undefined);
  const last = claims[claims.length - 1];
  const previous = claims.length >= 2 ? claims[claims.length - 2]! : undefined;
  const ageMs = Math.max(0, asOf - admitted);
  if (work.state === 'available') {
    const since = last === undefined ? admitted : (commitTime(projection, last.terminalCommitId) ?? admitted);
    return { ageMs, waitingMs: Math.max(0, asOf - since), runningMs: null };
  }
  if (last === undefined) return { ageMs, waitingMs: null, runningMs: null };
  const granted = commitTime(projection, last.commitId) ?? admitted;
  const readySince = previous === undefined ? admitted : (commitTime(projection, previous.terminalCommitId) ?? admitted);
  const ended = work.state === 'claimed' ? asOf : (commitTime(projection, last.terminalCommitId) ?? asOf);
  return { ageMs, waitingMs: Math.max(0, granted - readySince), runningMs: Math.max(0, ended - granted) };
}

function matchesText(work: WorkRecord, needle: string): boolean {
  return (
    work.nodeKey.toLowerCase().includes(needle) ||
    work.graphId.toLowerCase().includes(needle) ||
    work.workId.startsWith(needle) ||
    work.fairnessKey.toLowerCase().includes(needle)
  );
}

export function explorerView(projection: Projection, asOf: number, query: ExplorerQuery): ExplorerView {
  const needle = query.q?.toLowerCase() ?? null;
  const graphs = new Set<string>();
  const pools = new Set<string>();
  const keys = new Set<string>();
  const reasons = new Map<string, number>();
  const matched: ExplorerRow[] = [];
  const works = [...projection.works()].sort((a, b) => a.fifo - b.fifo);
  for (const work of works) {
    graphs.add(work.graphId);
    pools.add(work.pool);
    keys.add(work.fairnessKey);
    if (query.graph !== null && work.graphId !== query.graph) continue;
    if (query.pool !== null && work.pool !== query.pool) continue;
    if (query.state !== null && work.state !== query.state) continue;
    if (query.priority !== null && work.effectivePriority !== query.priority) continue;
    if (query.key !== null && work.fairnessKey !== query.key) continue;
    if (needle !== null && !matchesText(work, needle)) continue;
    const status = workStatus(projection, work, asOf);
    reasons.set(status.reason, (reasons.get(status.reason) ?? 0) + 1);
    if (query.readiness !== null && status.readiness !== query.readiness) continue;
    if (query.reason !== null && status.reason !== query.reason) continue;
    const admitted = admittedAt(projection, work);
    matched.push({
      fifo: work.fifo,
      ...durations(projection, work, admitted, asOf),
      workId: work.workId,
      graphId: work.graphId,
      nodeKey: work.nodeKey,
      pool: work.pool,
      priority: work.effectivePriority,
      admittedPriority: work.priority,
      key: work.fairnessKey,
      state: work.state,
      readiness: status.readiness,
      reason: status.reason,
      currentClaim: work.state === 'claimed' ? work.currentClaim : null,
      attempts: work.attempts,
      admittedAt: admitted,
      issue: issueOf(projection, work.workId),
    });
  }
  if (query.sort !== 'fifo' || query.dir !== 'asc') matched.sort(compareRows(query.sort, query.dir));
  const pages = Math.max(1, Math.ceil(matched.length / PAGE_SIZE));
  const page = Math.min(query.page, pages);
  const sortText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    query: { ...query, page },
    rows: matched.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    total: matched.length,
    all: projection.workCount,
    page,
    pages,
    facets: {
      graphs: [...graphs].sort(sortText),
      pools: [...pools].sort(sortText),
      keys: [...keys].sort(sortText),
      reasons: [...reasons].sort((a, b) => b[1] - a[1]),
    },
  };
}
