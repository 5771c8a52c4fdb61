'use client';
/**
 * The confirmation dialog of every administrator action (issue 5 §2 `/admin`):
 * it lists the exact targets, requires a reason code, publishes once under a
 * request id fixed when the dialog opened (a double click or a retry is the
 * same logical request), and lands on the receipt.
 */
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';

export type AdminActionName = 'control' | 'cancel-claim' | 'cancel-work' | 'reprioritize';

export interface Target {
  id: string;
  label: string;
}

const REASON = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

const DEFAULT_REASON: Record<AdminActionName, string> = {
  control: 'operator.maintenance',
  'cancel-claim': 'operator_cancelled',
  'cancel-work': 'operator_cancelled',
  reprioritize: 'operator_reprioritized',
};

function newRequestId(action: AdminActionName): string {
  const random = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  return `console-${action}-${random}`;
}

export function ActionDialog({ action, title, description, targets, body, danger, initialPriority, onClose }: {
  action: AdminActionName;
  title: string;
  description: string;
  targets: Target[];
  /** The action's fields other than reason/priority/request_id. */
  body: Record<string, unknown>;
  danger?: boolean;
  initialPriority?: number;
  onClose: () => void;
}) {
  const router = useRouter();
  const requestId = useMemo(() => newRequestId(action), [action]);
  const [reason, setReason] = useState(DEFAULT_REASON[action]);
  const [priority, setPriority] = useState(initialPriority ?? 1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ code: string; message: string } | null>(null);
  const reasonOk = REASON.test(reason);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      const payload = { ...body, reason, request_id: requestId, ...(action === 'reprioritize' ? { priority } : {}) };
      const res = await fetch(`/api/admin/${action}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      const out = (await res.json().catch(() => null)) as { ok?: boolean; receipt_url?: string; error?: { code: string; message: string } } | null;
      if (!res.ok || out?.ok !== true || out.receipt_url === undefined) {
        setError(out?.error ?? { code: `http_${res.status}`, message: 'the action was not published' });
        setBusy(false);
        return;
      }
      router.push(out.receipt_url);
      router.refresh();
    } catch (e) {
      setError({ code: 'network_error', message: e instanceof Error ? e.message : String(e) });
      setBusy(false);
    }
  }

  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/50 p-4" role="dialog" aria-modal="true" aria-labelledby="action-title">
      <div className="card w-full max-w-xl">
        <div className="card-h"><h2 id="action-title">{title}</h2></div>
        <div className="card-b space-y-3">
          <p className="text-sm text-slate-700">{description}</p>
          <div>
            <div className="field-label">Exact targets ({targets.length})</div>
            <ul data-testid="action-targets" className="max-h-48 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-xs">
              {targets.map((t) => (
                <li key={t.id} className="flex justify-between gap-3 py-0.5">
                  <span className="truncate">{t.label}</span>
                  <code className="shrink-0 text-slate-500" title={t.id}>{t.id.length > 24 ? `${t.id.slice(0, 22)}…` : t.id}</code>
                </li>
              ))}
            </ul>
          </div>
          {action === 'reprioritize' && (
            <label className="block">
              <span className="field-label">New priority</span>
              <select className="input" value={priority} onChange={(e) => setPriority(Number(e.target.value))} data-testid="action-priority">
                {[1, 2, 3, 4, 5].map((p) => <option key={p} value={p}>P{p}</option>)}
              </select>
            </label>
          )}
          <label className="block">
            <span className="field-label">Reason code (required)</span>
            <input className="input w-full font-mono" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="action-reason" aria-invalid={!reasonOk} />
            {!reasonOk && <span className="text-xs text-red-700">Letters, digits and _ . : - only, starting with a letter or digit.</span>}
          </label>
          <p className="text-xs muted">Request id <code>{requestId}</code> · published through the checked publisher as your administrator identity.</p>
          {error !== null && (
            <div role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
              <code>{error.code}</code>: {error.message}
            </div>
          )}
        </div>
        <div className="flex justify-end gap-2 border-t border-slate-200 px-4 py-3">
          <button type="button" className="btn" onClick={onClose} disabled={busy}>Cancel</button>
          <button type="button" className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} onClick={() => void confirm()} disabled={busy || !reasonOk} data-testid="action-confirm">
            {busy ? 'Publishing…' : 'Confirm and publish'}
          </button>
        </div>
      </div>
    </div>
  );
}
