/**
 * Operation builders for the request kinds: submit (spec 7.2 defaults, 7.15
 * graph admission), dispatch_next (the one packer), finish (7.14), dispatch
 * lifecycle and release (7.8), result / delivery failure (7.15), observe
 * (7.16) and controls (7.10). Each returns `{kind, parameters, operations}`
 * for `buildCommit`; replay then validates the result.
 */
import { canonicalize } from '../codec/index.ts';
import { sha256Hex } from '../codec/digest.ts';
import { fail } from '../errors.ts';
import { workId as deriveWorkId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { ReplayState } from '../state/state.ts';
import { pack, type PackResult } from '../scheduler/pack.ts';
import { producerEntitlements } from '../replay/ops/producer-rules.ts';
import { roleMayRequest } from '../replay/rules.ts';
import { ATTEMPTS_EXHAUSTED } from '../replay/ops/dispatch.ts';
import { refuseProfileWorkflows } from '../replay/ops/profile-workflows.ts';
import type { Actor, QueueOperation } from '../schema/index.ts';
import { ownGet } from '../schema/record.ts';
import { CONTRACT_LIMITS, DEFAULT_PRIORITY } from '../schema/defaults.ts';
import type { QueuePolicy } from '../schema/policy.ts';
import { configuredPool, policyOrNull } from '../scheduler/policy-view.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

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
  /** A pre-existing Issue (full resource identity) that backs this Work; needs a projector rule's exact grant. */
  backing_issue?: JsonObject;
}

function policyOf(state: ReplayState): QueuePolicy {
  const policy = policyOrNull(state);
  if (policy === null) fail('queue_uninitialized', 'the queue has no installed Policy');
  return policy;
}

/** Resolves submit nodes into complete, immutable Work operations (defaults apply only here). */
export function workOperations(policy: JsonObject, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): QueueOperation[] {
  const pools = policy.pools as Record<string, JsonObject>;
  return nodes.map((node, i) => {
    const graphId = node.graph_id ?? defaults.graphId;
    const poolName = node.pool ?? 'default';
    const pool = ownGet(pools, poolName);
    if (pool === undefined) fail('unknown_pool', `node ${node.node_key} (graph ${graphId}): pool ${poolName} is not configured`, { path: `nodes.${i}.pool` });
    const profileName = node.worker_profile ?? (pool.default_profile as string);
    const profile = ownGet(pool.profiles as Record<string, JsonObject>, profileName);
    if (profile === undefined) fail('unknown_profile', `node ${node.node_key} (graph ${graphId}): pool ${poolName} has no profile ${profileName}`, { path: `nodes.${i}.worker_profile` });
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
      priority: node.priority ?? DEFAULT_PRIORITY,
      fairness_key: node.fairness_key ?? '',
      payload: node.payload,
      depends_on: depends,
      enqueued: node.enqueued ?? defaults.at,
      ...(node.execution_ref === undefined ? {} : { execution_ref: node.execution_ref }),
      ...(node.admission_contract === undefined ? {} : { admission_contract: node.admission_contract }),
      ...(node.backing_issue === undefined ? {} : { backing_issue: node.backing_issue }),
    } as unknown as QueueOperation;
  });
}

/**
 * Node keys are unique per graph inside one submission, and Work edges name a
 * node of the same graph that is in this submission or already admitted
 * (spec 7.15). Checked here so the error names node keys and paths; replay
 * checks the same rules on the resolved Work ids.
 */
function checkSubmission(admitted: ReadonlyMap<string, unknown>, nodes: readonly SubmitNode[], graphId: string): void {
  const seen = new Map<string, number>();
  nodes.forEach((node, i) => {
    const graph = node.graph_id ?? graphId;
    const key = deriveWorkId(graph, node.node_key);
    const first = seen.get(key);
    if (first !== undefined) {
      fail('duplicate_node_key', `duplicate node key ${node.node_key} in graph ${graph}: nodes.${first} and nodes.${i}`, { path: `nodes.${i}.node_key` }, { graph_id: graph, node_key: node.node_key, paths: [`nodes.${first}`, `nodes.${i}`] });
    }
    seen.set(key, i);
  });
  nodes.forEach((node, i) => {
    const graph = node.graph_id ?? graphId;
    (node.depends_on ?? []).forEach((edge, j) => {
      const path = `nodes.${i}.depends_on.${j}`;
      if (edge.kind !== 'work') {
        checkGateEdge(node.node_key, edge, path);
        return;
      }
      if (edge.node_key === node.node_key) fail('dependency_self', `${node.node_key} -> ${edge.node_key}: a node cannot depend on itself (graph ${graph})`, { path });
      const target = deriveWorkId(graph, edge.node_key);
      if (!seen.has(target) && !admitted.has(target)) {
        fail('dependency_missing', `${node.node_key} -> ${edge.node_key} (not in graph ${graph})`, { path }, { graph_id: graph, node_key: node.node_key, predecessor: edge.node_key });
      }
    });
  });
}

