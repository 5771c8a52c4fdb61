'use client';
/**
 * Explorer filters. Submitting writes the canonical query string (the same
 * serializer the server uses), so the URL is the state and round-trips.
 */
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { serializeExplorerQuery, type ExplorerQuery } from '../lib/console/views/explorer-query.ts';
import { READINESS } from '../lib/console/views/readiness.ts';

const STATES = ['available', 'claimed', 'completed', 'cancelled'];

export function ExplorerFilters({ query, at, facets }: {
  query: ExplorerQuery;
  at: string | null;
  facets: { graphs: string[]; pools: string[]; keys: string[]; reasons: Array<[string, number]> };
}) {
  const router = useRouter();
  const [q, setQ] = useState<ExplorerQuery>({ ...query, page: 1 });
  const set = (patch: Partial<ExplorerQuery>) => setQ((old) => ({ ...old, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    router.push(`/work${serializeExplorerQuery({ ...q, page: 1 }, at)}`);
  };
  const select = (name: string, value: string | null, options: Array<[string, string]>, onChange: (v: string | null) => void) => (
    <label className="flex flex-col">
      <span className="field-label">{name}</span>
      <select className="input min-w-[9rem]" name={name} value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
        <option value="">any</option>
        {options.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
      </select>
    </label>
  );
  return (
    <form onSubmit={submit} className="card card-b flex flex-wrap items-end gap-3" data-testid="explorer-filters">
      {select('graph', q.graph, facets.graphs.map((g) => [g, g]), (v) => set({ graph: v }))}
      {select('pool', q.pool, facets.pools.map((p) => [p, p]), (v) => set({ pool: v }))}
      {select('state', q.state, STATES.map((s) => [s, s]), (v) => set({ state: v as ExplorerQuery['state'] }))}
      {select('readiness', q.readiness, READINESS.map((r) => [r, r]), (v) => set({ readiness: v as ExplorerQuery['readiness'] }))}
      {select('priority', q.priority === null ? null : String(q.priority), [1, 2, 3, 4, 5].map((p) => [String(p), `P${p}`]), (v) => set({ priority: v === null ? null : Number(v) }))}
      {select('key', q.key === null ? null : q.key === '' ? '(default)' : q.key, facets.keys.map((k) => [k === '' ? '(default)' : k, k === '' ? '(default)' : k]), (v) => set({ key: v === null ? null : v === '(default)' ? '' : v }))}
      {select('reason', q.reason, facets.reasons.map(([r, n]) => [r, `${r} (${n})`]), (v) => set({ reason: v }))}
      <label className="flex flex-col">
        <span className="field-label">search</span>
        <input className="input w-56" name="q" placeholder="node key, graph, id prefix" value={q.q ?? ''} onChange={(e) => set({ q: e.target.value === '' ? null : e.target.value })} />
      </label>
      <button type="submit" className="btn btn-primary" data-testid="apply-filters">Apply</button>
      <button type="button" className="btn" onClick={() => router.push(`/work${serializeExplorerQuery({}, at)}`)}>Reset</button>
    </form>
  );
}
