/**
 * Operation builders for the request kinds: submit (spec 7.2 defaults, 7.15
 * graph admission), dispatch_next (the one packer), finish (7.14), dispatch
 * lifecycle and release (7.8), result / delivery failure (7.15), observe
 * (7.16) and controls (7.10). Each returns `{kind, parameters, operations}`
 * for `buildCommit`; replay then validates the result.
 */
import { fail } from '../errors.ts';
import { workId as deriveWorkId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { ReplayState } from '../replay/state.ts';
import { pack, type PackResult } from '../scheduler/pack.ts';
import type { QueueOperation } from '../schema/index.ts';
import { ownGet } from '../schema/record.ts';

export interface BuiltRequest {
  kind: string;
  parameters: JsonObject;
  operations: QueueOperation[];
}

export interface SubmitNode {
  node_key: string;
  payload: JsonObject;
  graph_id?: string;
  /** Work edges by node key (same graph), or typed Issue/PR edges with resolved identity. */
  depends_on?: Array<{ kind: 'work'; node_key: string } | { kind: 'issue' | 'pull_request'; condition: string; resource: JsonObject }>;
  priority?: number;
  fairness_key?: string;
  pool?: string;
  worker_profile?: string;
  enqueued?: number;
  /** Pin execution to this registered immutable revision (spec 7.10). */
  execution_ref?: string;
  /** Explicit logical contract; omitted, admission freezes the route's approved one. */
  admission_contract?: string;
}

function policyOf(state: ReplayState): JsonObject {
  if (state.policy === null) fail('queue_uninitialized', 'the queue has no installed Policy');
  return state.policy.policy;
}

/** Resolves submit nodes into complete, immutable Work operations (defaults apply only here). */
export function workOperations(policy: JsonObject, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): QueueOperation[] {
  const pools = policy.pools as Record<string, JsonObject>;
  return nodes.map((node) => {
    const graphId = node.graph_id ?? defaults.graphId;
    const poolName = node.pool ?? 'default';
    const pool = ownGet(pools, poolName);
    if (pool === undefined) fail('unknown_pool', `pool ${poolName} is not configured`);
    const profileName = node.worker_profile ?? (pool.default_profile as string);
    const profile = ownGet(pool.profiles as Record<string, JsonObject>, profileName);
    if (profile === undefined) fail('unknown_profile', `pool ${poolName} has no profile ${profileName}`);
    const depends = (node.depends_on ?? []).map((edge) =>
      edge.kind === 'work' ? { kind: 'work', work_id: deriveWorkId(graphId, edge.node_key) } : edge,
    );
    return {
      kind: 'Work',
      work_id: deriveWorkId(graphId, node.node_key),
      graph_id: graphId,
      node_key: node.node_key,
      pool: poolName,
      worker_profile: profileName,
      batch_trust_domain: profile.trust_domain as string,
      priority: node.priority ?? 3,
      fairness_key: node.fairness_key ?? '',
      payload: node.payload,
      depends_on: depends,
      enqueued: node.enqueued ?? defaults.at,
      ...(node.execution_ref === undefined ? {} : { execution_ref: node.execution_ref }),
      ...(node.admission_contract === undefined ? {} : { admission_contract: node.admission_contract }),
    } as unknown as QueueOperation;
  });
}

export function submitRequest(state: ReplayState, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): BuiltRequest {
  const operations = workOperations(policyOf(state), nodes, defaults);
  return { kind: 'submit', parameters: { nodes: operations as unknown as JsonObject[] }, operations };
}

/** The bootstrap genesis: Policy first, then the submitted Work; parameters bind only the Work (spec 7.1). */
export function bootstrapRequest(policy: JsonObject, epoch: string, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): BuiltRequest {
  const works = workOperations(policy, nodes, defaults);
  return {
    kind: 'submit',
    parameters: { nodes: works as unknown as JsonObject[] },
    operations: [{ kind: 'Policy', epoch, policy } as unknown as QueueOperation, ...works],
  };
}

export interface DispatchNextInput {
  pool: string;
  max_claims: number;
  max_dispatches: number;
  max_bytes: number;
}

/** Runs the packer for a fresh dispatch_next; `plan.claims` empty means a no-grant outcome. */
export function dispatchNextRequest(
  state: ReplayState,
  input: DispatchNextInput,
  ids: { requestId: string; commitId: string },
  at: number,
): BuiltRequest & { plan: PackResult } {
  const plan = pack(state, { requestId: ids.requestId, commitId: ids.commitId, ...input }, at);
  return {
    kind: 'dispatch_next',
    parameters: { ...input },
    operations: plan.claims as unknown as QueueOperation[],
    plan,
  };
}

/** A request whose parameters are exactly its persisted operations. */
export function operationsRequest(kind: string, operations: JsonObject[]): BuiltRequest {
  return { kind, parameters: { operations }, operations: operations as unknown as QueueOperation[] };
}

/** finish {dispatch_id, claim_handle, outcome} (spec 7.14), with retry-not-before and attempt exhaustion (7.4). */
export function finishRequest(state: ReplayState, input: { dispatch_id: string; claim_handle: string; outcome: 'completed' | 'cancelled' }, at: number): BuiltRequest {
  const group = state.dispatches.get(input.dispatch_id);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${input.dispatch_id} does not exist`);
  const claim = group.claimIds.map((id) => state.claims.get(id)!).find((c) => c.handle === input.claim_handle);
  if (claim === undefined) fail('claim_scope_invalid', `dispatch ${input.dispatch_id} has no member ${input.claim_handle}`);
  const parameters = { ...input };
  if (input.outcome === 'completed') {
    const run = group.run as { run_id?: string } | null;
    if (run?.run_id === undefined) fail('run_binding_missing', `dispatch ${input.dispatch_id} has no run binding yet`);
    const op = { kind: 'Completion', work_id: claim.workId, claim_id: claim.claimId, dispatch_id: group.dispatchId, claim_handle: claim.handle, run_id: run.run_id, run_attempt: 1 };
    return { kind: 'finish', parameters, operations: [op as unknown as QueueOperation] };
  }
  const pool = (policyOf(state).pools as Record<string, JsonObject>)[group.pool]!;
  const retry = pool.retry as { max_attempts: number; backoff_ms: number };
  const ops: JsonObject[] = [{ kind: 'ClaimCancellation', work_id: claim.workId, claim_id: claim.claimId, reason: 'worker_cancelled', retry_not_before: at + retry.backoff_ms }];
  const work = state.works.get(claim.workId)!;
  if (work.attempts >= retry.max_attempts && work.currentClaim === claim.claimId && work.state === 'claimed') {
    ops.push({ kind: 'WorkCancellation', work_id: claim.workId, reason: 'attempts_exhausted' });
  }
  return { kind: 'finish', parameters, operations: ops as unknown as QueueOperation[] };
}
