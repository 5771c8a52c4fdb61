/** `/next` — the line: the predicted grant order of a pool's ready backlog from the live clocks (docs/console.md "Pages", `/next`). */
import Link from 'next/link';
import { PriorityBadge } from '../../components/Badge.tsx';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { formatDuration, keyLabel } from '../../lib/console/views/format.ts';
import { lineView } from '../../lib/console/views/line.ts';

export const dynamic = 'force-dynamic';

const PAGE = 200;

export default async function NextPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const at = firstParam(sp.at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const v = lineView(view.projection, view.asOf, firstParam(sp.pool));
  if (v === null) return <LoadError code="unknown_pool" message="no such pool in the installed Policy" />;
  const limit = Math.max(1, Math.min(Number(firstParam(sp.limit) ?? PAGE) || PAGE, 4096));
  const { line, rate } = v;
  const shown = line.entries.slice(0, limit);
  return (
    <Frame view={view} config={config} title="What runs next" path="/next">
      <section className="card">
        <div className="card-h">
          <h2>The line of pool <code>{v.pool}</code></h2>
          <span className="flex gap-2 text-xs">
            {v.pools.length > 1 && v.pools.map((p) => <Link key={p} prefetch={false} href={withAt('/next', at, { pool: p })}>{p}</Link>)}
          </span>
        </div>
        <div className="card-b space-y-2 text-sm" data-testid="line-summary">
          <p>
            The order in which the ready Work of this pool would be granted (<strong>{line.entries.length}</strong> in the line
            of its <strong>{line.available}</strong> available Work), absent new
            arrivals, computed by running the real scheduler forward from the live fairness clocks ({line.mode}).
            It changes when Work arrives in a higher-weight class, a key gets new Work, grants are paused, or a priority changes.
          </p>
          <p className="muted">
            Assumes running Claims finish as needed ({line.logical_outstanding} of {line.logical_limit} logical slots in use now) and the clock
            stays at the evaluation time: Work waiting on a retry backoff or a stale gate, or whose key is at its outstanding-Claim limit, is not in the line.
            {line.paused && <strong className="text-amber-800"> Grants are paused: this is what resuming would do.</strong>}
          </p>
          {rate !== null && (
            <p data-testid="line-rate">Estimate: about {rate.perHour.toFixed(1)} grants per hour, from the last {rate.grants} grants (over {formatDuration(rate.spanMs)}). Times below are estimates.</p>
          )}
        </div>
        <div className="overflow-auto border-t border-slate-200">
          <table className="tbl text-sm" data-testid="line-table">
            <thead><tr><th className="num">#</th><th>Work</th><th>Class</th><th>Key</th><th className="num">Class pass</th><th className="num">Key pass</th><th>Picked by</th><th className="num">Est. wait</th></tr></thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.work_id} data-testid="line-row" data-work-id={e.work_id}>
                  <td className="num">{e.position}</td>
                  <td className="break-all"><Link prefetch={false} href={withAt(`/work/${encodeURIComponent(e.work_id)}`, at)} title={e.work_id}>{e.node_key}</Link></td>
                  <td><PriorityBadge priority={e.priority} /></td>
                  <td>{keyLabel(e.fairness_key)} <span className="text-xs muted">of {e.keys_eligible}</span></td>
                  <td className="num"><code className="text-xs">{e.class_pass ?? '—'}</code></td>
                  <td className="num"><code className="text-xs">{e.key_pass}</code></td>
                  <td><code className="text-xs">{e.reason}</code></td>
                  <td className="num">{rate === null ? '—' : `~${formatDuration(((e.position - 1) / rate.perHour) * 3_600_000)}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {line.entries.length > shown.length && (
            <p className="p-3 text-sm">
              Showing {shown.length} of {line.entries.length}. <Link prefetch={false} href={withAt('/next', at, { pool: v.pool, limit: Math.min(line.entries.length, 4096) })}>Show all</Link>
            </p>
          )}
        </div>
      </section>
    </Frame>
  );
}
