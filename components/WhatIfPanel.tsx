'use client';
/**
 * What-if (docs/console.md "Pages" `/fairness`): edit weights or mode and run the engine
 * simulator on the pool's current ready backlog; shows the next N grants under
 * the proposal next to the installed settings, with the differences marked.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

interface Settings {
  mode: 'weighted-priority' | 'strict-priority';
  class_weights: number[];
  accounting_weights: Record<string, number>;
}
interface Grant { priority: number; key: string }
interface Share { level: string; priority: number; key: string | null; weight: number; grants: number; target_share: number; actual_share: number }
interface Result {
  baseline: 'live' | 'fresh';
  rescaled: boolean;
  backlog: Array<{ key: string; priority: number; count: number }>;
  current: { grants: Grant[]; shares: Share[] };
  proposal: { grants: Grant[]; shares: Share[] };
  changed: number[];
}

const label = (k: string) => (k === '' ? '(default)' : k);
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;

export function WhatIfPanel({ pool, at, initial }: { pool: string; at: string | null; initial: Settings }) {
  const [settings, setSettings] = useState<Settings>(initial);
  const [grants, setGrants] = useState(12);
  const [baseline, setBaseline] = useState<'live' | 'fresh'>('live');
  const run = useMutation({
    mutationFn: async (): Promise<Result> => {
      const res = await fetch('/api/whatif', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pool, at, grants, settings, baseline }) });
      const out = (await res.json()) as { ok: boolean; result?: Result; error?: { code: string; message: string } };
      if (!res.ok || !out.ok || out.result === undefined) throw new Error(out.error ? `${out.error.code}: ${out.error.message}` : `HTTP ${res.status}`);
      return out.result;
    },
  });
  const r = run.data;
  const keyShares = (s: Share[]) => s.filter((x) => x.level === 'key');
  return (
    <div className="card" data-testid="whatif">
      <div className="card-h"><h2>What-if: next grants under a proposal</h2><span className="text-xs muted">the real scheduler on the current ready backlog</span></div>
      <div className="card-b space-y-4">
        <div className="flex flex-wrap items-end gap-4">
          <label className="flex flex-col"><span className="field-label">Mode</span>
            <select className="input" value={settings.mode} onChange={(e) => setSettings({ ...settings, mode: e.target.value as Settings['mode'] })} data-testid="whatif-mode">
              <option value="weighted-priority">weighted-priority</option><option value="strict-priority">strict-priority</option>
            </select>
          </label>
          <fieldset className="flex items-end gap-1"><legend className="field-label">Class weights P1–P5</legend>
            {settings.class_weights.map((w, i) => (
              <input key={i} type="number" min={1} max={1000} className="input w-16" aria-label={`class weight P${i + 1}`} value={w}
                onChange={(e) => setSettings({ ...settings, class_weights: settings.class_weights.map((x, j) => (j === i ? Number(e.target.value) : x)) })} />
            ))}
          </fieldset>
          <fieldset className="flex flex-wrap items-end gap-2"><legend className="field-label">Accounting weights</legend>
            {Object.entries(settings.accounting_weights).map(([k, w]) => (
              <label key={k} className="flex items-center gap-1 text-sm"><span>{label(k)}</span>
                <input type="number" min={1} max={1000} className="input w-16" aria-label={`weight ${label(k)}`} data-testid={`whatif-weight-${k === '' ? 'default' : k}`} value={w}
                  disabled={k === ''} onChange={(e) => setSettings({ ...settings, accounting_weights: { ...settings.accounting_weights, [k]: Number(e.target.value) } })} />
              </label>
            ))}
          </fieldset>
          <label className="flex flex-col"><span className="field-label">Start from</span>
            <select className="input" value={baseline} onChange={(e) => setBaseline(e.target.value as 'live' | 'fresh')} data-testid="whatif-baseline">
              <option value="live">the live fairness clocks</option><option value="fresh">fresh clocks (a new Policy epoch)</option>
            </select>
          </label>
          <label className="flex flex-col"><span className="field-label">Grants</span>
            <input type="number" min={1} max={500} className="input w-20" value={grants} onChange={(e) => setGrants(Number(e.target.value))} />
          </label>
          <button type="button" className="btn btn-primary" onClick={() => run.mutate()} disabled={run.isPending} data-testid="whatif-run">{run.isPending ? 'Simulating…' : 'Run simulation'}</button>
          <button type="button" className="btn" onClick={() => setSettings(initial)}>Reset</button>
        </div>
        {run.isError && <p role="alert" className="text-sm text-red-700">{(run.error as Error).message}</p>}
        {r !== undefined && (
          <div className="space-y-3" data-testid="whatif-result">
            <p className="text-sm">
              Backlog: {r.backlog.map((b) => `P${b.priority} ${label(b.key)} ×${b.count}`).join(', ') || 'nothing ready'} ·{' '}
              <strong data-testid="whatif-changed">{r.changed.length}</strong> of {Math.max(r.current.grants.length, r.proposal.grants.length)} decisions differ.
            </p>
            <p className="text-xs muted" data-testid="whatif-baseline-label">
              {r.baseline === 'live'
                ? `Both runs start from the live fairness clocks and active sets, so the installed run's first grant is the scheduler's next pick (fairway explain)${r.rescaled ? '; the proposal changes the tick scale, so the live passes were rescaled to it' : ''}.`
                : 'Both runs start from fresh clocks, as a new Policy epoch does (spec 7.10): the difference is the settings alone.'}
            </p>
            <div className="grid gap-4 lg:grid-cols-2">
              {(['current', 'proposal'] as const).map((which) => (
                <div key={which}>
                  <div className="field-label">{which === 'current' ? 'Installed settings' : 'Proposal'}</div>
                  <ol className="flex flex-wrap gap-1 text-xs" data-testid={`whatif-${which}`}>
                    {r[which].grants.map((g, i) => (
                      <li key={i} className={`rounded px-1.5 py-0.5 font-mono ${r.changed.includes(i) ? 'bg-amber-200 text-amber-950 ring-1 ring-amber-500' : 'bg-slate-100'}`}>{i + 1}. P{g.priority} {label(g.key)}</li>
                    ))}
                  </ol>
                  <table className="tbl mt-2 text-xs">
                    <thead><tr><th>Class</th><th>Key</th><th className="num">Grants</th><th className="num">Target</th><th className="num">Actual</th></tr></thead>
                    <tbody>{keyShares(r[which].shares).map((s) => (
                      <tr key={`${s.priority}-${s.key}`}><td>P{s.priority}</td><td>{label(s.key ?? '')}</td><td className="num">{s.grants}</td><td className="num">{pct(s.target_share)}</td><td className="num">{pct(s.actual_share)}</td></tr>
                    ))}</tbody>
                  </table>
                </div>
              ))}
            </div>
          </div>
        )}
      </div>
    </div>
  );
}
