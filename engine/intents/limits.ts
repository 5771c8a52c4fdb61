/**
 * What an agent may ask for, resolved under the trusted producer policy
 * (spec 7.12 "Agent may decide / Protocol must decide", 8.2 "Trust"):
 *
 * - a worker-generated submit inherits its parent Claim's pool, priority and
 *   fairness key; it may lower urgency but never raise it
 *   (`priority_escalation`), never switch key (`fairness_key_not_allowed`)
 *   or pool (`pool_not_allowed`);
 * - nobody creates fairness keys: a key must be registered in the installed
 *   Policy (`unknown_fairness_key`); pools and profiles must exist;
 * - a worker-generated dispatch_next stays in its own pool.
 *
 * Policy is never an agent input (the schemas reject it). These checks run at
 * staging (against the snapshot) and again at processing (against the live
 * queue); replay enforces the same facts once more on publication.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import type { SubmitNode } from '../requests/operations.ts';
import type { ClaimScope } from './scope.ts';
import type { DispatchInput, SubmitInput, SubmitNodeInput } from './schemas.ts';

/** The parent Claim a worker-generated intent inherits from. */
export interface ParentScope {
  pool: string;
  /** The parent Work's admitted priority: child admission inherits the original definition (spec 7.6 WorkPriority). */
  priority: number;
  fairness_key: string;
  graph_id: string;
}

export interface SubmitContext {
  /** Installed Policy (null: the queue does not exist yet and the bootstrap Policy is checked later). */
  policy: JsonObject | null;
  intentId: string;
  /** Trusted `enqueued` time (the snapshot's creation time: stable across retries). */
  enqueued: number;
  parent: ParentScope | null;
}

export const DEFAULT_POOL = 'default';

/**
 * The graph of a node submitted without a graph id: one per pool, named after the pool
 * (pool `default` keeps graph `default`). One graph stays in one pool (spec 7.15), so a
 * shared default graph would make a second pool's Work inadmissible.
 */
export function defaultGraphId(pool: string | undefined): string {
  return pool ?? DEFAULT_POOL;
}

/** The inherited scheduling scope of a worker's Claim (from the ledger, never from the agent). */
export function parentScopeOf(projection: Projection, scope: ClaimScope): ParentScope {
  const claim = projection.claim(scope.claim_id);
  if (claim === undefined || claim.handle !== scope.claim_handle) fail('claim_scope_invalid', `Claim ${scope.claim_id} is not in the queue ledger`);
  const work = projection.work(claim.workId)!;
  return { pool: work.pool, priority: work.priority, fairness_key: work.fairnessKey, graph_id: work.graphId };
}

function inherit(node: SubmitNodeInput, parent: ParentScope, where: string): { pool: string; priority: number; fairness_key: string } {
  if (node.pool !== undefined && node.pool !== parent.pool) {
    fail('pool_not_allowed', `${where}: a worker's submission stays in its Claim's pool ${parent.pool}`, { path: `${where}.pool` });
  }
  if (node.priority !== undefined && node.priority < parent.priority) {
    fail('priority_escalation', `${where}: priority ${node.priority} is more urgent than the inherited priority ${parent.priority}`, { path: `${where}.priority` });
  }
  if (node.fairness_key !== undefined && node.fairness_key !== parent.fairness_key) {
    fail('fairness_key_not_allowed', `${where}: a worker's submission keeps its Claim's fairness key`, { path: `${where}.fairness_key` });
  }
  return { pool: parent.pool, priority: node.priority ?? parent.priority, fairness_key: parent.fairness_key };
}

function checkAgainstPolicy(policy: JsonObject, node: SubmitNode, where: string): void {
  const weights = policy.accounting_weights as Record<string, number>;
  const key = node.fairness_key ?? '';
  if (!Object.hasOwn(weights, key)) {
    fail('unknown_fairness_key', `${where}: fairness key ${JSON.stringify(key)} is not registered in the installed Policy; agents cannot create keys`, { path: `${where}.fairness_key` });
  }
  const pools = policy.pools as Record<string, JsonObject>;
  const poolName = node.pool ?? DEFAULT_POOL;
  if (!Object.hasOwn(pools, poolName)) fail('unknown_pool', `${where}: pool ${poolName} is not configured`, { path: `${where}.pool` });
  const profiles = pools[poolName]!.profiles as Record<string, JsonObject>;
  if (node.worker_profile !== undefined && !Object.hasOwn(profiles, node.worker_profile)) {
    fail('unknown_profile', `${where}: pool ${poolName} has no approved worker profile ${node.worker_profile}`, { path: `${where}.worker_profile` });
  }
}

/** Resolves a staged submit into complete submit nodes, or throws the coded limit it breaks. */
export function resolveSubmit(input: SubmitInput, ctx: SubmitContext): { graphId: string; nodes: SubmitNode[] } {
  const given = input.nodes ?? (input.node === undefined ? [] : [input.node]);
  const explicitGraph = input.graph_id ?? ctx.parent?.graph_id;
  const graphId = explicitGraph ?? defaultGraphId(given[0]?.pool);
  const nodes = given.map((node, i): SubmitNode => {
    const where = input.nodes === undefined ? 'node' : `nodes.${i}`;
    const scope = ctx.parent === null
      ? { pool: node.pool, priority: node.priority, fairness_key: node.fairness_key }
      : inherit(node, ctx.parent, where);
    const resolved: SubmitNode = {
      node_key: node.node_key ?? `${ctx.intentId}.${i + 1}`,
      payload: node.payload as JsonObject,
      enqueued: ctx.enqueued,
      ...(scope.pool === undefined ? {} : { pool: scope.pool }),
      ...(scope.priority === undefined ? {} : { priority: scope.priority }),
      ...(scope.fairness_key === undefined ? {} : { fairness_key: scope.fairness_key }),
      ...(node.worker_profile === undefined ? {} : { worker_profile: node.worker_profile }),
      ...(node.depends_on === undefined ? {} : { depends_on: node.depends_on as SubmitNode['depends_on'] }),
      ...(explicitGraph === undefined ? { graph_id: defaultGraphId(scope.pool) } : {}),
    };
    if (ctx.policy !== null) checkAgainstPolicy(ctx.policy, resolved, where);
    return resolved;
  });
  // A node key is unique within its graph (spec 7.15): nodes of two pools without a graph id are in
  // two default graphs, so the same key may name one node in each (as the submit builder keys them).
  const first = new Map<string, number>();
  nodes.forEach((n, i) => {
    const graph = n.graph_id ?? graphId;
    const key = JSON.stringify([graph, n.node_key]);
    const earlier = first.get(key);
    if (earlier !== undefined) {
      fail('duplicate_node_key', `duplicate node key ${n.node_key} in graph ${graph}: nodes.${earlier} and nodes.${i}`, { path: `nodes.${i}.node_key` });
    }
    first.set(key, i);
  });
  return { graphId, nodes };
}

/** A worker-generated dispatch_next stays in its Claim's pool; pools must exist. */
export function checkDispatch(input: DispatchInput, policy: JsonObject | null, parent: ParentScope | null): void {
  if (parent !== null && input.pool !== parent.pool) {
    fail('pool_not_allowed', `a worker's dispatch_next stays in its Claim's pool ${parent.pool}`, { path: 'pool' });
  }
  if (policy !== null && !Object.hasOwn(policy.pools as JsonObject, input.pool)) {
    fail('unknown_pool', `pool ${input.pool} is not configured`, { path: 'pool' });
  }
}
