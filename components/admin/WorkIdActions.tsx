'use client';
/**
 * Cancel or reprioritize Work named by id (the explorer's multi-select does the same from a list).
 * Each id is resolved against the live ledger first (name, state, owner); an unknown id disables Confirm.
 */
import { useEffect, useState } from 'react';
import { formatTime } from '../../lib/console/views/format.ts';
import { ActionDialog, type AdminActionName } from '../ActionDialog.tsx';

type Target = { id: string; exists: false } | { id: string; exists: true; nodeKey: string; state: string; priority: number; owner: string | null };

export function WorkIdActions() {
  const [text, setText] = useState('');
  const [pending, setPending] = useState<AdminActionName | null>(null);
  const [targets, setTargets] = useState<Target[] | null>(null);
  const [stale, setStale] = useState<{ code: string; since: number } | null>(null);
  const ids = [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== ''))];
  const key = ids.join('\n');
  useEffect(() => {
    setTargets(null);
    setStale(null);
    if (key === '') return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const qs = new URLSearchParams(key.split('\n').map((id) => ['work_id', id]));
      fetch(`/api/targets?${qs.toString()}`, { signal: controller.signal })
        .then((r) => r.json() as Promise<{ ok: boolean; targets?: Target[]; stale?: { code: string; since: number } | null }>)
        .then((out) => {
          setTargets(out.ok && out.targets !== undefined ? out.targets : null);
          setStale(out.ok ? out.stale ?? null : null);
        })
        .catch(() => undefined);
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key]);
  const missing = targets?.filter((t) => !t.exists).length ?? 0;
  const ready = ids.length > 0 && targets !== null && missing === 0;
  const label = (t: Target) => (t.exists ? `${t.nodeKey} · ${t.state} · P${t.priority}${t.owner !== null ? ` · owned by Claim ${t.owner}` : ''}` : 'no such Work');
  return (
    <div className="space-y-2">
      <label className="block">
        <span className="field-label">Work ids (comma or newline separated)</span>
        <textarea className="input h-20 w-full font-mono text-xs" value={text} onChange={(e) => setText(e.target.value)} data-testid="work-ids" />
      </label>
      {targets !== null && (
        <ul className="space-y-0.5 text-xs" data-testid="work-id-targets">
          {targets.map((t) => (
            <li key={t.id} className={t.exists ? '' : 'text-red-700'}><code className="break-all">{t.id}</code> — {label(t)}</li>
          ))}
        </ul>
      )}
      {targets !== null && stale !== null && (
        <p role="status" className="text-xs text-amber-700" data-testid="work-id-targets-stale">
          Resolved against the last ledger read ({stale.code} since {formatTime(stale.since)}); the action itself is checked against the live ledger when you confirm.
        </p>
      )}
      {missing > 0 && <p role="alert" className="text-xs text-red-700">{missing} id(s) name no Work in the ledger; fix them first.</p>}
      <div className="flex gap-2">
        <button type="button" className="btn" disabled={!ready} onClick={() => setPending('reprioritize')}>Reprioritize {ids.length}…</button>
        <button type="button" className="btn btn-danger" disabled={!ready} onClick={() => setPending('cancel-work')}>Cancel {ids.length} Work…</button>
      </div>
      {pending !== null && (
        <ActionDialog
          action={pending}
          title={pending === 'reprioritize' ? `Reprioritize ${ids.length} Work` : `Cancel ${ids.length} Work`}
          description={pending === 'reprioritize'
            ? 'A compare-and-set override of the effective priority of available Work; stale targets make the whole transaction fail.'
            : 'Terminal WorkCancellation of each target, all or nothing.'}
          targets={(targets ?? []).map((t) => ({ id: t.id, label: label(t) }))}
          body={{ work_ids: ids }}
          danger={pending === 'cancel-work'}
          onClose={() => setPending(null)}
        />
      )}
    </div>
  );
}
