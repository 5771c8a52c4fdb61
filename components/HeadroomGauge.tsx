/**
 * The overview's ledger headroom gauge (spec 7.17, docs/operating-envelope.md "Operators and agents"): the used part of the admission
 * watermark, green below 80 %, amber from 80 %, red at the watermark, with the same numbers as
 * `fairway stats` and a link to what `compact` would retain.
 */
import Link from 'next/link';
import type { HeadroomGauge as Gauge } from '../lib/console/views/headroom.ts';

const BAR: Record<Gauge['colour'], string> = { green: 'bg-emerald-600', amber: 'bg-amber-500', red: 'bg-red-600' };
const TEXT: Record<Gauge['colour'], string> = { green: 'text-emerald-700', amber: 'text-amber-700', red: 'text-red-700' };

function bytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

export function HeadroomGauge({ gauge, compactHref }: { gauge: Gauge; compactHref: string }) {
  const e = gauge.envelope;
  return (
    <section className="card" data-testid="headroom" data-level={gauge.level} data-colour={gauge.colour}>
      <div className="card-h">
        <h2>Ledger headroom</h2>
        <Link prefetch={false} href={compactHref} className="text-xs" data-testid="headroom-compact-link">what compact would retain →</Link>
      </div>
      <div className="card-b space-y-2">
        <div className="relative h-3 w-full overflow-hidden rounded bg-slate-200" role="meter" aria-label="ledger bytes of the admission watermark" aria-valuemin={0} aria-valuemax={e.ledger_bytes} aria-valuenow={e.bytes}>
          <div className={`h-3 ${BAR[gauge.colour]}`} style={{ width: `${gauge.usedPercent}%` }} data-testid="headroom-bar" />
          <div className="absolute top-0 h-3 w-px bg-slate-500" style={{ left: `${gauge.warnPercent}%` }} title="80% of the watermark" />
        </div>
        <div className={`text-sm font-semibold ${TEXT[gauge.colour]}`} data-testid="headroom-advice">{gauge.advice}</div>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm md:grid-cols-5">
          <div><dt className="field-label">Ledger</dt><dd className="tabular-nums" data-testid="headroom-bytes" data-value={e.bytes}>{bytes(e.bytes)} ({Math.round(e.used_fraction * 100)}%)</dd></div>
          <div><dt className="field-label">Watermark</dt><dd className="tabular-nums" data-testid="headroom-watermark" data-value={e.ledger_bytes}>{bytes(e.ledger_bytes)}</dd></div>
          <div><dt className="field-label">Admission budget</dt><dd className="tabular-nums" data-testid="headroom-admission" data-value={e.admission_remaining}>{bytes(e.admission_remaining)}</dd></div>
          <div><dt className="field-label">Reserve</dt><dd className="tabular-nums" data-testid="headroom-reserve" data-value={e.recovery_bytes}>{bytes(e.recovery_bytes)}</dd></div>
          <div><dt className="field-label">Lifecycle bytes owed</dt><dd className="tabular-nums" data-testid="headroom-owed" data-value={e.reserve}>{bytes(e.reserve)}</dd></div>
        </dl>
      </div>
    </section>
  );
}
