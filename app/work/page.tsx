/** `/work` — the explorer (issue 5 §2): URL-serialized filters, server-side pagination, reasons, multi-select. */
import { ExplorerFilters } from '../../components/ExplorerFilters.tsx';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { Pager } from '../../components/Pager.tsx';
import { WorkTable, type WorkRow } from '../../components/WorkTable.tsx';
import { currentViewer } from '../../lib/auth/session.ts';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { explorerView, parseExplorerQuery, serializeExplorerQuery } from '../../lib/console/views/explorer.ts';
import { formatTime } from '../../lib/console/views/format.ts';

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
    href: withAt(`/work/${encodeURIComponent(r.workId)}`, at),
    graphHref: withAt(`/graphs/${encodeURIComponent(r.graphId)}`, at),
    issue: r.issue,
  }));
  const admin = viewer?.role === 'administrator' && view.at === null && !loaded.runtime.readOnly;
  return (
    <Frame view={view} config={config} title="Work" path={`/work${serializeExplorerQuery({ ...v.query, page: 1 })}`}
      actions={<span className="text-sm muted" data-testid="explorer-total">{v.total} of {v.all} Work · page {v.page} of {v.pages}</span>}>
      <ExplorerFilters query={v.query} at={at} facets={v.facets} />
      <WorkTable rows={rows} admin={admin} />
      <Pager page={v.page} pages={v.pages} href={(p) => `/work${serializeExplorerQuery({ ...v.query, page: p }, at)}`} />
    </Frame>
  );
}
