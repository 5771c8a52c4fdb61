/** `/work/[id]` — one Work: definition, readiness and blocking path, Claims, barrier, history (docs/console.md "Pages"). */
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { PriorityBadge, ReadinessBadge, ReasonBadge, StateBadge } from '../../../components/Badge.tsx';
import { RunAgain } from '../../../components/admin/RunAgain.tsx';
import { WorkActions } from '../../../components/admin/WorkActions.tsx';
import { Frame, LoadError } from '../../../components/Frame.tsx';
import { currentViewer } from '../../../lib/auth/session.ts';
import { Id, IdLink } from '../../../components/Ids.tsx';
import { Mermaid } from '../../../components/Mermaid.tsx';
import { firstParam, loadView, routeParam, withAt } from '../../../lib/console/load.ts';
import { formatDuration, formatTime, keyLabel } from '../../../lib/console/views/format.ts';
import { positionText } from '../../../lib/console/views/line.ts';
import { reasonText } from '../../../lib/console/views/reasons.ts';
import { workDetail } from '../../../lib/console/views/work.ts';
import { ledgersBackTo } from '../../../lib/publisher/history.ts';
import { rerunNodeKey, runAgainKind } from '../../../engine/requests/run-again.ts';

export const dynamic = 'force-dynamic';

