/** `/receipts/[requestId]` — the permalink receipt, derived from the ledger alone (docs/console.md "Pages", spec 7.13). */
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ReasonBadge, StateBadge } from '../../../components/Badge.tsx';
import { Frame, LoadError } from '../../../components/Frame.tsx';
import { Id, IdLink } from '../../../components/Ids.tsx';
import { Mermaid } from '../../../components/Mermaid.tsx';
import { firstParam, loadView, routeParam, withAt } from '../../../lib/console/load.ts';
import { formatTime, keyLabel } from '../../../lib/console/views/format.ts';
import type { ConflictView } from '../../../lib/console/views/lifecycle.ts';
import { receiptView } from '../../../lib/console/views/receipt.ts';
import { ledgerHolding } from '../../../lib/publisher/history.ts';
import type { Explanation } from '../../../engine/scheduler/plan-types.ts';

export const dynamic = 'force-dynamic';

function Candidates({ level, classes = false }: { level: NonNullable<Explanation['class']>; classes?: boolean }) {
  return (
    <table className="tbl text-xs">
      <thead><tr><th>Member</th><th className="num">Pass</th><th className="num">Stride</th><th>Entering</th></tr></thead>
      <tbody>
        {level.candidates.map((c) => (
          <tr key={c.member} className={c.member === level.selected ? 'font-semibold text-emerald-800' : ''}>
            <td>{c.member === level.selected ? '▶ ' : ''}{classes ? `P${c.member}` : c.member === '' ? '(default)' : c.member}</td>
            <td className="num"><code>{c.pass}</code></td>
            <td className="num"><code>{c.stride}</code></td>
            <td>{c.entering ? 'yes (clamped to V + stride)' : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ExplanationCard({ e, index, workHref }: { e: Explanation; index: number | null; workHref: (id: string) => string }) {
  return (
    <div className="rounded border border-slate-200 p-3" data-testid="explanation">
      <div className="mb-2 flex flex-wrap items-center gap-2 text-sm">
        {index !== null && <strong>Claim {index + 1}</strong>}
        <ReasonBadge code={e.reason} />
        {e.work !== null && <Link prefetch={false} href={workHref(e.work.work_id)}>{e.work.node_key}</Link>}
        {e.work !== null && <span className="text-xs muted">P{e.work.priority} · key {keyLabel(e.work.fairness_key)} · FIFO position ({e.work.position.ordinal}, {e.work.position.operation}) · {e.work.bucket_position} ineligible ahead in its bucket</span>}
      </div>
      <div className="grid gap-3 md:grid-cols-2">
        {e.class !== null && <div><div className="field-label">Class level: V {e.class.v_before} → {e.class.v_after}</div><Candidates level={e.class} classes /></div>}
        {e.key !== null && <div><div className="field-label">Key level (P{e.key.priority}): V {e.key.v_before} → {e.key.v_after}</div><Candidates level={e.key} /></div>}
      </div>
      <p className="mt-2 text-xs text-slate-600">
        Eligibility: {e.eligibility.available} available, {e.eligibility.eligible_buckets}/{e.eligibility.buckets} buckets eligible
        {Object.keys(e.eligibility.skipped).length > 0 && <> · skipped heads: {Object.entries(e.eligibility.skipped).map(([r, n]) => `${r} ${n}`).join(', ')}</>}
        {' '}· capacity logical {e.capacity.logical_before}→{e.capacity.logical_after} of {e.capacity.logical_limit}, native {e.capacity.native_outstanding} of {e.capacity.native_limit}
        {e.work !== null && e.work.observations.length > 0 && <> · observations bound: {e.work.observations.join(', ')}</>}
      </p>
    </div>
  );
}

/** A group's recorded run binding conflict: every candidate run, its terminal evidence, and the way out (spec 7.8). */
function ConflictCard({ c }: { c: ConflictView }) {
  return (
    <div className="border-t border-slate-200 px-4 py-3 text-sm" data-testid="dispatch-conflict">
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <strong>Run binding conflict</strong> of dispatch <Id id={c.dispatchId} /> <ReasonBadge code={c.code} />
        <span className="text-xs muted">
          {c.status === 'open' ? 'several runs carry this dispatch id: none may bind, capacity stays reserved'
            : c.status === 'resolved' ? `resolved by an administrator: bound to run ${c.boundRunId ?? '?'}` : 'released on exact terminal evidence'}
        </span>
      </div>
      <table className="tbl text-xs">
        <thead><tr><th>Candidate run</th><th>Exact terminal evidence</th></tr></thead>
        <tbody>
          {c.candidates.map((k) => (
            <tr key={k.runId}>
              <td>{k.runUrl !== null ? <a href={k.runUrl} rel="noreferrer" target="_blank">run {k.runId}</a> : <>run {k.runId}</>}{k.runId === c.boundRunId && <span className="ml-1 muted">(bound)</span>}</td>
              <td>{k.terminal ? 'recorded' : <span className="muted">not recorded</span>}</td>
            </tr>
          ))}
          {c.unnamed > 0 && <tr><td colSpan={2}>+{c.unnamed} candidate run(s) the receipt could not name</td></tr>}
        </tbody>
      </table>
      {c.wayOut.length > 0 && (
        <ul className="mt-2 list-disc pl-5 text-xs">
          {c.wayOut.map((w, i) => <li key={i}>{w}</li>)}
        </ul>
      )}
    </div>
  );
}

export default async function ReceiptPage({ params, searchParams }: {
  params: Promise<{ requestId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const requestId = routeParam((await params).requestId);
  const at = firstParam((await searchParams).at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config, runtime } = loaded;
  // A compacted request is explained from the pre-compaction ledger at the checkpoint's prior Git commit, if reachable.
  const committed = view.projection.request(requestId);
  const history = committed === undefined || view.projection.commitText(committed.commitId) !== undefined
    ? null
    : await ledgerHolding(runtime.store, view.projection, committed.commitId).catch(() => null);
  const r = receiptView(view.projection, requestId, runtime.githubHost, history);
  if (r === null) notFound(); // HTTP 404; app/not-found.tsx names the missing id
  const workHref = (id: string) => withAt(`/work/${encodeURIComponent(id)}`, at);
  const d = r.dispatch;

  return (
    <Frame view={view} config={config} title={<>Receipt <span className="mono break-all text-lg" data-testid="receipt-id">{r.requestId}</span></>} path={`/receipts/${encodeURIComponent(requestId)}`}>
      <section className="card" data-testid="receipt">
        <div className="card-h"><h2>Request</h2><StateBadge state={r.kind} /></div>
        <dl className="card-b kv text-sm">
          <dt>Request id</dt><dd className="mono">{r.requestId}</dd>
          <dt>Commit</dt><dd><IdLink id={r.commitId} href={`/?at=${encodeURIComponent(r.commitId)}`} length={20} /></dd>
          <dt>Source commit</dt><dd>{r.sourceCommit === null ? 'genesis' : <IdLink id={r.sourceCommit} href={`/?at=${encodeURIComponent(r.sourceCommit)}`} length={20} />}</dd>
          <dt>Decision time</dt><dd>{formatTime(r.at)}</dd>
          <dt>Policy epoch</dt><dd><code>{r.policyEpoch}</code></dd>
          <dt>Actor</dt><dd><code>{String(r.actor.role)}</code> · principal {String(r.actor.principal)}{r.actor.run_id !== undefined && <> · run {String(r.actor.run_id)}</>}</dd>
          {d !== null && (
            <>
              <dt>Pool</dt><dd><code>{d.pool}</code></dd>
              <dt>Claims</dt><dd data-testid="receipt-claims">requested {d.requested_claims} · granted <strong>{d.granted_claims}</strong></dd>
              <dt>Dispatches</dt><dd>requested {d.requested_dispatches} · reserved {d.reserved_dispatches}</dd>
              <dt>grant_status</dt><dd><ReasonBadge code={d.grant_status} /></dd>
              <dt>limiting_reason</dt><dd><ReasonBadge code={d.limiting_reason} /></dd>
              <dt>Status</dt><dd><ReasonBadge code={d.status} /> <span className="text-xs muted">as observed at tip <Id id={d.observed_tip} /></span></dd>
            </>
          )}
        </dl>
      </section>

      {r.compacted !== null && (
        <section className="card" data-testid="receipt-compacted">
          <div className="card-h"><h2>Explanation compacted away</h2><ReasonBadge code={r.compacted.code} /></div>
          <p className="card-b text-sm">
            This request&apos;s commit was replaced by checkpoint <Id id={r.compacted.checkpoint} />. Its operations and explanations are
            not in the current ledger, and the earlier ledger is not reachable here; it is at Git commit <code>{r.compacted.priorGitSha}</code>.
          </p>
        </section>
      )}

      {d !== null && (
        <>
          <section className="card">
            <div className="card-h"><h2>Claims and their planNext explanations</h2><span className="text-xs muted">re-derived from the predecessor prefix</span></div>
            <div className="card-b space-y-3">
              {r.explanations.map((e, i) => <ExplanationCard key={i} e={e} index={i} workHref={workHref} />)}
              {r.stop !== null && (
                <div className="text-sm">
                  <div className="mb-1 flex items-center gap-2"><span className="field-label mb-0">Why the fair prefix stopped</span><ReasonBadge code={r.stop.reason} /></div>
                  {r.stop.explanation !== null && <ExplanationCard e={r.stop.explanation} index={null} workHref={workHref} />}
                </div>
              )}
            </div>
          </section>
          <section className="card">
            <div className="card-h"><h2>Dispatch groups</h2></div>
            <table className="tbl">
              <thead><tr><th>Dispatch</th><th>Claims</th><th>Launch state</th><th>Run</th></tr></thead>
              <tbody>
                {d.dispatches.map((g) => (
                  <tr key={g.dispatch_id}><td><Id id={g.dispatch_id} /></td><td>{g.claim_ids.length}</td><td><ReasonBadge code={g.status} />{r.conflicts.some((c) => c.dispatchId === g.dispatch_id && c.status === 'open') && <span className="ml-1"><ReasonBadge code="run_binding_conflict" /></span>}</td><td>{g.run_id ?? '—'}</td></tr>
                ))}
              </tbody>
            </table>
            {r.conflicts.map((c) => <ConflictCard key={c.dispatchId} c={c} />)}
            <table className="tbl border-t border-slate-200">
              <thead><tr><th>Claim</th><th>Handle</th><th>Work</th><th>Finish</th></tr></thead>
              <tbody>
                {d.claims.map((c) => (
                  <tr key={c.claim_id}><td><Id id={c.claim_id} /></td><td>{c.handle}</td><td><Link prefetch={false} href={workHref(c.work_id)}>{view.projection.work(c.work_id)?.nodeKey ?? c.work_id}</Link></td><td><StateBadge state={c.finish} /></td></tr>
                ))}
              </tbody>
            </table>
          </section>
          <section className="card">
            <div className="card-h"><h2>Lifecycle</h2><span className="text-xs muted">{r.lifecycle.length} later event(s)</span></div>
            <div className="card-b">{r.sequence !== null && <Mermaid text={r.sequence} label="Lifecycle sequence" testId="lifecycle-diagram" />}</div>
            <table className="tbl">
              <thead><tr><th>When</th><th>Event</th><th>Detail</th><th>Request</th></tr></thead>
              <tbody>
                {r.lifecycle.map((e, i) => (
                  <tr key={i}><td className="whitespace-nowrap">{formatTime(e.at)}</td><td>{e.kind}</td><td className="text-xs">{e.detail}</td><td><Link prefetch={false} href={withAt(`/receipts/${encodeURIComponent(e.requestId)}`, at)} className="mono">{e.requestId}</Link></td></tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}

      <section className="card">
        <div className="card-h"><h2>Operations</h2><span className="text-xs muted">{r.operations.length} (payloads are never shown here)</span></div>
        <table className="tbl" data-testid="receipt-operations">
          <thead><tr><th>#</th><th>Kind</th><th>Target</th><th>Detail</th></tr></thead>
          <tbody>
            {r.operations.slice(0, 300).map((o, i) => (
              <tr key={i}>
                <td className="num">{i}</td>
                <td>{o.kind}</td>
                <td>{o.workId !== null ? <Link prefetch={false} href={workHref(o.workId)}>{o.nodeKey ?? o.workId}</Link> : o.dispatchId !== null ? <Id id={o.dispatchId} /> : o.claimId !== null ? <Id id={o.claimId} /> : '—'}</td>
                <td className="text-xs">{o.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Frame>
  );
}
