'use client';
/**
 * A new Policy epoch (docs/console.md "Pages" `/admin`): the Policy JSON validated live
 * with the engine's own zod schema; the quiescence blockers are listed and
 * publication is refused while any remain (the server and replay refuse too).
 * Review shows the exact operation Confirm publishes (the server's preview,
 * docs/console.md "Previews"); Confirm sends its digest, so a changed queue is refused.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { QueuePolicySchema } from '../../engine/schema/policy.ts';

const EPOCH = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function PolicyEditor({ current, currentEpoch, blockers }: { current: string; currentEpoch: string; blockers: string[] }) {
  const router = useRouter();
  const [text, setText] = useState(current);
  const [epoch, setEpoch] = useState(`${currentEpoch}-next`);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const requestId = useMemo(() => `console-policy-${typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : Date.now()}`, []);

  const validation = useMemo(() => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      return { ok: false as const, issues: [`JSON: ${(e as Error).message}`] };
    }
    const parsed = QueuePolicySchema.safeParse(json);
    if (!parsed.success) return { ok: false as const, issues: parsed.error.issues.slice(0, 12).map((i) => `${i.path.join('.') || 'policy'}: ${i.message}`) };
    return { ok: true as const, policy: parsed.data };
  }, [text]);
  const epochOk = EPOCH.test(epoch) && epoch !== currentEpoch;
  const [preview, setPreview] = useState<{ operations: unknown[]; digest: string } | { error: string } | null>(null);
  useEffect(() => {
    setPreview(null);
    if (!confirming || !validation.ok) return;
    const controller = new AbortController();
    fetch('/api/admin/preview', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'policy', body: { epoch, policy: validation.policy } }), signal: controller.signal })
      .then(async (res) => {
        const out = (await res.json().catch(() => null)) as { ok?: boolean; operations?: unknown[]; operations_sha256?: string; error?: { code: string; message: string } } | null;
        setPreview(out?.ok === true && out.operations !== undefined && out.operations_sha256 !== undefined
          ? { operations: out.operations, digest: out.operations_sha256 }
          : { error: out?.error ? `${out.error.code}: ${out.error.message}` : `HTTP ${res.status}` });
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [confirming, epoch, validation]);
  const digest = preview !== null && 'digest' in preview ? preview.digest : null;
  const quiescent = blockers.length === 0;

  async function publish() {
    if (!validation.ok) return;
    setBusy(true);
    setError(null);
    const res = await fetch('/api/admin/policy', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ epoch, policy: validation.policy, request_id: requestId, ...(digest === null ? {} : { expect_operations_sha256: digest }) }) });
    const out = (await res.json().catch(() => null)) as { ok?: boolean; receipt_url?: string; error?: { code: string; message: string } } | null;
    setBusy(false);
    if (!res.ok || out?.ok !== true || out.receipt_url === undefined) {
      setError(out?.error ? `${out.error.code}: ${out.error.message}` : `HTTP ${res.status}`);
      return;
    }
    router.push(out.receipt_url);
  }

  return (
    <div className="space-y-3" data-testid="policy-editor">
      <div className={`rounded border px-3 py-2 text-sm ${quiescent ? 'border-emerald-300 bg-emerald-50 text-emerald-900' : 'border-amber-400 bg-amber-50 text-amber-950'}`} data-testid="quiescence">
        {quiescent ? 'The queue is quiescent: a new epoch may be installed.' : (
          <>
            <strong>Not quiescent — publication is refused until these drain (spec 7.10):</strong>
            <ul className="ml-5 list-disc">{blockers.map((b) => <li key={b}>{b}</li>)}</ul>
          </>
        )}
      </div>
      <label className="block">
        <span className="field-label">New epoch id</span>
        <input className="input w-72 font-mono" value={epoch} onChange={(e) => setEpoch(e.target.value)} aria-invalid={!epochOk} />
      </label>
      <label className="block">
        <span className="field-label">Policy JSON</span>
        <textarea className="input h-80 w-full font-mono text-xs" spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} data-testid="policy-json" />
      </label>
      <div data-testid="policy-validation" className={`text-sm ${validation.ok ? 'text-emerald-700' : 'text-red-700'}`}>
        {validation.ok ? '✓ Valid QueuePolicy (closed version-3 schema).' : <ul className="ml-5 list-disc">{validation.issues.map((i) => <li key={i}>{i}</li>)}</ul>}
      </div>
      {error !== null && <p role="alert" className="text-sm text-red-700">{error}</p>}
      {!confirming ? (
        <button type="button" className="btn btn-primary" disabled={!validation.ok || !epochOk || !quiescent} onClick={() => setConfirming(true)} data-testid="policy-review">Review new epoch…</button>
      ) : (
        <div className="rounded border border-slate-300 bg-slate-50 p-3 text-sm">
          <p>Install epoch <code>{epoch}</code> (replacing <code>{currentEpoch}</code>). Fairness clocks restart for the new epoch. Request id <code>{requestId}</code>.</p>
          {preview === null ? <p className="text-xs muted">Preparing the preview…</p>
            : 'error' in preview ? <p role="alert" className="text-sm text-red-700" data-testid="policy-preview-error">Refused before publishing: {preview.error}</p>
            : <pre data-testid="policy-preview" className="mt-2 max-h-48 overflow-auto rounded border border-slate-200 bg-white p-2 text-[11px] leading-tight">{JSON.stringify(preview.operations, null, 2)}</pre>}
          <div className="mt-2 flex gap-2">
            <button type="button" className="btn" onClick={() => setConfirming(false)} disabled={busy}>Back</button>
            <button type="button" className="btn btn-primary" onClick={() => void publish()} disabled={busy || digest === null} data-testid="policy-confirm">{busy ? 'Publishing…' : 'Confirm and publish'}</button>
          </div>
        </div>
      )}
    </div>
  );
}
