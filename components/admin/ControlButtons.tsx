'use client';
/** Pause/resume grants and admission, each through the confirmation dialog. */
import { useState } from 'react';
import { ActionDialog } from '../ActionDialog.tsx';

type Control = 'grants_paused' | 'admission_paused';

export function ControlButtons({ controls }: { controls: Record<Control, boolean> }) {
  const [pending, setPending] = useState<{ control: Control; value: boolean } | null>(null);
  const row = (control: Control, noun: string) => {
    const paused = controls[control];
    return (
      <div className="flex flex-wrap items-center justify-between gap-3 rounded border border-slate-200 px-3 py-2">
        <div>
          <div className="font-medium">{noun}</div>
          <div className="text-sm">{paused ? <strong className="text-red-700" data-testid={`${control}-value`}>{control} = true</strong> : <span className="text-emerald-700" data-testid={`${control}-value`}>open</span>}</div>
        </div>
        {paused ? (
          <button type="button" className="btn btn-primary" data-testid={`resume-${control}`} onClick={() => setPending({ control, value: false })}>Resume {noun.toLowerCase()}</button>
        ) : (
          <button type="button" className="btn btn-danger" data-testid={`pause-${control}`} onClick={() => setPending({ control, value: true })}>Pause {noun.toLowerCase()}</button>
        )}
      </div>
    );
  };
  return (
    <div className="space-y-2">
      {row('grants_paused', 'Grants')}
      {row('admission_paused', 'Admission')}
      {pending !== null && (
        <ActionDialog
          action="control"
          title={`${pending.value ? 'Pause' : 'Resume'} ${pending.control === 'grants_paused' ? 'grants' : 'admission'}`}
          description={pending.control === 'grants_paused'
            ? (pending.value ? 'No new Claims or start markers will be committed until grants resume. Running work continues; scheduling state is kept.' : 'New Claims may be committed again by the next dispatch.')
            : (pending.value ? 'New Work admission will be refused until admission resumes.' : 'New Work may be admitted again.')}
          targets={[{ id: pending.control, label: `Control ${pending.control} → ${String(pending.value)}` }]}
          body={{ control: pending.control, value: pending.value }}
          danger={pending.value}
          onClose={() => setPending(null)}
        />
      )}
    </div>
  );
}
