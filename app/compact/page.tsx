/** `/compact` — what `fairway compact` would retain (spec 7.10, 7.17; docs/operating-envelope.md "Operators and agents"): a preview, nothing is written. */
import Link from 'next/link';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { compactionPreview } from '../../lib/console/views/headroom.ts';

export const dynamic = 'force-dynamic';

export default async function CompactPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const at = firstParam((await searchParams).at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const p = compactionPreview(view.projection, view.asOf);
  const r = p.retained;
  return (
    <Frame view={view} config={config} title="What compact would retain" path="/compact">
      <section className="card" data-testid="compact-preview" data-already={String(p.alreadyCompact)}>
        <div className="card-h"><h2>Compaction preview</h2><Link prefetch={false} href={withAt('/', at)} className="text-xs">← overview</Link></div>
        <div className="card-b space-y-3 text-sm">
          <p>
            {p.alreadyCompact
              ? 'The ledger is already a single checkpoint root: compact would change nothing.'
              : <>`fairway compact` would replace <strong data-testid="compact-replaced">{p.replacedCommits}</strong> commits with one checkpoint root. Earlier history stays reachable through the prior Git commit.</>}
          </p>
          <dl className="grid grid-cols-2 gap-x-4 gap-y-1 md:grid-cols-4">
            <div><dt className="field-label">Bytes now</dt><dd className="tabular-nums" data-testid="compact-before" data-value={p.bytesBefore}>{p.bytesBefore}</dd></div>
            <div><dt className="field-label">Bytes retained</dt><dd className="tabular-nums" data-testid="compact-after" data-value={p.bytesAfter}>{p.bytesAfter}</dd></div>
            <div><dt className="field-label">Admission budget after</dt><dd className="tabular-nums" data-testid="compact-admission-after" data-value={p.after.admission_remaining}>{p.after.admission_remaining}</dd></div>
            <div><dt className="field-label">Lifecycle bytes owed</dt><dd className="tabular-nums" data-testid="compact-owed" data-value={p.after.reserve}>{p.after.reserve}</dd></div>
          </dl>
          <table className="tbl" data-testid="compact-retained">
            <thead><tr><th>Retained records</th><th className="num">All</th><th className="num">Open</th></tr></thead>
            <tbody>
              <tr><td>Work</td><td className="num">{r.works}</td><td className="num">{r.openWorks}</td></tr>
              <tr><td>Claims</td><td className="num">{r.claims}</td><td className="num">{r.openClaims}</td></tr>
              <tr><td>Dispatch groups</td><td className="num">{r.dispatches}</td><td className="num">{r.unreleasedDispatches}</td></tr>
              <tr><td>Request receipts</td><td className="num">{r.requests}</td><td className="num">—</td></tr>
            </tbody>
          </table>
          <p className="muted">A preview built and replayed in memory from the {view.at === null ? 'live' : 'pinned'} ledger; nothing is written. Fairness debt, positions, request ids and every Work, Claim and dispatch group are kept.</p>
        </div>
      </section>
    </Frame>
  );
}
