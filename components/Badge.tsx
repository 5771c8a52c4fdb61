/** Small status chips. Colour is never the only signal: the code is always written out. */
import type { ReactNode } from 'react';
import { reasonText, reasonTone, type Tone } from '../lib/console/views/reasons.ts';

const TONES: Record<Tone, string> = {
  ok: 'bg-emerald-50 text-emerald-800 ring-emerald-600/25',
  info: 'bg-blue-50 text-blue-800 ring-blue-600/25',
  wait: 'bg-amber-50 text-amber-900 ring-amber-600/30',
  bad: 'bg-red-50 text-red-800 ring-red-600/30',
  muted: 'bg-slate-100 text-slate-600 ring-slate-500/20',
};

export function Chip({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span title={title} className={`inline-flex items-center whitespace-nowrap rounded px-1.5 py-0.5 font-mono text-[11.5px] font-medium ring-1 ring-inset ${TONES[tone]}`}>
      {children}
    </span>
  );
}

export function ReasonBadge({ code }: { code: string }) {
  return <Chip tone={reasonTone(code)} title={reasonText(code)}>{code}</Chip>;
}

const READINESS_TONE: Record<string, Tone> = {
  ready: 'ok', waiting: 'wait', running: 'info', delivering: 'info', done: 'muted', failed: 'bad', cancelled: 'muted',
};

export function ReadinessBadge({ readiness }: { readiness: string }) {
  return <Chip tone={READINESS_TONE[readiness] ?? 'info'}>{readiness}</Chip>;
}

const STATE_TONE: Record<string, Tone> = {
  available: 'ok', claimed: 'info', completed: 'muted', cancelled: 'muted', open: 'info', reserved: 'info', started: 'info',
  bound: 'info', released: 'muted', uncertain: 'bad', unresolved: 'bad', rejected: 'bad', verified: 'ok', failed: 'bad', pending: 'wait',
};

export function StateBadge({ state }: { state: string }) {
  return <Chip tone={STATE_TONE[state] ?? 'info'}>{state}</Chip>;
}

export function PriorityBadge({ priority, admitted }: { priority: number; admitted?: number }) {
  const tone: Tone = priority === 1 ? 'bad' : priority === 2 ? 'wait' : priority === 3 ? 'info' : 'muted';
  return (
    <Chip tone={tone} title={admitted !== undefined && admitted !== priority ? `admitted as P${admitted}, overridden` : undefined}>
      P{priority}{admitted !== undefined && admitted !== priority ? '*' : ''}
    </Chip>
  );
}
