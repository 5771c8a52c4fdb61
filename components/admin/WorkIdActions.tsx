'use client';
/** Cancel or reprioritize Work named by id (the explorer's multi-select does the same from a list). */
import { useState } from 'react';
import { ActionDialog, type AdminActionName } from '../ActionDialog.tsx';

export function WorkIdActions() {
  const [text, setText] = useState('');
  const [pending, setPending] = useState<AdminActionName | null>(null);
  const ids = [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter((s) => s !== ''))];
  return (
    <div className="space-y-2">
      <label className="block">
        <span className="field-label">Work ids (comma or newline separated)</span>
        <textarea className="input h-20 w-full font-mono text-xs" value={text} onChange={(e) => setText(e.target.value)} data-testid="work-ids" />
      </label>
      <div className="flex gap-2">
        <button type="button" className="btn" disabled={ids.length === 0} onClick={() => setPending('reprioritize')}>Reprioritize {ids.length}…</button>
        <button type="button" className="btn btn-danger" disabled={ids.length === 0} onClick={() => setPending('cancel-work')}>Cancel {ids.length} Work…</button>
      </div>
      {pending !== null && (
        <ActionDialog
          action={pending}
          title={pending === 'reprioritize' ? `Reprioritize ${ids.length} Work` : `Cancel ${ids.length} Work`}
          description={pending === 'reprioritize'
            ? 'A compare-and-set override of the effective priority of available Work; stale targets make the whole transaction fail.'
            : 'Terminal WorkCancellation of each target, all or nothing.'}
          targets={ids.map((id) => ({ id, label: 'Work' }))}
          body={{ work_ids: ids }}
          danger={pending === 'cancel-work'}
          onClose={() => setPending(null)}
        />
      )}
    </div>
  );
}
