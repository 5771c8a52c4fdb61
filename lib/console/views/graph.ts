/**
 * A Work DAG as Mermaid (docs/console.md "Pages" `/graphs/[id]`): Work, Issue and PR nodes
 * with distinct shapes, colours by status, and a link per node. Graphs above
 * MAX_DRAWN vertices are drawn as a bounded neighbourhood of a focus node (or
 * the first vertices in FIFO order) so the browser never gets a hairball.
 */
import type { Projection } from '../../../engine/replay/index.ts';
import type { DependencyEdge, WorkRecord } from '../../../engine/replay/index.ts';
import { gateIdentity } from '../../../engine/scheduler/eligibility.ts';
import { workHref, type DiagramNode } from './blocking.ts';
import { edgeSatisfied, gateView, isGate } from './gates.ts';
import { classDefs, mermaidLabel, shape } from './mermaid.ts';
import { workStatus, type Readiness } from './status.ts';

export const MAX_DRAWN = 150;
/** More independent vertices than this are summarized per status. */
const MAX_ISOLATED = 12;
const NEIGHBOURHOOD_DEPTH = 2;

export interface GraphNodeRow {
  key: string;
  kind: 'work' | 'issue' | 'pull_request';
  text: string;
  status: string;
  reason: string;
  href: string | null;
  drawn: boolean;
}

export interface GraphView {
  graphId: string;
  mermaid: string;
  nodes: DiagramNode[];
  rows: GraphNodeRow[];
  total: number;
  drawn: number;
  /** Independent vertices shown as per-status count nodes instead of one box each. */
  summarized: number;
  focus: string | null;
  counts: Partial<Record<Readiness, number>>;
}

function edgeKey(edge: DependencyEdge): string {
  return edge.kind === 'work' ? `w:${edge.work_id}` : `g:${gateIdentity(edge)}`;
}

/** Vertices within `depth` hops of `focus` (both directions), capped. */
function neighbourhood(works: Map<string, WorkRecord>, projection: Projection, focus: string, limit: number): Set<string> {
  const seen = new Set<string>([`w:${focus}`]);
  let frontier = [focus];
  for (let depth = 0; depth < NEIGHBOURHOOD_DEPTH && frontier.length > 0 && seen.size < limit; depth++) {
    const nextFrontier: string[] = [];
    for (const id of frontier) {
      const w = works.get(id);
      const around = [...(w?.dependsOn.map(edgeKey) ?? []), ...projection.dependents(id).map((s) => `w:${s}`)];
      for (const key of around) {
        if (seen.size >= limit || seen.has(key)) continue;
        seen.add(key);
        if (key.startsWith('w:')) nextFrontier.push(key.slice(2));
      }
    }
    frontier = nextFrontier;
  }
  return seen;
}