/**
 * An Issue gate is `completed` or `closed` on an Issue; a pull-request gate is `merged` on a pull
 * request (spec 7.16: the Issue-versus-PR type is preserved). Any other pairing is a gate no
 * trusted observation can satisfy (replay refuses such observations), so its Work would wait forever.
 */
function checkGateEdge(nodeKey: string, edge: { kind: 'issue' | 'pull_request'; condition: string; resource: JsonObject }, path: string): void {
  const conditions = edge.kind === 'issue' ? ['completed', 'closed'] : ['merged'];
  if (!conditions.includes(edge.condition)) {
    fail('dependency_invalid', `node ${nodeKey}: a ${edge.kind} gate's condition is ${conditions.join(' or ')}, not ${JSON.stringify(edge.condition)}`, { path: `${path}.condition` });
  }
  if (edge.resource.kind !== edge.kind) {
    fail('dependency_invalid', `node ${nodeKey}: a ${edge.kind} gate names a resource of kind ${JSON.stringify(edge.resource.kind)}; its resource.kind must be ${JSON.stringify(edge.kind)}`, { path: `${path}.resource.kind` });
  }
}

/** A digest of one Work definition (canonical JSON, SHA-256), for resubmission diagnostics. */
export function definitionDigest(definition: JsonObject): string {
  return sha256Hex(canonicalize(definition));
}

export interface SubmitBuilt extends BuiltRequest {
  /** Work ids of nodes already admitted with exactly this definition: they consume no operations. */
  existing: string[];
}

/**
 * submit (spec 7.15 "Atomic graph admission", contract `duplicate_node`): a node
 * already admitted with exactly the same definition is the existing record and
 * consumes no operation; only the new nodes are admitted, and their Work edges
 * to existing nodes resolve. A node whose definition differs from the admitted
 * one is `inconsistent_resubmission`. The trusted `enqueued` time is not part of
 * the comparison: a resubmission keeps the admitted node's position (7.2).
 */
export function submitRequest(source: QueueSource, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): SubmitBuilt {
  const state = stateOf(source);
  const policy = policyOf(state);
  checkSubmission(state.works, nodes, defaults.graphId);
  const resolved = workOperations(policy, nodes, defaults);
  const operations: QueueOperation[] = [];
  const existing: string[] = [];
  resolved.forEach((op, i) => {
    const work = op as unknown as JsonObject & { work_id: string; graph_id: string; node_key: string };
    const record = state.works.get(work.work_id);
    if (record === undefined) {
      operations.push(op);
      return;
    }
    const admitted = record.definition;
    const submitted = { ...work, enqueued: admitted.enqueued ?? work.enqueued } as JsonObject;
    if (canonicalize(submitted) !== canonicalize(admitted)) {
      const admittedDigest = definitionDigest(admitted);
      const submittedDigest = definitionDigest(submitted);
      fail('inconsistent_resubmission',
        `node ${work.node_key} in graph ${work.graph_id} is already admitted (commit ${record.admittedCommit}) with another definition: admitted ${admittedDigest}, submitted ${submittedDigest}; Work is immutable`,
        { path: `nodes.${i}` },
        { graph_id: work.graph_id, node_key: work.node_key, work_id: work.work_id, admitted_commit: record.admittedCommit, admitted_digest: admittedDigest, submitted_digest: submittedDigest });
    }
    existing.push(work.work_id);
  });
  return { kind: 'submit', parameters: { nodes: operations as unknown as JsonObject[] }, operations, existing };
}

/** What a submit becomes when every node is already admitted: no commit, the existing records. */
export interface AlreadyAdmitted {
  kind: string;
  parameters: JsonObject;
  noWrite: { code: 'already_admitted'; message: string; detail: { work_ids: string[]; commits: string[] } };
}

