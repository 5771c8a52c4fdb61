/** `/fairness` — sshare-style shares per pool and class, target vs actual chart, what-if (docs/console.md "Pages"). */
import Link from 'next/link';
import { Fragment } from 'react';
import { Frame, LoadError } from '../../components/Frame.tsx';
import { ShareChart } from '../../components/ShareChart.tsx';
import { WhatIfPanel } from '../../components/WhatIfPanel.tsx';
import { firstParam, loadView, withAt } from '../../lib/console/load.ts';
import { fairnessViewAcross, WINDOWS, type KeyRow } from '../../lib/console/views/fairness.ts';
import { formatDuration, keyLabel, percent, PRIORITY_NAMES } from '../../lib/console/views/format.ts';
import { currentSettings } from '../../lib/console/views/whatif.ts';

export const dynamic = 'force-dynamic';

function deficit(value: number | null) {
  if (value === null) return <span className="muted">—</span>;
  const tone = value > 0.5 ? 'text-amber-800' : value < -0.5 ? 'text-sky-800' : 'text-slate-700';
  return <span className={tone}>{value > 0 ? '+' : ''}{value.toFixed(1)}</span>;
}

function owed(value: number | null, decisions: number) {
  if (value === null) return <span className="muted">—</span>;
  return <span>{value.toFixed(1)} <span className="text-xs muted">({decisions})</span></span>;
}

function Pass({ value }: { value: string | null }) {
  return value === null ? <span className="muted">—</span> : <code className="text-xs" title="exact virtual pass (bigint ticks)">{value}</code>;
}

function KeyRows({ rows, priority }: { rows: KeyRow[]; priority: number }) {
  return (
    <>
      {rows.map((k) => (
        <tr key={k.key} data-testid="fair-key-row" data-key={k.key} data-priority={priority}>
          <td className="pl-8">{keyLabel(k.key)}</td>
          <td className="num">{k.weight}</td>
          <td className="num" data-testid="target-share">{percent(k.targetShare)}</td>
          <td className="num" data-testid="owed">{owed(k.owed, k.eligibleDecisions)}</td>
          <td className="num">{percent(k.actualShare)} <span className="text-xs muted">({k.grants})</span></td>
          <td className="num"><Pass value={k.pass} /></td>
          <td className="num"><code className="text-xs">{k.stride}</code></td>
          <td className="num">{deficit(k.deficit)}</td>
          <td className="num">{k.eligibleWork} / {k.backlog}</td>
          <td className="num">{formatDuration(k.oldestEligibleAge)}</td>
          <td className="num">{formatDuration(k.longestZeroService)}</td>
        </tr>
      ))}
    </>
  );
}

export default async function FairnessPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const at = firstParam(sp.at);
  const loaded = await loadView(at);
  if (!loaded.ok) return <LoadError code={loaded.code} message={loaded.message} />;
  const { view, config } = loaded;
  const windowParam = Number(firstParam(sp.window) ?? 100);
  const window = (WINDOWS as readonly number[]).includes(windowParam) ? windowParam : 100;
  // Grants a checkpoint replaced: their decisions from the ledgers at the checkpoints' prior Git commits.
  const f = await fairnessViewAcross(view.projection, view.asOf, firstParam(sp.pool), window, view.history);
  if (f === null) return <LoadError code="policy_missing" message="no Policy installed yet" />;
  const link = (patch: Record<string, string | number>) => withAt('/fairness', at, { pool: f.pool, window: f.window, ...patch });

  return (
    <Frame view={view} config={config} title="Fairness" path="/fairness"
      actions={
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span>Pool {f.pools.map((p) => p === f.pool ? <strong key={p} className="mx-1">{p}</strong> : <Link key={p} prefetch={false} className="mx-1" href={link({ pool: p })}>{p}</Link>)}</span>
          <span>Window {WINDOWS.map((w) => w === f.window ? <strong key={w} className="mx-1">{w === 0 ? 'all' : w}</strong> : <Link key={w} prefetch={false} className="mx-1" href={link({ window: w })}>{w === 0 ? 'all' : w}</Link>)} grants</span>
        </div>
      }>
      <p className="text-sm text-slate-600">
        Mode <strong>{f.mode}</strong> · epoch <code>{f.epoch}</code> · {f.windowGrants} grants in the window ({f.totalGrants} in total) · tick scales: class Q={f.classScale}, key Q={f.keyScale}.
        Target is the share now: weight ÷ the weights of the currently eligible siblings (no banked turns for idle keys).
        Owed sums, over the window&apos;s decisions at which a class (or a key, at its class&apos;s decisions) had eligible Work, its weight ÷ the weights eligible at that decision; deficit is owed minus received ({f.windowDecisions} of {f.windowGrants} decisions re-derived).
      </p>
      {f.compacted !== null && (
        <p className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-950" data-testid="fairness-compacted">
          {f.compacted.grants} of the window&apos;s grants were compacted into checkpoint <code>{f.compacted.checkpoint}</code>: the owed sums and deficits leave
          their decisions out. They are in the ledger at Git commit <code>{f.compacted.priorGitSha}</code>, which this console cannot read.
        </p>
      )}
      <div className="card overflow-x-auto">
        <table className="tbl" data-testid="fairness-table">
          <thead>
            <tr><th>Class / key</th><th className="num">Weight</th><th className="num">Target now</th><th className="num" title="grants owed over the decisions where it was eligible">Owed (eligible at)</th><th className="num">Actual (grants)</th><th className="num">Pass</th><th className="num">Stride</th><th className="num">Deficit</th><th className="num">Eligible / backlog</th><th className="num">Oldest eligible</th><th className="num">Longest zero-service</th></tr>
          </thead>
          <tbody>
            {f.classes.map((c) => (
              <Fragment key={c.priority}>
                <tr className="bg-slate-50 font-medium" data-testid="fair-class-row">
                  <td>{PRIORITY_NAMES[c.priority]}</td>
                  <td className="num">{c.weight}</td>
                  <td className="num">{percent(c.targetShare)}</td>
                  <td className="num">{owed(c.owed, c.eligibleDecisions)}</td>
                  <td className="num">{percent(c.actualShare)} <span className="text-xs muted">({c.grants})</span></td>
                  <td className="num"><Pass value={c.pass} /></td>
                  <td className="num"><code className="text-xs">{c.stride}</code></td>
                  <td className="num">{deficit(c.deficit)}</td>
                  <td className="num">{c.eligibleWork} / {c.backlog}</td>
                  <td /><td />
                </tr>
                <KeyRows rows={c.keys} priority={c.priority} />
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        {f.classes.filter((c) => c.keys.length > 1).map((c) => (
          <div key={c.priority} className="card card-b">
            <div className="field-label">{PRIORITY_NAMES[c.priority]}: target vs actual share within the class</div>
            <ShareChart title={`Class P${c.priority} target vs actual share`} rows={c.keys.map((k) => ({ key: k.key, target: k.targetShare, actual: k.actualShare }))} />
          </div>
        ))}
      </div>
      <WhatIfPanel pool={f.pool} at={at} initial={currentSettings(view.projection)} />
    </Frame>
  );
}