export function graphView(projection: Projection, graphId: string, asOf: number, focus: string | null): GraphView | null {
  const ids = projection.graphs.get(graphId);
  if (ids === undefined) return null;
  const works = ids.map((id) => projection.work(id)!);
  const byId = new Map(works.map((w) => [w.workId, w]));

  // All vertices: Work, then gates deduplicated by identity (spec 7.16).
  const rows = new Map<string, GraphNodeRow>();
  const counts: Partial<Record<Readiness, number>> = {};
  const cls = new Map<string, string>();
  const labels = new Map<string, string>();
  for (const w of works) {
    const status = workStatus(projection, w, asOf);
    counts[status.readiness] = (counts[status.readiness] ?? 0) + 1;
    rows.set(`w:${w.workId}`, { key: `w:${w.workId}`, kind: 'work', text: w.nodeKey, status: status.readiness, reason: status.reason, href: workHref(w.workId), drawn: false });
    cls.set(`w:${w.workId}`, status.readiness);
    labels.set(`w:${w.workId}`, mermaidLabel(w.nodeKey, status.reason === 'ready' ? `P${w.effectivePriority} · ready` : `P${w.effectivePriority} · ${status.reason}`));
  }
  // A gate is satisfied when the engine finds it satisfied for every Work of the graph waiting on it
  // (pools differ in how old an Observation may be).
  const gateOk = new Map<string, boolean>();
  for (const w of works) {
    for (const edge of w.dependsOn) {
      if (isGate(edge)) gateOk.set(edgeKey(edge), (gateOk.get(edgeKey(edge)) ?? true) && edgeSatisfied(projection, w, edge, asOf));
    }
  }
  for (const w of works) {
    for (const edge of w.dependsOn) {
      if (!isGate(edge)) continue;
      const key = edgeKey(edge);
      if (rows.has(key)) continue;
      const g = gateView(projection, edge);
      const ok = gateOk.get(key)!;
      const observed = g.observation === null ? 'no observation' : g.observation.summary;
      rows.set(key, { key, kind: edge.kind, text: g.label, status: ok ? 'satisfied' : 'unsatisfied', reason: `needs ${g.condition}: ${observed}`, href: g.url || null, drawn: false });
      cls.set(key, ok ? 'gate_ok' : 'gate_wait');
      labels.set(key, mermaidLabel(g.label, `${g.condition}? ${observed}`));
    }
  }

  const total = rows.size;
  const edges: Array<[string, string]> = [];
  for (const w of works) {
    for (const edge of w.dependsOn) if (rows.has(edgeKey(edge))) edges.push([edgeKey(edge), `w:${w.workId}`]);
  }
  const linked = new Set(edges.flat());
  const focusId = focus !== null && byId.has(focus) ? focus : null;
  let drawnKeys: Set<string>;
  if (total <= MAX_DRAWN) drawnKeys = new Set(rows.keys());
  else if (focusId !== null) drawnKeys = neighbourhood(byId, projection, focusId, MAX_DRAWN);
  else drawnKeys = new Set([...rows.keys()].filter((k) => linked.has(k)).slice(0, MAX_DRAWN));

  // Many independent vertices say nothing as boxes in a row: count them per status instead.
  const isolated = [...rows.keys()].filter((k) => !linked.has(k) && (drawnKeys.has(k) || (focusId === null && total > MAX_DRAWN)));
  const summaries = new Map<string, number>();
  if (isolated.length > MAX_ISOLATED) {
    for (const k of isolated) {
      drawnKeys.delete(k);
      summaries.set(cls.get(k)!, (summaries.get(cls.get(k)!) ?? 0) + 1);
    }
  }

  const mermaidIds = new Map<string, string>();
  const nodes: DiagramNode[] = [];
  const lines = [drawnKeys.size > 40 ? 'flowchart TB' : 'flowchart LR'];
  const used: string[] = [];
  for (const key of drawnKeys) {
    const row = rows.get(key);
    if (row === undefined) continue;
    row.drawn = true;
    const id = `n${mermaidIds.size}`;
    mermaidIds.set(key, id);
    nodes.push({ id, href: row.href, text: row.text });
    lines.push(`  ${shape(row.kind, id, labels.get(key)!)}`);
  }
  for (const [from, to] of edges) {
    const a = mermaidIds.get(from);
    const b = mermaidIds.get(to);
    if (a !== undefined && b !== undefined) lines.push(`  ${a} --> ${b}`);
  }
  for (const [key, id] of mermaidIds) {
    const c = cls.get(key)!;
    used.push(c);
    lines.push(`  class ${id} ${c}`);
    if (focusId !== null && key === `w:${focusId}`) {
      used.push('focus');
      lines.push(`  class ${id} focus`);
    }
  }
  let s = 0;
  for (const [status, n] of [...summaries].sort((a, b) => b[1] - a[1])) {
    const id = `s${s++}`;
    const text = `${n} independent Work · ${status}`;
    lines.push(`  ${shape('work', id, mermaidLabel(`${n} independent Work`, status))}`, `  class ${id} ${status}`);
    used.push(status);
    nodes.push({ id, href: `/work?graph=${encodeURIComponent(graphId)}&readiness=${encodeURIComponent(status)}`, text });
  }
  lines.push(...classDefs(used).map((d) => `  ${d}`));

  return {
    graphId,
    mermaid: lines.join('\n'),
    nodes,
    rows: [...rows.values()],
    total,
    drawn: mermaidIds.size,
    summarized: [...summaries.values()].reduce((a, b) => a + b, 0),
    focus: focusId,
    counts,
  };
}
