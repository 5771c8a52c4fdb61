/** Target vs actual share per key of one class, as a server-rendered SVG bar chart. */
import { keyLabel, percent } from '../lib/console/views/format.ts';

export function ShareChart({ rows, title }: { rows: Array<{ key: string; target: number | null; actual: number | null }>; title: string }) {
  const barH = 10;
  const rowH = 34;
  const left = 120;
  const width = 520;
  const plot = width - left - 96;
  const height = rows.length * rowH + 28;
  return (
    <svg role="img" aria-label={title} viewBox={`0 0 ${width} ${height}`} className="w-full max-w-[560px]" data-testid="share-chart">
      <title>{title}</title>
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g key={t}>
          <line x1={left + t * plot} x2={left + t * plot} y1={4} y2={height - 18} stroke="#e2e8f0" />
          <text x={left + t * plot} y={height - 4} fontSize="10" textAnchor="middle" fill="#64748b">{t * 100}%</text>
        </g>
      ))}
      {rows.map((r, i) => {
        const y = 8 + i * rowH;
        return (
          <g key={r.key}>
            <text x={left - 8} y={y + barH + 2} fontSize="12" textAnchor="end" fill="#0f172a">{keyLabel(r.key).slice(0, 16)}</text>
            <rect x={left} y={y} width={(r.target ?? 0) * plot} height={barH} fill="#94a3b8" rx="2" />
            <rect x={left} y={y + barH + 2} width={(r.actual ?? 0) * plot} height={barH} fill="#2563eb" rx="2" />
            <text x={left + (r.target ?? 0) * plot + 4} y={y + barH - 1} fontSize="10" fill="#475569">target {percent(r.target)}</text>
            <text x={left + (r.actual ?? 0) * plot + 4} y={y + 2 * barH + 1} fontSize="10" fill="#1d4ed8">actual {percent(r.actual)}</text>
          </g>
        );
      })}
    </svg>
  );
}
