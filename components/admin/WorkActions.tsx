'use client';
/** Cancel or reprioritize this one Work from its own page (administrators; the server checks the role). */
import { useState } from 'react';
import { ActionDialog, type AdminActionName } from '../ActionDialog.tsx';

export function WorkActions({ workId, nodeKey, state, priority }: { workId: string; nodeKey: string; state: string; priority: number }) {
  const [pending, setPending] = useState<AdminActionName | null>(null);
  const target = { id: workId, label: `${nodeKey} · ${state} · P${priority}` };
  return (
    <div className="flex flex-wrap gap-2" data-testid="work-actions">
      {state === 'available' && <button type="button" className="btn" onClick={() => setPending('reprioritize')} data-testid="work-action-reprioritize">Reprioritize…</button>}
      <button type="button" className="btn btn-danger" onClick={() => setPending('cancel-work')} data-testid="work-action-cancel">Cancel Work…</button>
      {pending !== null && (
        <ActionDialog
          action={pending}
          title={pending === 'reprioritize' ? `Reprioritize ${nodeKey}` : `Cancel ${nodeKey}`}
          description={pending === 'reprioritize'
            ? `A compare-and-set override of the effective priority (now P${priority}); choosing the current priority is refused as a no-op.`
            : 'Terminal WorkCancellation of this Work.'}
          targets={[target]}
          body={{ work_ids: [workId] }}
          danger={pending === 'cancel-work'}
          initialPriority={priority}
          onClose={() => setPending(null)}
        />
      )}
    </div>
  );
}
