'use client';
/**
 * The confirmation dialog of every administrator action (docs/console.md "Pages" `/admin`):
 * it lists the exact targets, requires a reason code, publishes once under a
 * request id fixed when the dialog opened (a double click or a retry is the
 * same logical request), and lands on the receipt.
 * Before Confirm it asks the server for a preview (docs/console.md "Previews"): each target's
 * name, state and current owner as the live ledger has them, whether the
 * preconditions hold (unknown ids, wrong states and no-ops are refused here,
 * with Confirm disabled), and the exact operations it will publish. Confirm
 * sends their digest; the server refuses with preview_stale if the queue
 * moved and the operations would differ.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import type { AdminAction } from '../engine/requests/admin-actions.ts';

/** The actions this dialog confirms (a Policy has its own editor). */
export type AdminActionName = Exclude<AdminAction, 'policy'>;

export interface Target {
  id: string;
  label: string;
}

interface PreviewTarget { id: string; kind: string; exists: boolean; name: string | null; state: string | null; priority: number | null; owner: string | null }
type Preview =
  | { status: 'loading' }
  | { status: 'ok'; key: string; tip: string | null; targets: PreviewTarget[]; operations: unknown[]; digest: string }
  | { status: 'refused'; key: string; code: string; message: string };

function targetText(t: PreviewTarget): string {
  if (!t.exists) return 'does not exist';
  const parts = [t.name ?? t.id];
  if (t.state !== null) parts.push(t.state);
  if (t.priority !== null) parts.push(`P${t.priority}`);
  if (t.owner !== null) parts.push(t.kind === 'claim' ? `on Work ${t.owner}` : `owned by Claim ${t.owner}`);
  return parts.join(' · ');
}

const REASON = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

const DEFAULT_REASON: Record<AdminActionName, string> = {
  control: 'operator.maintenance',
  'cancel-claim': 'operator_cancelled',
  'cancel-work': 'operator_cancelled',
  reprioritize: 'operator_reprioritized',
  'run-again': 'operator_rerun',
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
  const fields = useMemo(() => ({ ...body, reason, ...(action === 'reprioritize' ? { priority } : {}) }), [body, reason, priority, action]);
  const previewKey = JSON.stringify(fields);
  const [preview, setPreview] = useState<Preview>({ status: 'loading' });

  useEffect(() => {
    if (!reasonOk) return;
    const controller = new AbortController();
    setPreview({ status: 'loading' });
    const timer = setTimeout(() => {
      fetch('/api/admin/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action, body: JSON.parse(previewKey) as unknown }), signal: controller.signal })
        .then(async (res) => {
          const out = (await res.json().catch(() => null)) as { ok?: boolean; tip?: string | null; targets?: PreviewTarget[]; operations?: unknown[]; operations_sha256?: string; error?: { code: string; message: string } } | null;
          if (out?.ok === true && out.operations !== undefined && out.operations_sha256 !== undefined) {
            setPreview({ status: 'ok', key: previewKey, tip: out.tip ?? null, targets: out.targets ?? [], operations: out.operations, digest: out.operations_sha256 });
          } else {
            setPreview({ status: 'refused', key: previewKey, code: out?.error?.code ?? `http_${res.status}`, message: out?.error?.message ?? 'the preview failed' });
          }
        })
        .catch((e: unknown) => {
          if (!controller.signal.aborted) setPreview({ status: 'refused', key: previewKey, code: 'network_error', message: e instanceof Error ? e.message : String(e) });
        });
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [action, previewKey, reasonOk]);
  const previewed = preview.status === 'ok' && preview.key === previewKey ? preview : null;
  const byId = new Map((previewed?.targets ?? []).map((t) => [t.id, t]));

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      if (previewed === null) return;
      const payload = { ...fields, request_id: requestId, expect_operations_sha256: previewed.digest };
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
                <li key={t.id} className="flex justify-between gap-3 py-0.5" data-testid="action-target" data-exists={byId.get(t.id)?.exists === false ? 'false' : 'true'}>
                  <span className={`truncate ${byId.get(t.id)?.exists === false ? 'text-red-700' : ''}`}>{byId.has(t.id) ? targetText(byId.get(t.id)!) : t.label}</span>
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
          <div>
            <div className="field-label">What Confirm will publish</div>
            {!reasonOk ? <p className="text-xs muted">Enter a valid reason code to see the preview.</p>
              : preview.status === 'loading' || (preview.status !== 'refused' && previewed === null) ? <p className="text-xs muted" data-testid="action-preview-loading">Checking the targets and preconditions against the live ledger…</p>
              : preview.status === 'refused' ? (
                <div role="alert" data-testid="action-precondition" data-code={preview.code} className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
                  Refused before publishing: <code>{preview.code}</code>: {preview.message}
                </div>
              ) : previewed !== null && (
                <>
                  <p className="text-xs text-emerald-800" data-testid="action-precondition" data-code="ok">
                    Preconditions hold at tip <code title={previewed.tip ?? ''}>{previewed.tip === null ? '—' : `${previewed.tip.slice(0, 14)}…`}</code>: {previewed.operations.length} operation(s), all or nothing.
                  </p>
                  <pre data-testid="action-preview" className="max-h-48 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-[11px] leading-tight">{JSON.stringify(previewed.operations, null, 2)}</pre>
                </>
              )}
          </div>
          <p className="text-xs muted">Request id <code>{requestId}</code> · published through the checked publisher as your administrator identity.</p>
          {error !== null && (
            <div role="alert" className="rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
              <code>{error.code}</code>: {error.message}
            </div>
          )}
        </div>
        <div className="flex justify-end gap-2 border-t border-slate-200 px-4 py-3">
          <button type="button" className="btn" onClick={onClose} disabled={busy}>Cancel</button>
          <button type="button" className={`btn ${danger ? 'btn-danger' : 'btn-primary'}`} onClick={() => void confirm()} disabled={busy || !reasonOk || previewed === null} data-testid="action-confirm">
            {busy ? 'Publishing…' : 'Confirm and publish'}
          </button>
        </div>
      </div>
    </div>
  );
}
