/** `/commits` — paginated history and a two-commit comparison (docs/console.md "Pages"). */
import { isProtocolError } from '../../engine/errors.ts';
import Link from 'next/link';
import { StateBadge } from '../../components/Badge.tsx';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { IdLink } from '../../components/Ids.tsx';
import { Pager } from '../../components/Pager.tsx';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { commitsPage, compareCommits, type Comparison } from '../../lib/console/views/commits.ts';
import { formatTime } from '../../lib/console/views/format.ts';
import type { ProjectionSummary } from '../../engine/replay/index.ts';

export const dynamic = 'force-dynamic';

function counts(s: ProjectionSummary): Array<[string, string | number]> {
  return [
    ['available', s.works.by_state.available], ['claimed', s.works.by_state.claimed], ['completed', s.works.by_state.completed],
    ['cancelled', s.works.by_state.cancelled], ['open Claims', s.claims.open], ['pending barriers', s.barriers.pending],
    ['grants', s.controls.grants_paused ? 'paused' : 'open'], ['admission', s.controls.admission_paused ? 'paused' : 'open'],
  ];
}

function CompareView({ c }: { c: Comparison }) {
  const before = counts(c.before);
  const after = counts(c.after);
  return (
    <section className="card" data-testid="comparison">
      <div className="card-h">
        <h2>What changed from <code>{c.from.id.slice(0, 12)}…</code> to <code>{c.to.id.slice(0, 12)}…</code></h2>
        <span className="text-xs muted">{c.commits} commit(s), {formatTime(c.from.at)} → {formatTime(c.to.at)}</span>
      </div>
      <div className="card-b grid gap-4 lg:grid-cols-3">
        <div>
          <div className="field-label">Operations between</div>
          <table className="tbl text-sm">
            <tbody>
              {Object.entries(c.tally).map(([g, n]) => <tr key={g}><td>{g}</td><td className="num font-semibold">{n}</td></tr>)}
            </tbody>
          </table>
        </div>
        <div className="lg:col-span-2">
          <div className="field-label">State at both ends</div>
          <table className="tbl text-sm">
            <thead><tr><th /><th className="num">Before</th><th className="num">After</th></tr></thead>
            <tbody>
              {before.map(([name, v], i) => (
                <tr key={name} className={String(v) !== String(after[i]![1]) ? 'font-semibold text-blue-900' : ''}><td>{name}</td><td className="num">{v}</td><td className="num">{after[i]![1]}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <div className="max-h-96 overflow-auto border-t border-slate-200">
        <table className="tbl text-sm">
          <thead><tr><th>When</th><th>Group</th><th>Operation</th><th>Target</th><th>Detail</th></tr></thead>
          <tbody>
            {c.listed.map((o, i) => (
              <tr key={i}>
                <td className="whitespace-nowrap">{formatTime(o.at)}</td>
                <td>{o.group}</td>
                <td>{o.kind}</td>
                <td className="max-w-[30ch] truncate">{o.workId !== null ? <Link prefetch={false} href={`/work/${encodeURIComponent(o.workId)}?at=${encodeURIComponent(c.to.id)}`}>{o.nodeKey ?? o.workId}</Link> : '—'}</td>
                <td className="text-xs">{o.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {c.truncated && <p className="px-4 py-2 text-xs muted">Listing truncated; the tallies above count everything.</p>}
      </div>
    </section>
  );
}

export default async function CommitsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const at = firstParam(sp.at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config, runtime } = loaded;
  const page = commitsPage(view.projection, Number(firstParam(sp.page) ?? 1) || 1);
  const from = firstParam(sp.from);
  const to = firstParam(sp.to);
  let comparison: Comparison | null = null;
  let compareError: string | null = null;
  if (from !== null && to !== null) {
    try {
      const live = view.live.projection;
      comparison = compareCommits(live, runtime.prefix(live, from), runtime.prefix(live, to));
    } catch (e) {
      if (!isProtocolError(e)) throw e; // a bug, never shown as a verdict on the commits
      compareError = 'both commits must be in the validated ledger';
    }
  }
  const total = view.projection.commitCount;
  return (
    <Frame view={view} config={config} title="Commits" path="/commits" actions={<span className="text-sm muted">{total} commits</span>}>
      <form method="get" action="/commits" className="card card-b flex flex-wrap items-end gap-3" data-testid="compare-form">
        <label className="flex flex-col"><span className="field-label">Compare from commit</span><input className="input w-80 font-mono" name="from" defaultValue={from ?? ''} placeholder="q_… (older)" /></label>
        <label className="flex flex-col"><span className="field-label">to commit</span><input className="input w-80 font-mono" name="to" defaultValue={to ?? view.projection.tip ?? ''} placeholder="q_… (newer)" /></label>
        {at !== null && <input type="hidden" name="at" value={at} />}
        <button className="btn btn-primary" type="submit">Compare</button>
        <span className="text-xs muted">Tip: use “from” / “to” in the table below.</span>
      </form>
      {compareError !== null && <p role="alert" className="text-sm text-red-700">{compareError}</p>}
      {comparison !== null && <CompareView c={comparison} />}
      <div className="card overflow-x-auto">
        <table className="tbl" data-testid="commits">
          <thead><tr><th className="num">#</th><th>When</th><th>Commit</th><th>Kind</th><th>Role</th><th>Request</th><th className="num">Ops</th><th>Compare</th></tr></thead>
          <tbody>
            {page.commits.map((c) => {
              const n = view.projection.commitPosition(c.id)! + 1;
              return (
                <tr key={c.id}>
                  <td className="num">{n}</td>
                  <td className="whitespace-nowrap">{formatTime(c.at)}</td>
                  <td><IdLink id={c.id} href={`/?at=${encodeURIComponent(c.id)}`} length={14} /></td>
                  <td><StateBadge state={c.kind} /></td>
                  <td>{c.role}</td>
                  <td><Link prefetch={false} href={withAt(`/receipts/${encodeURIComponent(c.requestId)}`, at)} className="mono">{c.requestId}</Link></td>
                  <td className="num">{c.operations}</td>
                  <td className="whitespace-nowrap text-xs">
                    <Link prefetch={false} href={withAt('/commits', at, { from: c.id, to: to ?? view.projection.tip })}>from</Link>{' · '}
                    <Link prefetch={false} href={withAt('/commits', at, { from: from ?? view.projection.commits[0]!.id, to: c.id })}>to</Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <Pager page={page.page} pages={page.pages} href={(p) => withAt('/commits', at, { page: p, from, to })} />
    </Frame>
  );
}
