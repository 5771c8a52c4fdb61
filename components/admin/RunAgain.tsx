'use client';
/**
 * "Run it again" for a cancelled or delivery-failed Work (docs/console.md "Run it again"): a new
 * submission pre-filled from the old one under a new node key — a spec 7.15
 * replacement when delivery failed — reviewed in the action dialog (preview of
 * the exact Work operation) before it is published. History is not rewritten.
 */
import { useState } from 'react';
import { ActionDialog } from '../ActionDialog.tsx';

const DISPOSITIONS = ['inspection', 'idempotent', 'compensated'] as const;

export function RunAgain({ workId, nodeKey, kind, defaultKey }: { workId: string; nodeKey: string; kind: 'replacement' | 'resubmission'; defaultKey: string }) {
  const [open, setOpen] = useState(false);
  const [key, setKey] = useState(defaultKey);
  const [disposition, setDisposition] = useState<(typeof DISPOSITIONS)[number]>('inspection');
  return (
    <div className="flex flex-wrap items-end gap-2" data-testid="run-again">
      <label className="flex flex-col text-xs">
        <span className="field-label">New node key</span>
        <input className="input w-64 font-mono" value={key} onChange={(e) => setKey(e.target.value)} data-testid="run-again-key" />
      </label>
      {kind === 'replacement' && (
        <label className="flex flex-col text-xs">
          <span className="field-label">Remediation</span>
          <select className="input" value={disposition} onChange={(e) => setDisposition(e.target.value as (typeof DISPOSITIONS)[number])} data-testid="run-again-disposition">
            {DISPOSITIONS.map((d) => <option key={d} value={d}>{d}</option>)}
          </select>
        </label>
      )}
      <button type="button" className="btn btn-primary" disabled={key.trim() === ''} onClick={() => setOpen(true)} data-testid="run-again-open">Run it again…</button>
      {open && (
        <ActionDialog
          action="run-again"
          title={kind === 'replacement' ? `Replace ${nodeKey}` : `Run ${nodeKey} again`}
          description={kind === 'replacement'
            ? 'Admits a new node that replaces this delivery-failed Work (spec 7.15): same payload, pool, profile, priority, key and dependencies, a new FIFO position and an ordinary charge. The failed Work and its dependants\u2019 edges stay as they are. The reason code is recorded as the replacement\u2019s evidence id.'
            : 'Admits a new node with this cancelled Work\u2019s payload, pool, profile, priority, key and dependencies; it gets a new FIFO position. The cancelled Work keeps its history. The reason code is not recorded on a submission.'}
          targets={[{ id: workId, label: `${nodeKey} → ${key}` }]}
          body={{ work_id: workId, node_key: key.trim(), ...(kind === 'replacement' ? { disposition } : {}) }}
          onClose={() => setOpen(false)}
        />
      )}
    </div>
  );
}
