/**
 * Screen geometry and text helpers shared by the reducer (pagination, what
 * fits in a confirmation) and the renderer, so both count the same lines.
 */

export const MIN_COLUMNS = 45;
export const MIN_ROWS = 16;
/** At this width the tree is shown beside the details; narrower, one pane at a time. */
export const WIDE_COLUMNS = 100;

export interface Viewport {
  columns: number;
  rows: number;
}

export interface Layout {
  tooSmall: boolean;
  wide: boolean;
  /** Lines the whole frame uses (one less than the terminal, so it never scrolls). */
  height: number;
  /** Outer widths of the tree and details panes (the hidden one is 0 when narrow). */
  treeWidth: number;
  detailsWidth: number;
  /** Content lines inside a pane (below its border and title). */
  paneLines: number;
  /** Inner text widths of the panes. */
  treeInner: number;
  detailsInner: number;
  /**
   * A confirmation or the help is an overlay: everything between the header
   * and the key line, below its own title line, with no border.
   */
  overlayWidth: number;
  overlayLines: number;
}

/** Header line + pane border (2) + pane title (1) + footer (status, 2 acknowledgements, keys). */
const HEADER = 1;
const FOOTER = 4;
const PANE_CHROME = 3;
const DETAILS_WIDE = 70;

export function layout(v: Viewport): Layout {
  const tooSmall = v.columns < MIN_COLUMNS || v.rows < MIN_ROWS;
  const wide = v.columns >= WIDE_COLUMNS;
  const height = Math.max(1, v.rows - 1);
  const body = Math.max(PANE_CHROME + 1, height - HEADER - FOOTER);
  // Details get room for a full Claim id on one line once the tree keeps 50 columns.
  const detailsWidth = wide ? Math.min(DETAILS_WIDE, v.columns - 50) : v.columns;
  const treeWidth = wide ? v.columns - detailsWidth : v.columns;
  return {
    tooSmall,
    wide,
    height,
    treeWidth,
    detailsWidth,
    paneLines: body - PANE_CHROME,
    treeInner: Math.max(1, treeWidth - 2),
    detailsInner: Math.max(1, detailsWidth - 2),
    overlayWidth: Math.max(1, v.columns),
    overlayLines: Math.max(1, height - 3),
  };
}

/**
 * Terminal-safe text: anything outside printable ASCII (control characters,
 * C1 controls, other Unicode) is shown as a \u escape, so ledger metadata can
 * neither inject escape sequences nor break the column arithmetic.
 */
export function safe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A quoted, escaped metadata string (node keys, fairness keys, graph ids). */
export function quoted(text: string): string {
  return `"${safe(text).replace(/"/g, '\\"')}"`;
}

/** List labels abbreviate ids: the kind prefix and the first hex digits. */
export function abbrev(id: string, keep = 10): string {
  const m = /^([a-z]_)?([0-9a-f]+)(_[0-9]+)?$/.exec(id);
  if (m === null) return id.length <= keep + 1 ? safe(id) : `${safe(id.slice(0, keep))}…`;
  const [, prefix = '', hex = '', suffix = ''] = m;
  return hex.length <= keep ? id : `${prefix}${hex.slice(0, keep)}…${suffix}`;
}

/**
 * Wraps each line to `width` columns: at the last space when the next word
 * fits on a line of its own, else hard (a full id is continued, never cut).
 */
export function wrap(lines: readonly string[], width: number): string[] {
  const out: string[] = [];
  const w = Math.max(1, width);
  for (const line of lines) {
    let rest = line;
    while (rest.length > w) {
      const space = rest.lastIndexOf(' ', w);
      const next = space > 0 ? rest.slice(space + 1).split(' ')[0]! : '';
      const cut = space > 0 && next.length <= w ? space : w;
      out.push(rest.slice(0, cut).trimEnd());
      rest = cut === space ? rest.slice(space + 1) : rest.slice(cut);
    }
    out.push(rest);
  }
  return out;
}

export function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

/** Wall-clock time of day in the terminal's time zone (HH:MM:SS), as the operator's own clock shows it. */
export function clock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
