/**
 * The tree's visible rows: graph membership, then each Work, then (when its
 * Claim history is expanded) its Claim attempts. Dependencies are not tree
 * edges; the details pane cross-references them. Row keys are stable across
 * reads (`g:`/`w:`/`c:` + full id), so cursor and selection survive refreshes.
 */
import type { Snapshot, WorkItem } from './model.ts';

export type RowKind = 'graph' | 'work' | 'claim';

export interface Row {
  key: string;
  kind: RowKind;
  id: string;
  depth: number;
  graphId: string;
  /** The Work of a work or claim row. */
  workId?: string;
  /** Graph rows: Work shown under it (after search). */
  count?: number;
}

export interface TreeView {
  expandedWork: ReadonlySet<string>;
  collapsedGraphs: ReadonlySet<string>;
  search: string;
}

export const rowKey = (kind: RowKind, id: string): string => `${kind[0]}:${id}`;

export function parseKey(key: string): { kind: RowKind; id: string } | null {
  const kind = ({ g: 'graph', w: 'work', c: 'claim' } as const)[key[0] as 'g' | 'w' | 'c'];
  return kind === undefined || key[1] !== ':' ? null : { kind, id: key.slice(2) };
}

function claimMatches(s: Snapshot, claimId: string, needle: string): boolean {
  return s.claims.get(claimId)?.search.includes(needle) ?? false;
}

export function workMatches(s: Snapshot, w: WorkItem, needle: string): boolean {
  return needle === '' || w.search.includes(needle) || w.claims.some((c) => claimMatches(s, c, needle));
}

let memo: { s: Snapshot; v: TreeView; rows: Row[] } | null = null;

export function visibleRows(s: Snapshot | null, v: TreeView): Row[] {
  if (s === null) return [];
  if (memo !== null && memo.s === s && memo.v.expandedWork === v.expandedWork && memo.v.collapsedGraphs === v.collapsedGraphs && memo.v.search === v.search) {
    return memo.rows;
  }
  const needle = v.search.toLowerCase();
  const rows: Row[] = [];
  for (const graph of s.graphs) {
    const works = graph.works.flatMap((id) => {
      const w = s.works.get(id);
      return w !== undefined && workMatches(s, w, needle) ? [w] : [];
    });
    if (works.length === 0) continue;
    rows.push({ key: rowKey('graph', graph.id), kind: 'graph', id: graph.id, depth: 0, graphId: graph.id, count: works.length });
    if (v.collapsedGraphs.has(graph.id)) continue;
    for (const w of works) {
      rows.push({ key: rowKey('work', w.id), kind: 'work', id: w.id, depth: 1, graphId: graph.id, workId: w.id });
      const expanded = v.expandedWork.has(w.id);
      for (const c of w.claims) {
        if (!expanded && (needle === '' || !claimMatches(s, c, needle))) continue;
        rows.push({ key: rowKey('claim', c), kind: 'claim', id: c, depth: 2, graphId: graph.id, workId: w.id });
      }
    }
  }
  memo = { s, v: { ...v }, rows };
  return rows;
}

/** Does a row key still name something in this snapshot? */
export function exists(s: Snapshot, key: string): boolean {
  const k = parseKey(key);
  if (k === null) return false;
  if (k.kind === 'work') return s.works.has(k.id);
  if (k.kind === 'claim') return s.claims.has(k.id);
  return s.graphs.some((g) => g.id === k.id);
}
