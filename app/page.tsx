/** `/` — the overview (docs/console.md "Pages"). */
import Link from 'next/link';
import { ReasonBadge, StateBadge } from '../components/Badge.tsx';
import { Frame, LoadError } from '../components/Frame.tsx';
import { HeadroomGauge } from '../components/HeadroomGauge.tsx';
import { Id, IdLink } from '../components/Ids.tsx';
import { Stat } from '../components/Stat.tsx';
import { firstParam, loadView, withAt } from '../lib/console/load.ts';
import { formatDuration, formatShort, formatTime, keyLabel, PRIORITY_NAMES } from '../lib/console/views/format.ts';
import { headroomGauge } from '../lib/console/views/headroom.ts';
import { controlLedgers, overviewView } from '../lib/console/views/overview.ts';
import { READINESS } from '../lib/console/views/status.ts';

export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;

export default async function OverviewPage({ searchParams }: { searchParams: Search }) {
  const at = firstParam((await searchParams).at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  // Control commits a checkpoint replaced: read from the ledgers at the checkpoints' prior Git commits.
  const v = overviewView(view.projection, view.asOf, await controlLedgers(view.projection, view.history));
  const s = v.summary;
  const receipt = (id: string) => withAt(`/receipts/${encodeURIComponent(id)}`, at);

  return (
    <Frame view={view} config={config} title="Overview" path="/">
      <section className="grid gap-3 md:grid-cols-2 xl:grid-cols-4">
        <div className="card card-b space-y-1">
          <div className="field-label">Tip</div>
          <div className="mono text-sm" data-testid="tip"><Id id={s.tip} length={16} /></div>
          <div className="text-xs muted">{s.commits} commits · {s.requests} requests · {s.repository}</div>
        </div>
        <div className="card card-b space-y-1">
          <div className="field-label">Policy</div>
          <div className="text-sm"><code>{s.policy?.epoch ?? '—'}</code> · <strong>{s.policy?.mode ?? '—'}</strong></div>
          <div className="text-xs muted">{s.policy?.epochs ?? 0} epoch(s) installed</div>
        </div>
        <div className="card card-b space-y-1" data-testid="controls">
          <div className="field-label">Controls</div>
          <div className="flex flex-wrap gap-2 text-sm">
            <span>grants {s.controls.grants_paused ? <strong className="rounded bg-red-600 px-1.5 text-white" data-testid="grants-state">grants_paused</strong> : <span className="text-emerald-700" data-testid="grants-state">open</span>}</span>
            <span>admission {s.controls.admission_paused ? <strong className="rounded bg-orange-500 px-1.5 text-white">admission_paused</strong> : <span className="text-emerald-700">open</span>}</span>
          </div>
          <div className="text-xs muted">credential generation <code>{s.controls.credential_generation}</code></div>
        </div>
        <div className="card card-b space-y-1">
          <div className="field-label">Evaluated at</div>
          <div className="text-sm">{formatTime(view.asOf)}</div>
          <div className="text-xs muted">{view.at === null ? 'now (live)' : 'the pinned commit\u2019s decision time'}</div>
        </div>
      </section>

      <HeadroomGauge gauge={headroomGauge(view.projection.envelope())} compactHref={withAt('/compact', at)} />

      <section className="card" data-testid="counts">
        <div className="card-h"><h2>Work by state and readiness</h2><span className="text-xs muted">{s.works.total} Work · {s.claims.total} Claims
          {v.backingIssues.linked > 0 && <span data-testid="backing-issues"> · backing Issues: {v.backingIssues.linked} bound, {v.backingIssues.unlinked} pending projection</span>}</span></div>
        <div className="card-b grid gap-4 lg:grid-cols-3">
          <div className="grid grid-cols-4 gap-2">
            {Object.entries(s.works.by_state).map(([state, n]) => (
              <Stat key={state} label={state} value={n} href={withAt('/work', at, { state })} testId={`count-${state}`} />
            ))}
          </div>
          <div className="grid grid-cols-4 gap-2 lg:col-span-2 xl:grid-cols-7">
            {READINESS.map((r) => <Stat key={r} label={r} value={v.readiness[r]} href={withAt('/work', at, { readiness: r })} testId={`readiness-${r}`} />)}
          </div>
        </div>
      </section>

      <section className="grid gap-4 xl:grid-cols-3">
        <div className="card">
          <div className="card-h"><h2>Reservations</h2></div>
          <table className="tbl">
            <thead><tr><th>Pool</th><th className="num">Logical</th><th className="num">Native</th></tr></thead>
            <tbody>
              {v.capacity.map((c) => (
                <tr key={c.pool}><td className="mono">{c.pool}</td><td className="num">{c.logical} / {c.logicalLimit}</td><td className="num">{c.native} / {c.nativeLimit}</td></tr>
              ))}
            </tbody>
          </table>
          <div className="px-4 py-2 text-xs muted">Claims: {s.claims.open} open · {s.claims.completed} completed · {s.claims.cancelled} cancelled</div>
        </div>
        <div className="card">
          <div className="card-h"><h2>Uncertain or unresolved launches</h2><span className="text-xs muted">{v.launches.length}</span></div>
          {v.launches.length === 0 ? <p className="card-b muted">None: every started launch is bound or released.</p> : (
            <table className="tbl">
              <thead><tr><th>Dispatch</th><th>State</th><th className="num">Claims</th><th>Request</th></tr></thead>
              <tbody>
                {v.launches.map((l) => (
                  <tr key={l.dispatchId}><td><Id id={l.dispatchId} /></td><td><ReasonBadge code={l.state} />{l.reason === 'run_binding_conflict' && <span className="ml-1"><ReasonBadge code={l.reason} /></span>}</td><td className="num">{l.claims}</td><td><IdLink id={l.requestId} href={receipt(l.requestId)} length={24} /></td></tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div className="card">
          <div className="card-h"><h2>Pending delivery barriers</h2><span className="text-xs muted">{s.barriers.pending}</span></div>
          {v.pendingBarriers.length === 0 ? <p className="card-b muted">None: every completed Work has a Result or a DeliveryFailure.</p> : (
            <table className="tbl">
              <thead><tr><th>Work</th><th>Completed</th></tr></thead>
              <tbody>
                {v.pendingBarriers.map((p) => (
                  <tr key={p.workId}><td><Link prefetch={false} href={withAt(`/work/${encodeURIComponent(p.workId)}`, at)}>{p.nodeKey}</Link></td><td>{formatTime(p.completionAt)}</td></tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="px-4 py-2 text-xs muted">Barriers: {s.barriers.verified} verified · {s.barriers.failed} failed</div>
        </div>
      </section>

      <section className="grid gap-4 xl:grid-cols-5">
        <div className="card xl:col-span-3">
          <div className="card-h"><h2>Backlog by class and key</h2><Link prefetch={false} href={withAt('/fairness', at)} className="text-xs">fairness →</Link></div>
          <table className="tbl" data-testid="backlog">
            <thead><tr><th>Pool</th><th>Class</th><th>Fairness key</th><th className="num">Available</th><th className="num">Ready</th><th className="num">Oldest eligible</th></tr></thead>
            <tbody>
              {v.backlog.map((b) => (
                <tr key={`${b.pool}-${b.priority}-${b.key}`}>
                  <td className="mono">{b.pool}</td>
                  <td>{PRIORITY_NAMES[b.priority]}</td>
                  <td><Link prefetch={false} href={withAt('/work', at, { key: b.key === '' ? '(default)' : b.key, priority: b.priority })}>{keyLabel(b.key)}</Link></td>
                  <td className="num">{b.available}</td>
                  <td className="num">{b.ready}</td>
                  <td className="num">{formatDuration(b.oldestEligibleAge)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="card xl:col-span-2" data-testid="pause-history">
          <div className="card-h"><h2>Paused-controls history</h2><span className="text-xs muted">{v.pauses.length} period(s)</span></div>
          {v.controlsCompacted !== null && (
            <p className="card-b text-sm text-amber-900" data-testid="controls-compacted">
              {v.controlsCompacted.commits} earlier control commit(s) were compacted into checkpoint <Id id={v.controlsCompacted.checkpoint} />: they are in the
              ledger at Git commit <code>{v.controlsCompacted.priorGitSha}</code>, which this console cannot read, and this history leaves them out.
            </p>
          )}
          {v.pauses.length === 0 ? <p className="card-b muted">No pauses recorded.</p> : (
            <div className="overflow-x-auto"><table className="tbl">
              <thead><tr><th>Control</th><th>Paused</th><th>Resumed</th><th className="num">For</th><th>Reason</th></tr></thead>
              <tbody>
                {[...v.pauses].reverse().map((p) => (
                  <tr key={`${p.control}-${p.from}`}>
                    <td><code className="font-semibold text-red-700">{p.control}</code></td>
                    <td className="whitespace-nowrap"><Link prefetch={false} href={receipt(p.pausedBy)} title={formatTime(p.from)}>{formatShort(p.from)}</Link></td>
                    <td className="whitespace-nowrap">{p.to === null ? <strong className="text-red-700">still paused</strong> : <Link prefetch={false} href={receipt(p.resumedBy!)} title={formatTime(p.to)}>{formatShort(p.to)}</Link>}</td>
                    <td className="num whitespace-nowrap">{formatDuration((p.to ?? view.asOf) - p.from)}</td>
                    <td className="break-all"><code>{p.reason}</code></td>
                  </tr>
                ))}
              </tbody>
            </table></div>
          )}
        </div>
      </section>

      <section className="card">
        <div className="card-h"><h2>Recent receipts</h2><Link prefetch={false} href={withAt('/commits', at)} className="text-xs">all commits →</Link></div>
        <table className="tbl" data-testid="recent">
          <thead><tr><th>When</th><th>Request</th><th>Kind</th><th>Role</th><th className="num">Ops</th><th>Commit</th></tr></thead>
          <tbody>
            {v.recent.map((r) => (
              <tr key={r.commitId}>
                <td className="whitespace-nowrap">{formatTime(r.at)}</td>
                <td><Link prefetch={false} href={receipt(r.requestId)} className="mono">{r.requestId}</Link></td>
                <td><StateBadge state={r.kind} /></td>
                <td>{r.role}</td>
                <td className="num">{r.operations}</td>
                <td><IdLink id={r.commitId} href={`/?at=${encodeURIComponent(r.commitId)}`} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Frame>
  );
}
