'use client';
/** Open Claims with multi-select for cancel-claim. */
import { useState } from 'react';
import { ActionDialog } from '../ActionDialog.tsx';

export interface OpenClaimRow {
  claimId: string;
  workId: string;
  nodeKey: string;
  dispatchState: string;
  granted: string;
  requestId: string;
  workHref: string;
  receiptHref: string;
  runId: string | null;
  runUrl: string | null;
}

function CopyId({ id }: { id: string }) {
  return (
    <span className="flex items-center gap-1">
      {/* The full id is in the text (select and copy it); only its display is truncated. */}
      <span className="mono inline-block max-w-[22ch] truncate text-xs" title={id} data-testid="claim-id">{id}</span>
      <button type="button" className="text-xs underline" aria-label={`copy ${id}`} onClick={() => void navigator.clipboard?.writeText(id)}>copy</button>
    </span>
  );
}

export function OpenClaims({ rows }: { rows: OpenClaimRow[] }) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [open, setOpen] = useState(false);
  const chosen = rows.filter((r) => selected.has(r.claimId));
  return (
    <div>
      <table className="tbl" data-testid="open-claims">
        <thead><tr><th className="w-8" /><th>Work</th><th>Claim</th><th>Launch</th><th>Run</th><th>Granted</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.claimId}>
              <td><input type="checkbox" aria-label={`select claim on ${r.nodeKey}`} checked={selected.has(r.claimId)} onChange={() => setSelected((s) => {
                const next = new Set(s);
                if (next.has(r.claimId)) next.delete(r.claimId);
                else next.add(r.claimId);
                return next;
              })} /></td>
              <td className="max-w-[30ch] truncate"><a href={r.workHref} title={r.workId}>{r.nodeKey}</a></td>
              <td><CopyId id={r.claimId} /></td>
              <td className="text-xs">{r.dispatchState}</td>
              <td className="text-xs">{r.runUrl !== null ? <a href={r.runUrl} rel="noreferrer" target="_blank">run {r.runId}</a> : r.runId !== null ? `run ${r.runId}` : <span className="muted">—</span>}</td>
              <td className="whitespace-nowrap text-xs"><a href={r.receiptHref} title={`receipt of ${r.requestId}`}>{r.granted}</a></td>
            </tr>
          ))}
          {rows.length === 0 && <tr><td colSpan={6} className="muted">No open Claims.</td></tr>}
        </tbody>
      </table>
      <div className="mt-2">
        <button type="button" className="btn btn-danger" disabled={chosen.length === 0} onClick={() => setOpen(true)} data-testid="cancel-claims">Cancel {chosen.length} Claim(s)…</button>
      </div>
      {open && (
        <ActionDialog
          action="cancel-claim"
          title={`Cancel ${chosen.length} Claim(s)`}
          description="Atomically revokes the exact current Claims' authority and terminally cancels their Work. It does not stop the native worker run or free its reservation: reconciliation does that with evidence."
          targets={chosen.map((r) => ({ id: r.claimId, label: `Claim on ${r.nodeKey} (${r.dispatchState})` }))}
          body={{ claim_ids: chosen.map((r) => r.claimId) }}
          danger
          onClose={() => setOpen(false)}
        />
      )}
    </div>
  );
}
