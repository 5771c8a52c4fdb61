/**
 * Deterministic formatting for server-rendered views: UTC timestamps (never
 * the server's locale or time zone, so a permalink renders identically on any
 * machine) and compact durations.
 */

/** `2026-05-12 14:03:07Z` */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** `11-30 14:03Z` (compact, for dense tables; the full time is in the title) */
export function formatShort(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return new Date(ms).toISOString().slice(5, 16).replace('T', ' ') + 'Z';
}

/** `3h 12m`, `45s`, `2d 4h` */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const negative = ms < 0;
  let s = Math.floor(Math.abs(ms) / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts = d > 0 ? [`${d}d`, `${h}h`] : h > 0 ? [`${h}h`, `${m}m`] : m > 0 ? [`${m}m`, `${s}s`] : [`${s}s`];
  return (negative ? '-' : '') + parts.join(' ');
}

/** First characters of a long hex id, keeping its prefix (`q_1a2b3c4d…`). */
export function shortId(id: string | null | undefined, length = 10): string {
  if (id === null || id === undefined) return '—';
  const m = /^([a-z]_)?([0-9a-f]{16,})(_\d+)?$/.exec(id);
  if (m === null) return id.length > 48 ? `${id.slice(0, 46)}…` : id;
  return `${m[1] ?? ''}${m[2]!.slice(0, length)}…${m[3] ?? ''}`;
}

/** A percentage with one decimal, or an em dash. */
export function percent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${(value * 100).toFixed(1)}%`;
}

export const PRIORITY_NAMES: Readonly<Record<number, string>> = {
  1: 'P1 urgent',
  2: 'P2 high',
  3: 'P3 normal',
  4: 'P4 low',
  5: 'P5 background',
};

/** Display form of a fairness key (the default key is the empty string). */
export function keyLabel(key: string): string {
  return key === '' ? '(default)' : key;
}
