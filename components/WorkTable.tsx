'use client';
/**
 * The explorer's table with multi-select for administrator bulk actions.
 * Rows are server-rendered data; every string is rendered as text (escaped).
 */
import Link from 'next/link';
import { useState } from 'react';
import { ActionDialog, type AdminActionName, type Target } from './ActionDialog.tsx';
import { Chip, PriorityBadge, ReadinessBadge, ReasonBadge, StateBadge } from './Badge.tsx';

export interface WorkRow {
  workId: string;
  graphId: string;
  nodeKey: string;
  priority: number;
  admittedPriority: number;
  key: string;
  state: string;
  readiness: string;
  reason: string;
  currentClaim: string | null;
  attempts: number;
  admitted: string;
  /** Age, time waiting and time running, formatted ('—' when not applicable). */
  age: string;
  waiting: string;
  running: string;
  href: string;
  graphHref: string;
  /** Backing Issue bound in the ledger (docs/backing-issues.md). */
  issue?: { number: string; url: string | null } | null;
}

/** A sortable column header: its link sorts by the column (or flips the direction when already sorted by it). */
export interface SortHeader {
  column: string;
  label: string;
  href: string;
  /** Sorted by this column now, and which way. */
  active: 'asc' | 'desc' | null;
  numeric?: boolean;
}

function Header({ h }: { h: SortHeader }) {
  const arrow = h.active === 'asc' ? ' ▲' : h.active === 'desc' ? ' ▼' : '';
  return (
    <th className={h.numeric === true ? 'num' : undefined} aria-sort={h.active === 'asc' ? 'ascending' : h.active === 'desc' ? 'descending' : 'none'}>
      <Link prefetch={false} href={h.href} data-testid={`sort-${h.column}`} className="text-inherit hover:underline" title={`sort by ${h.label.toLowerCase()}`}>{h.label}{arrow}</Link>
    </th>
  );
}

type Pending = { action: AdminActionName; title: string; description: string; targets: Target[]; body: Record<string, unknown>; danger: boolean };

export function WorkTable({ rows, admin, headers }: { rows: WorkRow[]; admin: boolean; headers: SortHeader[] }) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [pending, setPending] = useState<Pending | null>(null);
  const chosen = rows.filter((r) => selected.has(r.workId));
  const toggle = (id: string) => setSelected((s) => {
    const next = new Set(s);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });
  const allOnPage = rows.length > 0 && rows.every((r) => selected.has(r.workId));
  const open = chosen.filter((r) => r.state === 'available' || r.state === 'claimed');
  const available = chosen.filter((r) => r.state === 'available');
  const claimed = chosen.filter((r) => r.currentClaim !== null);

  return (
    <div className="card overflow-hidden">
      {admin && (
        <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-amber-50 px-4 py-2 text-sm" data-testid="bulk-bar">
          <span className="font-medium">{chosen.length} selected</span>
          <button type="button" className="btn" disabled={available.length === 0} onClick={() => setPending({
            action: 'reprioritize', title: `Reprioritize ${available.length} Work`, danger: false,
            description: 'A compare-and-set priority override for future grants of available Work. FIFO positions and past charges are kept.',
            targets: available.map((r) => ({ id: r.workId, label: `${r.nodeKey} (P${r.priority})` })), body: { work_ids: available.map((r) => r.workId) },
          })}>Reprioritize…</button>
          <button type="button" className="btn" disabled={open.length === 0} onClick={() => setPending({
            action: 'cancel-work', title: `Cancel ${open.length} Work`, danger: true,
            description: 'Terminal WorkCancellation. A claimed Work keeps its Claim\u2019s slot until the worker demonstrably stops; dependents report dependency_failed.',
            targets: open.map((r) => ({ id: r.workId, label: r.nodeKey })), body: { work_ids: open.map((r) => r.workId) },
          })}>Cancel work…</button>
          <button type="button" className="btn" disabled={claimed.length === 0} onClick={() => setPending({
            action: 'cancel-claim', title: `Cancel ${claimed.length} Claim(s)`, danger: true,
            description: 'Revokes the exact current Claims\u2019 authority and terminally cancels their Work. It does not stop the native run or free its reservation.',
            targets: claimed.map((r) => ({ id: r.currentClaim!, label: `Claim on ${r.nodeKey}` })), body: { claim_ids: claimed.map((r) => r.currentClaim!) },
          })}>Cancel claim…</button>
          {chosen.length > 0 && <button type="button" className="ml-auto text-xs text-slate-600 underline" onClick={() => setSelected(new Set())}>clear selection</button>}
        </div>
      )}
      <div className="overflow-x-auto">
        <table className="tbl" data-testid="work-table">
          <thead>
            <tr>
              {admin && (
                <th className="w-8"><input type="checkbox" aria-label="select page" checked={allOnPage} onChange={() => setSelected(allOnPage ? new Set() : new Set(rows.map((r) => r.workId)))} /></th>
              )}
              {headers.map((h) => <Header key={h.column} h={h} />)}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.workId} data-testid="work-row" data-key={r.key}>
                {admin && <td><input type="checkbox" aria-label={`select ${r.nodeKey}`} checked={selected.has(r.workId)} onChange={() => toggle(r.workId)} /></td>}
                <td className="max-w-[34ch] truncate"><Link prefetch={false} href={r.href} title={r.nodeKey}>{r.nodeKey}</Link>{r.issue != null && (r.issue.url !== null ? <a className="ml-1 text-xs" href={r.issue.url} rel="noreferrer" target="_blank" data-testid="backing-issue-link">#{r.issue.number}</a> : <span className="ml-1 text-xs muted">#{r.issue.number}</span>)}</td>
                <td className="max-w-[22ch] truncate"><Link prefetch={false} href={r.graphHref} className="text-slate-700">{r.graphId}</Link></td>
                <td><PriorityBadge priority={r.priority} admitted={r.admittedPriority} /></td>
                <td>{r.key === '' ? <span className="muted">(default)</span> : r.key}</td>
                <td><StateBadge state={r.state} /></td>
                <td><ReadinessBadge readiness={r.readiness} /></td>
                <td>{r.readiness === 'ready' ? <Chip tone="ok">eligible</Chip> : r.readiness === 'waiting' ? <ReasonBadge code={r.reason} /> : <span className="text-xs muted">{r.reason}</span>}</td>
                <td className="num">{r.attempts}</td>
                <td className="whitespace-nowrap text-xs text-slate-600" title={`admitted ${r.admitted}`} data-testid="work-age">{r.age}</td>
                <td className="num whitespace-nowrap text-xs" data-testid="work-waiting">{r.waiting}</td>
                <td className="num whitespace-nowrap text-xs" data-testid="work-running">{r.running}</td>
              </tr>
            ))}
            {rows.length === 0 && <tr><td colSpan={headers.length + (admin ? 1 : 0)} className="py-6 text-center muted">No Work matches these filters.</td></tr>}
          </tbody>
        </table>
      </div>
      {pending !== null && <ActionDialog {...pending} onClose={() => setPending(null)} />}
    </div>
  );
}
