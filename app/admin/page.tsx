/** `/admin` — administrator actions; the role is checked on the server (docs/console.md "Pages", "Authentication and roles"). */
import Link from 'next/link';
import { ControlButtons } from '../../components/admin/ControlButtons.tsx';
import { OpenClaims, type OpenClaimRow } from '../../components/admin/OpenClaims.tsx';
import { PolicyEditor } from '../../components/admin/PolicyEditor.tsx';
import { WorkIdActions } from '../../components/admin/WorkIdActions.tsx';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { currentViewer } from '../../lib/auth/session.ts';
import { loadView } from '../../lib/console/load.ts';
import { openClaimTargets } from '../../lib/console/views/admin-targets.ts';
import { formatTime } from '../../lib/console/views/format.ts';

export const dynamic = 'force-dynamic';

export default async function AdminPage() {
  const viewer = await currentViewer().catch(() => null);
  const loaded = await loadView(null);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config, runtime } = loaded;
  if (viewer === null || viewer.role !== 'administrator') {
    return (
      <Frame view={view} config={config} title="Admin" path="/admin">
        <div className="card card-b max-w-xl space-y-2" data-testid="admin-locked">
          <p>{viewer === null ? 'Administrator actions need a signed-in administrator.' : 'You are signed in as an observer: read-only.'}</p>
          <p className="text-sm muted">The server checks the role on every action; hiding buttons is not the protection.</p>
          <Link prefetch={false} className="btn btn-primary" href="/login?callbackUrl=/admin">Sign in</Link>
        </div>
      </Frame>
    );
  }
  const openClaims: OpenClaimRow[] = openClaimTargets(view.projection, runtime.githubHost).map((c) => ({ ...c, granted: formatTime(c.grantedAt) }));
  const blockers = view.projection.quiescence().map((b) => b.text);
  return (
    <Frame view={view} config={config} title="Admin" path="/admin" actions={<span className="text-sm muted">Signed in as {viewer.name} · publishing as principal {viewer.principal}</span>}>
      {runtime.readOnly && <div role="alert" className="rounded border border-amber-400 bg-amber-50 px-4 py-2 text-sm">This console reads a ledger file: actions cannot be published.</div>}
      <div className="grid gap-4 lg:grid-cols-2">
        <section className="card">
          <div className="card-h"><h2>Operational controls</h2></div>
          <div className="card-b"><ControlButtons controls={{ grants_paused: view.projection.controls.grants_paused, admission_paused: view.projection.controls.admission_paused }} /></div>
        </section>
        <section className="card">
          <div className="card-h"><h2>Cancel or reprioritize Work</h2><Link prefetch={false} href="/work" className="text-xs">or select in the explorer →</Link></div>
          <div className="card-b"><WorkIdActions /></div>
        </section>
      </div>
      <section className="card">
        <div className="card-h"><h2>Open Claims</h2><span className="text-xs muted">{openClaims.length}</span></div>
        <div className="card-b"><OpenClaims rows={openClaims} /></div>
      </section>
      <section className="card">
        <div className="card-h"><h2>New policy epoch</h2><span className="text-xs muted">current <code>{view.projection.policyEpoch}</code></span></div>
        <div className="card-b">
          <PolicyEditor current={JSON.stringify(view.projection.policy ?? {}, null, 2)} currentEpoch={view.projection.policyEpoch ?? 'epoch'} blockers={blockers} />
        </div>
      </section>
    </Frame>
  );
}
