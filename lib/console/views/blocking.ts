/**
 * The blocking-path diagram of one Work (issue 5 §2 `/work/[id]`): the Work,
 * all its direct predecessors, and the engine's blocking path (spec 7.13,
 * 7.15) followed up to the first unsatisfied gate or failed ancestor, with
 * that chain highlighted. The path itself comes from `eligibility`.
 */
import type { DependencyEdge, ReplayState, WorkRecord } from '../../../engine/replay/state.ts';
import { gateIdentity, type BlockingStep } from '../../../engine/scheduler/eligibility.ts';
import { gateView, isGate } from './gates.ts';
import { classDefs, mermaidLabel, shape } from './mermaid.ts';
import { workStatus, type WorkStatus } from './status.ts';

export interface DiagramNode {
  /** Mermaid node id (generated, never user text). */
  id: string;
  href: string | null;
  /** Plain text for the accessible legend (escaped by React). */
  text: string;
}

export interface Diagram {
  mermaid: string;
  nodes: DiagramNode[];
}

interface Vertex {
  id: string;
  kind: 'work' | 'issue' | 'pull_request';
  /** Plain text (rendered by React, escaped) and the Mermaid-escaped label. */
  text: string;
  label: string;
  cls: string;
  href: string | null;
}

export function workHref(workId: string): string {
  return `/work/${encodeURIComponent(workId)}`;
}

function workVertex(state: ReplayState, work: WorkRecord | undefined, workId: string, asOf: number, id: string): Vertex {
  if (work === undefined) return { id, kind: 'work', text: workId, label: mermaidLabel(workId.slice(0, 12), 'not admitted'), cls: 'waiting', href: null };
  const status = workStatus(state, work, asOf);
  return { id, kind: 'work', text: work.nodeKey, label: mermaidLabel(work.nodeKey, `${status.readiness} · ${status.reason}`), cls: status.readiness, href: workHref(work.workId) };
}

function gateVertex(state: ReplayState, edge: Exclude<DependencyEdge, { kind: 'work' }>, blocked: boolean, id: string): Vertex {
  const g = gateView(state, edge);
  const observed = g.observation === null ? 'no observation' : g.observation.summary;
  return { id, kind: edge.kind, text: g.label, label: mermaidLabel(g.label, `needs ${g.condition}: ${observed}`), cls: blocked ? 'gate_wait' : 'gate_ok', href: g.url || null };
}

function stepKey(step: BlockingStep): string {
  return step.kind === 'work' ? `w:${step.work_id}` : `g:${step.gate}`;
}

function edgeKey(edge: DependencyEdge): string {
  return edge.kind === 'work' ? `w:${edge.work_id}` : `g:${gateIdentity(edge)}`;
}

export function blockingDiagram(state: ReplayState, work: WorkRecord, asOf: number, status: WorkStatus = workStatus(state, work, asOf)): Diagram {
  const vertices = new Map<string, Vertex>();
  const links: Array<{ from: string; to: string; hot: boolean }> = [];
  const next = () => `n${vertices.size}`;
  const onPath = new Set(status.blockingPath.slice(1).map(stepKey));

  const root = workVertex(state, work, work.workId, asOf, 'n0');
  root.cls = `${root.cls} focus`;
  vertices.set(`w:${work.workId}`, root);

  const addEdge = (owner: WorkRecord, edge: DependencyEdge): string => {
    const key = edgeKey(edge);
    let v = vertices.get(key);
    if (v === undefined) {
      v = edge.kind === 'work'
        ? workVertex(state, state.works.get(edge.work_id), edge.work_id, asOf, next())
        : gateVertex(state, edge, onPath.has(key), next());
      vertices.set(key, v);
    }
    links.push({ from: v.id, to: vertices.get(`w:${owner.workId}`)!.id, hot: onPath.has(key) });
    return key;
  };

  for (const edge of work.dependsOn) addEdge(work, edge);
  // Follow the engine's path upstream: each waiting Work step shows its blocking predecessor.
  const path = status.blockingPath;
  for (let i = 1; i + 1 < path.length; i++) {
    const upstream = path[i]!;
    const blocker = path[i + 1]!;
    if (upstream.kind !== 'work' || upstream.work_id === undefined) break;
    const owner = state.works.get(upstream.work_id);
    if (owner === undefined) break;
    const edge = owner.dependsOn.find((e) => edgeKey(e) === stepKey(blocker));
    if (edge !== undefined) addEdge(owner, edge);
  }

  const lines = ['flowchart LR'];
  for (const v of vertices.values()) lines.push(`  ${shape(v.kind, v.id, v.label)}`);
  links.forEach((l) => lines.push(`  ${l.from} ${l.hot ? '==>' : '-->'} ${l.to}`));
  links.forEach((l, i) => {
    if (l.hot) lines.push(`  linkStyle ${i} stroke:#b91c1c,stroke-width:3px`);
  });
  const used: string[] = [];
  for (const v of vertices.values()) {
    for (const c of v.cls.split(' ')) {
      used.push(c);
      lines.push(`  class ${v.id} ${c}`);
    }
  }
  lines.push(...classDefs(used).map((d) => `  ${d}`));
  return {
    mermaid: lines.join('\n'),
    nodes: [...vertices.values()].map((v) => ({ id: v.id, href: v.href, text: v.text })),
  };
}

export { isGate };