/**
 * An idempotent answer still requires a submitting role and current producer
 * entitlement (contract `duplicate_node`: "fresh requests still require current
 * producer entitlement"); replay checks the same for every admitted node.
 */
function checkEntitled(state: ReplayState, actor: Pick<Actor, 'role' | 'principal'>, existing: readonly string[]): void {
  if (!roleMayRequest(actor.role, 'submit')) fail('role_not_allowed', `role ${actor.role} may not publish submit requests`);
  const entitlements = producerEntitlements(policyOf(state).producers);
  if (entitlements === null) return;
  const rule = entitlements.get(actor.principal);
  for (const id of existing) {
    const w = state.works.get(id)!;
    if (rule === undefined || !rule.pools.has(w.pool) || !rule.priorities.has(w.priority) || !rule.fairnessKeys.has(w.fairnessKey)) {
      fail('producer_not_authorized', `principal ${actor.principal} may not submit node ${w.nodeKey} in graph ${w.graphId} (pool ${w.pool}, priority ${w.priority}, fairness key ${JSON.stringify(w.fairnessKey)})`);
    }
  }
}

/** `submitRequest` for the publisher: `already_admitted` (no write) when nothing is new. */
export function submitOrExisting(source: QueueSource, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number; actor: Pick<Actor, 'role' | 'principal'> }): SubmitBuilt | AlreadyAdmitted {
  const state = stateOf(source);
  const built = submitRequest(state, nodes, defaults);
  if (built.operations.length > 0) return built;
  checkEntitled(state, defaults.actor, built.existing);
  const commits = [...new Set(built.existing.map((id) => state.works.get(id)!.admittedCommit))];
  return {
    kind: built.kind,
    parameters: built.parameters,
    noWrite: {
      code: 'already_admitted',
      message: `all ${built.existing.length} node(s) are already admitted with exactly this definition (commit ${commits.join(', ')}); nothing written`,
      detail: { work_ids: built.existing, commits },
    },
  };
}

/** The bootstrap genesis: Policy first, then the submitted Work; parameters bind only the Work (spec 7.1). */
export function bootstrapRequest(policy: JsonObject, epoch: string, nodes: readonly SubmitNode[], defaults: { graphId: string; at: number }): BuiltRequest {
  refuseProfileWorkflows(policy);
  // Spec 7.17: at most `limits.operations` a commit, and the genesis holds the Policy beside every
  // Work, so one node fewer fits than in a later submission (replay refuses the commit anyway).
  const limits = ownGet(policy, 'limits');
  const configured = typeof limits === 'object' && limits !== null && !Array.isArray(limits) ? ownGet(limits, 'operations') : undefined;
  const limit = typeof configured === 'number' ? configured : CONTRACT_LIMITS.operations;
  if (nodes.length + 1 > limit) {
    fail('resource_limit', `the first submission's commit holds the Policy and every Work: at most ${limit - 1} nodes (${limit} operations a commit), not ${nodes.length}; submit the rest once the queue exists`, {}, { limit: 'operations', max: limit, value: nodes.length + 1 });
  }
  checkSubmission(new Map(), nodes, defaults.graphId);
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
  source: QueueSource,
  input: DispatchNextInput,
  ids: { requestId: string; commitId: string },
  at: number,
): BuiltRequest & { plan: PackResult } {
  const plan = pack(stateOf(source), { requestId: ids.requestId, commitId: ids.commitId, ...input }, at);
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
export function finishRequest(source: QueueSource, input: { dispatch_id: string; claim_handle: string; outcome: 'completed' | 'cancelled' }, at: number): BuiltRequest {
  const state = stateOf(source);
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
  const { retry } = configuredPool(policyOf(state), group.pool);
  const ops: JsonObject[] = [{ kind: 'ClaimCancellation', work_id: claim.workId, claim_id: claim.claimId, reason: 'worker_cancelled', retry_not_before: at + retry.backoff_ms }];
  const work = state.works.get(claim.workId)!;
  if (work.attempts >= retry.max_attempts && work.currentClaim === claim.claimId && work.state === 'claimed') {
    ops.push({ kind: 'WorkCancellation', work_id: claim.workId, reason: ATTEMPTS_EXHAUSTED });
  }
  return { kind: 'finish', parameters, operations: ops as unknown as QueueOperation[] };
}
