/** `/graphs/[id]` — the DAG in Mermaid, bounded for large graphs (docs/console.md "Pages"). */
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ReadinessBadge, ReasonBadge } from '../../../components/Badge.tsx';
import { Frame, LoadError } from '../../../components/Frame.tsx';
import { Mermaid } from '../../../components/Mermaid.tsx';
import { firstParam, loadView, routeParam, withAt } from '../../../lib/console/load.ts';
import { graphView, MAX_DRAWN } from '../../../lib/console/views/graph.ts';

export const dynamic = 'force-dynamic';

const MAX_ROWS = 500;
const SHAPES = [['▭', 'Work'], ['⬡', 'Issue gate'], ['▱', 'PR gate']] as const;

export default async function GraphPage({ params, searchParams }: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const graphId = routeParam((await params).id);
  const sp = await searchParams;
  const at = firstParam(sp.at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const g = graphView(view.projection, graphId, view.asOf, firstParam(sp.focus));
  if (g === null) notFound(); // HTTP 404; app/not-found.tsx names the missing id
  const self = `/graphs/${encodeURIComponent(graphId)}`;
  return (
    <Frame view={view} config={config} title={<>Graph <span className="break-all" data-testid="graph-title">{graphId}</span></>} path={self}
      actions={<span className="text-sm muted">{Object.entries(g.counts).map(([k, n]) => `${k} ${n}`).join(' · ')}</span>}>
      {g.drawn < g.total && (
        <div className="rounded-md border border-sky-300 bg-sky-50 px-4 py-2 text-sm text-sky-950" data-testid="graph-bounded">
          This graph has {g.total} vertices; {g.drawn} drawn individually (limit {MAX_DRAWN}){g.summarized > 0 && <>, {g.summarized} independent vertices counted per status</>} so the diagram stays readable.
          {g.focus === null ? ' Pick “focus” on a node below to see its neighbourhood.' : ' Showing the 2-hop neighbourhood of the focused node.'}
        </div>
      )}
      <div className="card card-b">
        <div className="mb-2 flex flex-wrap gap-4 text-xs text-slate-600">
          {SHAPES.map(([s, l]) => <span key={l}><span className="mr-1 text-base">{s}</span>{l}</span>)}
          <span>Colours: green ready · amber waiting · blue running · grey done · red failed. Click a node to open it.</span>
        </div>
        <Mermaid text={g.mermaid} links={g.nodes} label={`Graph ${graphId}`} testId="graph-diagram" />
      </div>
      <div className="card">
        <div className="card-h"><h2>Vertices</h2><span className="text-xs muted">{g.total}</span></div>
        <div className="max-h-[32rem] overflow-auto">
          <table className="tbl" data-testid="graph-nodes">
            <thead><tr><th>Vertex</th><th>Kind</th><th>Status</th><th>Reason</th><th>Drawn</th><th /></tr></thead>
            <tbody>
              {g.rows.slice(0, MAX_ROWS).map((r) => (
                <tr key={r.key} data-testid="graph-node-row">
                  <td className="max-w-[40ch] truncate">{r.href === null ? r.text : r.kind === 'work' ? <Link prefetch={false} href={withAt(r.href, at)}>{r.text}</Link> : <a href={r.href} target="_blank" rel="noopener noreferrer">{r.text}</a>}</td>
                  <td>{r.kind === 'work' ? 'Work' : r.kind === 'issue' ? 'Issue' : 'PR'}</td>
                  <td>{r.kind === 'work' ? <ReadinessBadge readiness={r.status} /> : r.status}</td>
                  <td>{r.kind === 'work' ? <ReasonBadge code={r.reason} /> : <span className="text-xs">{r.reason}</span>}</td>
                  <td>{r.drawn ? '✓' : ''}</td>
                  <td>{r.kind === 'work' && g.total > MAX_DRAWN && <Link prefetch={false} href={withAt(self, at, { focus: r.key.slice(2) })} className="text-xs">focus</Link>}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {g.rows.length > MAX_ROWS && (
            <p className="px-4 py-2 text-sm muted">Listing the first {MAX_ROWS}; <Link prefetch={false} href={withAt('/work', at, { graph: graphId })}>open all {g.total} in the explorer</Link>.</p>
          )}
        </div>
      </div>
    </Frame>
  );
}
