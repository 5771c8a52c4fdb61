/** `/graphs` — every Work graph with its size and readiness mix. */
import Link from 'next/link';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { workStatus } from '../../lib/console/views/status.ts';

export const dynamic = 'force-dynamic';

export default async function GraphsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const at = firstParam((await searchParams).at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const { projection } = view;
  const rows = [...projection.graphs].map(([graphId, ids]) => {
    const counts: Record<string, number> = {};
    for (const id of ids) {
      const r = workStatus(projection, projection.work(id)!, view.asOf).readiness;
      counts[r] = (counts[r] ?? 0) + 1;
    }
    const gates = new Set(ids.flatMap((id) => projection.work(id)!.dependsOn.filter((e) => e.kind !== 'work').map((e) => JSON.stringify(e))));
    return { graphId, nodes: ids.length, gates: gates.size, counts };
  });
  return (
    <Frame view={view} config={config} title="Graphs" path="/graphs">
      <div className="card">
        <table className="tbl" data-testid="graphs">
          <thead><tr><th>Graph</th><th className="num">Work</th><th className="num">Issue/PR gates</th><th>Readiness</th></tr></thead>
          <tbody>
            {rows.map((g) => (
              <tr key={g.graphId}>
                <td><Link prefetch={false} href={withAt(`/graphs/${encodeURIComponent(g.graphId)}`, at)}>{g.graphId}</Link></td>
                <td className="num">{g.nodes}</td>
                <td className="num">{g.gates}</td>
                <td className="text-xs text-slate-600">{Object.entries(g.counts).map(([k, n]) => `${k} ${n}`).join(' · ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Frame>
  );
}