export default async function WorkPage({ params, searchParams }: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id: rawId } = await params;
  const id = routeParam(rawId);
  const at = firstParam((await searchParams).at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const admitted = view.projection.work(id)?.admittedCommit;
  if (admitted === undefined) notFound(); // HTTP 404; app/not-found.tsx names the missing id
  // A Work older than the checkpoint: what it does not keep is read from the ledgers at the checkpoints' prior Git commits.
  const d = workDetail(view.projection, id, view.asOf, loaded.runtime.githubHost, await ledgersBackTo(view.projection, admitted, view.history));
  if (d === null) notFound();
  const w = d.work;
  const viewer = await currentViewer().catch(() => null);
  const admin = viewer?.role === 'administrator' && !loaded.runtime.readOnly && at === null;
  const canAct = admin && (w.state === 'available' || w.state === 'claimed');
  const again = admin ? runAgainKind(w) : null;
  const work = (workId: string) => withAt(`/work/${encodeURIComponent(workId)}`, at);
  const receipt = (requestId: string) => withAt(`/receipts/${encodeURIComponent(requestId)}`, at);
  const commit = (commitId: string) => `/work/${encodeURIComponent(id)}?at=${encodeURIComponent(commitId)}`;
  // A commit read from an earlier ledger is not in the validated ledger: shown, not linked for time travel.
  const commitId = (c: string, length?: number) => (view.projection.commitPosition(c) === undefined ? <Id id={c} length={length} /> : <IdLink id={c} href={commit(c)} length={length} />);

  return (
    <Frame view={view} config={config} title={<span data-testid="work-title" className="break-all">{w.nodeKey}</span>} path={`/work/${encodeURIComponent(id)}`}
      actions={canAct ? <WorkActions workId={w.workId} nodeKey={w.nodeKey} state={w.state} priority={w.effectivePriority} />
        : again !== null ? <RunAgain workId={w.workId} nodeKey={w.nodeKey} kind={again} defaultKey={rerunNodeKey(view.projection, w)} /> : undefined}>
      <section className="grid gap-4 lg:grid-cols-3 lg:items-start">
        <div className="card lg:col-span-2">
          <div className="card-h"><h2>Status</h2><span className="text-xs muted">evaluated at {formatTime(view.asOf)}</span></div>
          <div className="card-b space-y-3">
            <div className="flex flex-wrap items-center gap-2" data-testid="work-status">
              <StateBadge state={w.state} />
              <ReadinessBadge readiness={d.status.readiness} />
              {d.status.reason !== d.status.readiness && <span data-testid="work-reason"><ReasonBadge code={d.status.reason} /></span>}
              <span className="text-sm text-slate-700">{reasonText(d.status.reason)}</span>
            </div>
            {d.backingIssue !== null && (
              <p className="text-sm" data-testid="work-backing-issue">
                Backing Issue:{' '}
                {d.backingIssue.url !== null
                  ? <a href={d.backingIssue.url} rel="noreferrer" target="_blank">{d.backingIssue.repository}#{d.backingIssue.number}</a>
                  : <span>{d.backingIssue.repository}#{d.backingIssue.number}</span>}
                <span className="muted"> · a mirror with {d.backingIssue.comments} comment(s); the ledger stays the authority</span>
              </p>
            )}
            {d.line !== null && (
              <p className="text-sm" data-testid="work-line-position">
                In line: <strong>{positionText(d.line)}</strong>
                {view.projection.controls.grants_paused && <span className="text-amber-800"> (grants are paused: the order resuming would grant in)</span>}
                {' · '}<Link prefetch={false} href={withAt('/next', at, { pool: w.pool })}>see the line</Link>
                {d.line.estimateMs !== null && d.line.rate !== null && (
                  <span className="muted"> · estimated start in ~{formatDuration(d.line.estimateMs)} (an estimate from the last {d.line.rate.grants} grants; assumes no new arrivals)</span>
                )}
              </p>
            )}
            {w.retryNotBefore !== null && w.state === 'available' && (
              <p className="text-sm">Retry not before <strong>{formatTime(w.retryNotBefore)}</strong>
                {w.retryNotBefore > view.asOf ? ` (in ${formatDuration(w.retryNotBefore - view.asOf)})` : ' (passed)'} · attempt {w.attempts} used.</p>
            )}
            {d.blocking !== null && (
              <div>
                <div className="field-label">Blocking path</div>
                <div className="rounded border border-slate-200 bg-white p-2">
                  <Mermaid text={d.blocking.mermaid} links={d.blocking.nodes} label="Blocking path" testId="blocking-diagram" />
                </div>
                {d.blocking.branches.length > 0 && (
                  <ol className="mt-2 space-y-1 text-sm" data-testid="blocking-steps">
                    {d.blocking.branches.map((branch, i) => (
                      <li key={i} className="flex flex-wrap items-center gap-2" data-testid="blocking-branch">
                        <span className="muted">{i + 1}.</span>
                        {branch.map((s, j) => (
                          <span key={j} className="flex flex-wrap items-center gap-1">
                            {j > 0 && <span className="muted" aria-label="waits on">←</span>}
                            <span>{s.kind === 'work' ? 'Work' : s.kind === 'issue' ? 'Issue gate' : 'PR gate'}</span>
                            {s.workId !== null ? <Link prefetch={false} href={work(s.workId)} title={s.workId}>{s.text}</Link> : s.href !== null ? <a href={s.href} rel="noreferrer">{s.text}</a> : <span>{s.text}</span>}
                            {s.condition !== null && <code>needs {s.condition}</code>}
                            <ReasonBadge code={s.reason} />
                          </span>
                        ))}
                      </li>
                    ))}
                    {d.blocking.more > 0 && (
                      <li><Link prefetch={false} href={withAt(`/graphs/${encodeURIComponent(w.graphId)}`, at, { focus: w.workId })}>+{d.blocking.more} more in the graph</Link></li>
                    )}
                  </ol>
                )}
                {d.blocking.branches.length === 0 && d.status.blockingPath.length > 0 && (
                  <ol className="mt-2 space-y-1 text-sm" data-testid="blocking-steps">
                    {d.status.blockingPath.map((s, i) => (
                      <li key={i} className="flex flex-wrap items-center gap-2">
                        <span className="muted">{i + 1}.</span>
                        <span>{s.kind === 'work' ? 'Work' : s.kind === 'issue' ? 'Issue gate' : 'PR gate'}</span>
                        {s.work_id !== undefined && (s.work_id === w.workId ? <span className="font-medium">this Work</span> : <IdLink id={s.work_id} href={work(s.work_id)} />)}
                        {s.condition !== undefined && <code>needs {s.condition}</code>}
                        <ReasonBadge code={s.reason} />
                      </li>
                    ))}
                  </ol>
                )}
              </div>
            )}
          </div>
        </div>
        <div className="card">
          <div className="card-h"><h2>Definition</h2></div>
          <dl className="card-b kv text-sm">
            <dt>Work id</dt><dd className="mono break-all text-xs">{w.workId}</dd>
            <dt>Graph</dt><dd><Link prefetch={false} href={withAt(`/graphs/${encodeURIComponent(w.graphId)}`, at, { focus: w.workId })}>{w.graphId}</Link></dd>
            <dt>Node key</dt><dd className="break-all">{w.nodeKey}</dd>
            <dt>Pool / profile</dt><dd><code>{w.pool}</code> / <code>{w.workerProfile}</code></dd>
            <dt>Priority</dt><dd><PriorityBadge priority={w.effectivePriority} admitted={w.priority} /> {w.effectivePriority !== w.priority && <span className="text-xs muted">admitted P{w.priority}</span>}</dd>
            <dt>Fairness key</dt><dd>{keyLabel(w.fairnessKey)}</dd>
            <dt>Admitted</dt><dd>{formatTime(d.admittedAt)} · <IdLink id={w.admittedCommit} href={commit(w.admittedCommit)} /></dd>
            <dt>Epoch</dt><dd><code>{w.policyEpoch}</code></dd>
            {d.replacementOf !== null && (<><dt>Replaces</dt><dd><Link prefetch={false} href={work(d.replacementOf.workId)}>{d.replacementOf.nodeKey ?? d.replacementOf.workId}</Link> <span className="text-xs muted">({d.replacementOf.disposition}, evidence {d.replacementOf.evidence})</span></dd></>)}
            {d.replacedBy.length > 0 && (<><dt>Replaced by</dt><dd>{d.replacedBy.map((r) => <Link key={r.workId} prefetch={false} href={work(r.workId)} className="mr-2">{r.nodeKey}</Link>)}</dd></>)}
          </dl>
          <details className="border-t border-slate-200 px-4 py-2" data-testid="payload">
            <summary className="cursor-pointer text-sm font-medium">Payload ({d.payloadJson.length} characters)</summary>
            <pre className="mt-2 max-h-80 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-3 text-slate-100">{d.payloadJson}</pre>
          </details>
        </div>
      </section>

      <section className="grid gap-4 lg:grid-cols-2">
        <div className="card">
          <div className="card-h"><h2>Depends on</h2><span className="text-xs muted">{d.dependencies.length}</span></div>
          <table className="tbl">
            <tbody>
              {d.dependencies.map((dep, i) => (
                <tr key={i}>
                  {dep.kind === 'work' ? (
                    <>
                      <td>Work</td>
                      <td><Link prefetch={false} href={work(dep.workId)}>{dep.nodeKey ?? dep.workId}</Link></td>
                      <td>{dep.state !== null && <StateBadge state={dep.state} />} {dep.barrier !== null && dep.barrier !== 'none' && <StateBadge state={dep.barrier} />}</td>
                      <td>{dep.satisfied ? '✓ satisfied' : <strong className="text-amber-800">unsatisfied</strong>}</td>
                    </>
                  ) : (
                    <>
                      <td>{dep.gate.kind === 'issue' ? 'Issue' : 'Pull request'}</td>
                      <td>{dep.gate.url ? <a href={dep.gate.url} rel="noopener noreferrer" target="_blank">{dep.gate.repository}#{dep.gate.number}</a> : `${dep.gate.repository}#${dep.gate.number}`} <code className="text-xs">needs {dep.gate.condition}</code></td>
                      <td className="text-xs">{dep.gate.observation === null ? 'no observation' : <>{dep.gate.observation.summary} · observed {formatTime(dep.gate.observation.observedAt)}</>}</td>
                      <td>{dep.satisfied ? '✓ satisfied' : <strong className="text-amber-800">unsatisfied</strong>}</td>
                    </>
                  )}
                </tr>
              ))}
              {d.dependencies.length === 0 && <tr><td className="muted">No dependencies: independent Work.</td></tr>}
            </tbody>
          </table>
        </div>
        <div className="card">
          <div className="card-h"><h2>Successors</h2><span className="text-xs muted">{d.successors.length}</span></div>
          <table className="tbl">
            <tbody>
              {d.successors.map((s) => (<tr key={s.workId}><td><Link prefetch={false} href={work(s.workId)}>{s.nodeKey}</Link></td><td><StateBadge state={s.state} /></td></tr>))}
              {d.successors.length === 0 && <tr><td className="muted">Nothing depends on this Work.</td></tr>}
            </tbody>
          </table>
        </div>
      </section>

      <section className="card">
        <div className="card-h"><h2>Claims</h2><span className="text-xs muted">{d.claims.length} attempt(s)</span></div>
        <div className="overflow-x-auto">
          <table className="tbl" data-testid="claims">
            <thead><tr><th>Claim</th><th>Granted</th><th>Request</th><th>Dispatch</th><th>Launch</th><th>Outcome</th><th>Ended</th><th>Retry not before</th></tr></thead>
            <tbody>
              {d.claims.map((c) => (
                <tr key={c.claimId}>
                  <td><Id id={c.claimId} /> <span className="text-xs muted">{c.handle}</span></td>
                  <td className="whitespace-nowrap">{formatTime(c.at)}</td>
                  <td><Link prefetch={false} href={receipt(c.requestId)} className="mono">{c.requestId}</Link></td>
                  <td><Id id={c.dispatchId} /></td>
                  <td><StateBadge state={c.dispatchState} />{c.runId !== null && (c.runUrl !== null ? <a className="ml-1 text-xs" href={c.runUrl} rel="noreferrer" target="_blank">run {c.runId}</a> : <span className="ml-1 text-xs muted">run {c.runId}</span>)}</td>
                  <td><StateBadge state={c.state} />{c.cancelReason !== null && <code className="ml-1 text-xs">{c.cancelReason}</code>}</td>
                  <td className="whitespace-nowrap">{formatTime(c.terminalAt)}</td>
                  <td className="whitespace-nowrap">{formatTime(c.retryNotBefore)}</td>
                </tr>
              ))}
              {d.claims.length === 0 && <tr><td colSpan={8} className="muted">Never granted.</td></tr>}
            </tbody>
          </table>
        </div>
        {(d.result !== null || d.deliveryFailure !== null || d.cancellation !== null) && (
          <div className="space-y-2 border-t border-slate-200 px-4 py-3 text-sm">
            {d.result !== null && (
              <details>
                <summary className="cursor-pointer"><strong className="text-emerald-700">Result</strong> verified {formatTime(d.result.at)} · <IdLink id={d.result.commitId} href={commit(d.result.commitId)} /></summary>
                <pre className="mt-2 max-h-60 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-3 text-slate-100">{d.result.descriptorJson}</pre>
              </details>
            )}
            {d.deliveryFailure !== null && (
              <p data-testid="delivery-failure"><strong className="text-red-700">DeliveryFailure</strong> {formatTime(d.deliveryFailure.at)} · <code>{d.deliveryFailure.reason}</code> · effects <code>{d.deliveryFailure.disposition}</code> · {d.deliveryFailure.commitId === null ? <span className="muted">commit compacted into the checkpoint{d.compacted !== null && <> (in the ledger at Git commit <code>{d.compacted.priorGitSha}</code>)</>}</span> : commitId(d.deliveryFailure.commitId)}</p>
            )}
            {d.cancellation !== null && (
              <p><strong>WorkCancellation</strong> {formatTime(d.cancellation.at)} · <code>{d.cancellation.reason}</code> · <IdLink id={d.cancellation.commitId} href={commit(d.cancellation.commitId)} /></p>
            )}
          </div>
        )}
      </section>

      <section className="card">
        <div className="card-h"><h2>Commits that touched it</h2><span className="text-xs muted">{d.history.length}</span></div>
        {d.compacted !== null && (
          <p className="card-b text-sm text-amber-900" data-testid="history-compacted">
            Commits before checkpoint <Id id={d.compacted.checkpoint} /> are not listed: they are in the ledger at Git commit <code>{d.compacted.priorGitSha}</code>, which this console cannot read.
          </p>
        )}
        <table className="tbl" data-testid="history">
          <thead><tr><th>When</th><th>Commit (time travel)</th><th>Kind</th><th>Request</th></tr></thead>
          <tbody>
            {d.history.map((h) => (
              <tr key={h.commitId}>
                <td className="whitespace-nowrap">{formatTime(h.at)}</td>
                <td>{commitId(h.commitId, 14)}</td>
                <td><StateBadge state={h.kind} /></td>
                <td><Link prefetch={false} href={receipt(h.requestId)} className="mono">{h.requestId}</Link></td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Frame>
  );
}
