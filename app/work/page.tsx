/** `/work` — the explorer (docs/console.md "Pages"): URL-serialized filters, server-side pagination, reasons, multi-select. */
import { ExplorerFilters } from '../../components/ExplorerFilters.tsx';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { Pager } from '../../components/Pager.tsx';
import { WorkTable, type SortHeader, type WorkRow } from '../../components/WorkTable.tsx';
import { currentViewer } from '../../lib/auth/session.ts';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { explorerView, parseExplorerQuery, serializeExplorerQuery, sortedBy, type SortColumn } from '../../lib/console/views/explorer.ts';
import { formatDuration, formatTime } from '../../lib/console/views/format.ts';

/** The table's columns in order, each sortable (docs/console.md). */
const COLUMNS: ReadonlyArray<readonly [SortColumn, string, boolean?]> = [
  ['node', 'Node'], ['graph', 'Graph'], ['priority', 'Class'], ['key', 'Key'], ['state', 'State'], ['readiness', 'Readiness'],
  ['reason', 'Why not running'], ['attempts', 'Attempts', true], ['age', 'Age'], ['waiting', 'Waiting', true], ['running', 'Running', true],
];

export const dynamic = 'force-dynamic';

export default async function ExplorerPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const at = firstParam(params.at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const viewer = await currentViewer().catch(() => null);
  const v = explorerView(view.projection, view.asOf, parseExplorerQuery(params));
  const rows: WorkRow[] = v.rows.map((r) => ({
    workId: r.workId, graphId: r.graphId, nodeKey: r.nodeKey, priority: r.priority, admittedPriority: r.admittedPriority, key: r.key,
    state: r.state, readiness: r.readiness, reason: r.reason, currentClaim: r.currentClaim, attempts: r.attempts,
    admitted: formatTime(r.admittedAt),
    age: formatDuration(r.ageMs),
    waiting: formatDuration(r.waitingMs),
    running: formatDuration(r.runningMs),
    href: withAt(`/work/${encodeURIComponent(r.workId)}`, at),
    graphHref: withAt(`/graphs/${encodeURIComponent(r.graphId)}`, at),
    issue: r.issue,
  }));
  const headers: SortHeader[] = COLUMNS.map(([column, label, numeric]) => ({
    column, label, numeric: numeric === true,
    href: `/work${serializeExplorerQuery(sortedBy(v.query, column), at)}`,
    active: v.query.sort === column ? v.query.dir : null,
  }));
  const admin = viewer?.role === 'administrator' && view.at === null && !loaded.runtime.readOnly;
  return (
    <Frame view={view} config={config} title="Work" path={`/work${serializeExplorerQuery({ ...v.query, page: 1 })}`}
      actions={<span className="text-sm muted" data-testid="explorer-total">{v.total} of {v.all} Work · page {v.page} of {v.pages}</span>}>
      <ExplorerFilters query={v.query} at={at} facets={v.facets} />
      <WorkTable rows={rows} admin={admin} headers={headers} />
      <Pager page={v.page} pages={v.pages} href={(p) => `/work${serializeExplorerQuery({ ...v.query, page: p }, at)}`} />
    </Frame>
  );
}
