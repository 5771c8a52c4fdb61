/**
 * The blocking-path diagram of one Work (docs/console.md "Pages" `/work/[id]`): the Work,
 * all its direct predecessors, and every unsatisfied edge (docs/console.md "Pages", `/work/[id]`),
 * each followed up to the nearest unsatisfied gate or failed ancestor, with
 * those chains highlighted. The branches come from the engine's
 * `blockingBranches` (the same walk as `eligibility`'s path); the list beside
 * the diagram is built from the same vertices, so both use the same words.
 */
import { projectionOf, type DependencyEdge, type Projection, type QueueSource, type WorkRecord } from '../../../engine/replay/index.ts';
import { blockingBranches, gateIdentity, type BlockingStep } from '../../../engine/scheduler/eligibility.ts';
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

/** One step of a blocking branch, labelled as its diagram vertex. */
export interface BranchStep {
  kind: 'work' | 'issue' | 'pull_request';
  /** The vertex's text (node key or gate label), the Work id when a Work. */
  text: string;
  workId: string | null;
  href: string | null;
  reason: string;
  condition: string | null;
}

export interface Diagram {
  mermaid: string;
  nodes: DiagramNode[];
  /** Every unsatisfied dependency branch, nearest blocker first; `more` branches not listed (see the graph). */
  branches: BranchStep[][];
  more: number;
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

function workVertex(projection: Projection, work: WorkRecord | undefined, workId: string, asOf: number, id: string): Vertex {
  if (work === undefined) return { id, kind: 'work', text: workId, label: mermaidLabel(workId.slice(0, 12), 'not admitted'), cls: 'waiting', href: null };
  const status = workStatus(projection, work, asOf);
  return { id, kind: 'work', text: work.nodeKey, label: mermaidLabel(work.nodeKey, `${status.readiness} · ${status.reason}`), cls: status.readiness, href: workHref(work.workId) };
}

function gateVertex(projection: Projection, edge: Exclude<DependencyEdge, { kind: 'work' }>, blocked: boolean, id: string): Vertex {
  const g = gateView(projection, edge);
  const observed = g.observation === null ? 'no observation' : g.observation.summary;
  return { id, kind: edge.kind, text: g.label, label: mermaidLabel(g.label, `needs ${g.condition}: ${observed}`), cls: blocked ? 'gate_wait' : 'gate_ok', href: g.url || null };
}

function stepKey(step: BlockingStep): string {
  return step.kind === 'work' ? `w:${step.work_id}` : `g:${step.gate}`;
}

function edgeKey(edge: DependencyEdge): string {
  return edge.kind === 'work' ? `w:${edge.work_id}` : `g:${gateIdentity(edge)}`;
}

export function blockingDiagram(source: QueueSource, work: WorkRecord, asOf: number, status: WorkStatus = workStatus(source, work, asOf)): Diagram {
  const projection = projectionOf(source);
  const vertices = new Map<string, Vertex>();
  const links: Array<{ from: string; to: string; hot: boolean }> = [];
  const next = () => `n${vertices.size}`;
  const { branches, more } = work.state === 'available' ? blockingBranches(projection, work, asOf) : { branches: [] as BlockingStep[][], more: 0 };
  const onPath = new Set(branches.flat().map(stepKey));
  for (const step of status.blockingPath.slice(1)) onPath.add(stepKey(step));

  const root = workVertex(projection, work, work.workId, asOf, 'n0');
  root.cls = `${root.cls} focus`;
  vertices.set(`w:${work.workId}`, root);

  const addEdge = (owner: WorkRecord, edge: DependencyEdge): string => {
    const key = edgeKey(edge);
    let v = vertices.get(key);
    if (v === undefined) {
      v = edge.kind === 'work'
        ? workVertex(projection, projection.work(edge.work_id), edge.work_id, asOf, next())
        : gateVertex(projection, edge, onPath.has(key), next());
      vertices.set(key, v);
    }
    links.push({ from: v.id, to: vertices.get(`w:${owner.workId}`)!.id, hot: onPath.has(key) });
    return key;
  };

  for (const edge of work.dependsOn) addEdge(work, edge);
  // Follow each branch upstream: each waiting Work step shows its blocking predecessor.
  for (const branch of branches) {
    for (let i = 0; i + 1 < branch.length; i++) {
      const upstream = branch[i]!;
      const blocker = branch[i + 1]!;
      if (upstream.kind !== 'work' || upstream.work_id === undefined) break;
      const owner = projection.work(upstream.work_id);
      if (owner === undefined) break;
      const edge = owner.dependsOn.find((e) => edgeKey(e) === stepKey(blocker));
      if (edge !== undefined) addEdge(owner, edge);
    }
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
  const label = (step: BlockingStep): BranchStep => {
    const v = vertices.get(stepKey(step));
    return {
      kind: step.kind, text: v?.text ?? step.work_id ?? step.gate ?? '', workId: step.work_id ?? null,
      href: v?.href ?? null, reason: step.reason, condition: step.condition ?? null,
    };
  };
  return {
    mermaid: lines.join('\n'),
    nodes: [...vertices.values()].map((v) => ({ id: v.id, href: v.href, text: v.text })),
    branches: branches.map((b) => b.map(label)),
    more,
  };
}

export { isGate };
