/**
 * Admission rules of a Work node beyond its own fields (spec 7.15 "Atomic graph
 * admission", "Replacement after delivery failure"; 7.16 "Stable identity and
 * permissions"):
 *
 * - one graph stays in one pool (first release): `graph_invalid`;
 * - an Issue/PR gate names a resource of its own kind (7.16: the Issue-versus-PR type is
 *   preserved; an Issue gate on a pull request could never be satisfied, since Observations are
 *   refused for the other kind), and appears once per Work, deduplicated by its resolved
 *   identity and condition, never by edge text: `dependency_invalid`;
 * - a `subject` names a resource of the pool's allowed repositories:
 *   `resource_unauthorized`;
 * - a replacement references a delivery-failed node and inherits its pool,
 *   priority and fairness key: `replacement_invalid`;
 * - a graph's node count (its Work plus its distinct Issue/PR gate vertices, a
 *   shared gate counted once per resource identity and condition; 7.16 "Per-graph
 *   node limits count all three kinds") stays within `graph_nodes`: `resource_limit`.
 */
import { fail } from '../../errors.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import type { DependencyEdge, ReplayState } from '../../state/state.ts';
import { checkLimit } from './limits.ts';
import { gateIdentity } from '../../scheduler/eligibility.ts';

type WorkOp = OperationOf<'Work'>;

export function checkGraphPool(ctx: CommitContext, op: WorkOp): void {
  const first = ctx.state.graphs.get(op.graph_id)?.[0];
  const pool = first === undefined ? undefined : ctx.state.works.get(first)?.pool;
  if (pool !== undefined && pool !== op.pool) {
    fail('graph_invalid', `graph ${op.graph_id} is in pool ${pool}; node ${op.node_key} cannot join it from pool ${op.pool} (one graph stays in one pool)`, where(ctx), { graph_id: op.graph_id, graph_pool: pool, pool: op.pool });
  }
}

export function checkGates(ctx: CommitContext, op: WorkOp): void {
  const edges = op.depends_on;
  let seen: Map<string, number> | undefined; // made for the first gate: most nodes have none
  for (let index = 0; index < edges.length; index++) {
    const edge = edges[index]!;
    if (edge.kind === 'work') continue;
    if (edge.resource.kind !== edge.kind) {
      fail('dependency_invalid', `node ${op.node_key}: its ${edge.kind} gate names a resource of kind ${edge.resource.kind}, which no ${edge.condition} Observation can satisfy`, { ...where(ctx), path: `depends_on.${index}.resource.kind` });
    }
    const gate = gateIdentity(edge);
    const earlier = seen?.get(gate);
    if (earlier !== undefined) {
      fail('dependency_invalid', `node ${op.node_key} lists the ${edge.kind} gate ${edge.resource.repository}#${edge.resource.number} (${edge.condition}) twice: depends_on.${earlier} and depends_on.${index} resolve to the same resource and condition`, { ...where(ctx), path: `depends_on.${index}` });
    }
    (seen ??= new Map()).set(gate, index);
  }
}

export function checkSubject(ctx: CommitContext, op: WorkOp, allowed: readonly string[]): void {
  const subject = op.subject;
  if (subject !== undefined && !allowed.includes(subject.repository)) {
    fail('resource_unauthorized', `subject ${subject.repository}#${subject.number} of node ${op.node_key} is not in pool ${op.pool}'s allowed repositories`, { ...where(ctx), path: 'subject' });
  }
}

export function checkReplacement(ctx: CommitContext, op: WorkOp): void {
  if (op.replacement_of === undefined) return;
  const at = where(ctx);
  // Spec 7.15: "An authorized operator or producer may admit a new node … with a validated
  // replacement_of reference … and an approved remediation plan"; "Agent assertions are not such evidence".
  const role = ctx.commit.actor.role;
  if (role !== 'producer' && role !== 'administrator') {
    fail('replacement_invalid', `a replacement is admitted by an operator or producer with an approved remediation plan, not by a ${role}`, at);
  }
  const failed = ctx.state.works.get(op.replacement_of.work_id);
  if (failed === undefined || failed.barrier !== 'failed') {
    fail('replacement_invalid', `replacement_of ${op.replacement_of.work_id} is not a delivery-failed Work`, at);
  }
  const differs = failed.pool !== op.pool ? `pool ${op.pool} (the failed node's is ${failed.pool})`
    : failed.priority !== op.priority ? `priority ${op.priority} (the failed node's is ${failed.priority})`
      : failed.fairnessKey !== op.fairness_key ? `fairness key ${JSON.stringify(op.fairness_key)} (the failed node's is ${JSON.stringify(failed.fairnessKey)})`
        : null;
  if (differs !== null) {
    fail('replacement_invalid', `a replacement inherits the failed node's pool, priority and fairness key; node ${op.node_key} has ${differs}`, at);
  }
}

/** Distinct gate identities (resource + condition) of a node's Issue/PR edges. */
function gateKeys(edges: readonly DependencyEdge[] | WorkOp['depends_on']): ReadonlySet<string> {
  let keys: Set<string> | undefined;
  for (const edge of edges) if (edge.kind !== 'work') (keys ??= new Set()).add(gateIdentity(edge));
  return keys ?? NO_GATES;
}

/** Shared by every node without Issue/PR edges (most): never stored, never written. */
const NO_GATES: ReadonlySet<string> = new Set();

/** Records a node's gate vertices in its graph (admission and checkpoint restore). */
export function addGraphGates(state: ReplayState, graphId: string, edges: readonly DependencyEdge[] | WorkOp['depends_on']): void {
  const keys = gateKeys(edges);
  if (keys.size === 0) return;
  const known = state.graphGates.get(graphId);
  if (known === undefined) state.graphGates.set(graphId, keys as Set<string>);
  else for (const key of keys) known.add(key);
}

/** `graph_nodes` counts the graph's Work and its distinct gate vertices, this node's included. */
export function checkGraphNodes(ctx: CommitContext, op: WorkOp): void {
  const works = (ctx.state.graphs.get(op.graph_id)?.length ?? 0) + 1;
  const known = ctx.state.graphGates.get(op.graph_id);
  let gates = known?.size ?? 0;
  for (const key of gateKeys(op.depends_on)) if (known === undefined || !known.has(key)) gates++;
  checkLimit(ctx, 'graph_nodes', works + gates, () => `graph ${op.graph_id}'s node count with node ${op.node_key} (${works} Work + ${gates} distinct Issue/PR gates)`,
    () => ({ node_key: op.node_key, graph_id: op.graph_id, value: works + gates, work_nodes: works, gate_nodes: gates }));
}
