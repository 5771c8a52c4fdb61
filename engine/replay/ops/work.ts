/**
 * Work admission (spec 7.2, 7.15 "Atomic graph admission"), WorkCancellation
 * and the administrator WorkPriority override (spec 7.6).
 */
import { canonicalize, utf8ByteLength } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import { workId as deriveWorkId } from '../../identity/index.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { bump, chargeLogical, reindexWork, setWorkState, touch } from '../mutate.ts';
import type { DependencyEdge, WorkRecord } from '../state.ts';
import { checkGates, checkGraphPool, checkReplacement, checkSubject } from './admission.ts';
import { currentPolicy, poolPolicy } from './policy.ts';
import { ownGet } from '../../schema/record.ts';

type WorkOp = OperationOf<'Work'>;

/** Validates and admits one Work operation. Work edges may point forward inside the same commit. */
export function applyWork(ctx: CommitContext, op: WorkOp): void {
  const { state } = ctx;
  const at = where(ctx);
  const policy = currentPolicy(ctx);
  if (state.controls.admission_paused) fail('admission_paused', 'new Work admission is paused by a Control', at);
  if (op.work_id !== deriveWorkId(op.graph_id, op.node_key)) {
    fail('work_id_mismatch', `work_id ${op.work_id} is not SHA256(canonical({graph_id,node_key}))`, at);
  }
  if (state.works.has(op.work_id)) fail('duplicate_work', `Work ${op.work_id} is already admitted; Work is immutable`, at);

  const pool = poolPolicy(ctx, op.pool);
  const profiles = pool.profiles as Record<string, JsonObject>;
  const profile = ownGet(profiles, op.worker_profile);
  if (profile === undefined) fail('unknown_profile', `pool ${op.pool} has no approved worker profile ${op.worker_profile}`, at);
  if (profile.trust_domain !== op.batch_trust_domain) {
    fail('trust_domain_mismatch', `batch_trust_domain ${op.batch_trust_domain} differs from the profile's ${String(profile.trust_domain)}`, at);
  }
  const weights = policy.accounting_weights as Record<string, number>;
  if (!Object.prototype.hasOwnProperty.call(weights, op.fairness_key)) {
    fail('unknown_fairness_key', `fairness key ${JSON.stringify(op.fairness_key)} is not registered in the Policy`, at);
  }
  checkProducer(ctx, op);

  const limits = policy.limits as Record<string, number>;
  // JSON.stringify spells a well-formed value exactly as canonicalize does, up to key
  // order, so its UTF-8 length is the canonical size (payloads are checked well-formed by the codec).
  const payloadBytes = utf8ByteLength(JSON.stringify(op.payload));
  if (payloadBytes > (limits.payload_bytes ?? 16384)) {
    fail('payload_too_large', `payload is ${payloadBytes} canonical bytes; the limit is ${limits.payload_bytes}`, at);
  }
  if (op.depends_on.length > (limits.predecessors ?? 64)) fail('too_many_predecessors', `Work has ${op.depends_on.length} predecessors`, at);
  checkGraphPool(ctx, op);
  checkGates(ctx, op);
  checkEdges(ctx, op, pool.allowed_repositories as string[]);
  checkSubject(ctx, op, pool.allowed_repositories as string[]);
  checkReplacement(ctx, op);

  const graph = state.graphs.get(op.graph_id);
  if ((graph?.length ?? 0) + 1 > (limits.graph_nodes ?? 4096)) fail('graph_limit', `graph ${op.graph_id} is at its node limit`, at);
  const pending = ctx.state.pendingByPool.get(op.pool) ?? 0;
  if (pending + 1 > (limits.pending_nodes ?? 4096)) fail('pending_limit', `pool ${op.pool} is at its pending-node limit`, at);

  const record: WorkRecord = {
    workId: op.work_id,
    graphId: op.graph_id,
    nodeKey: op.node_key,
    pool: op.pool,
    workerProfile: op.worker_profile,
    batchTrustDomain: op.batch_trust_domain,
    priority: op.priority,
    effectivePriority: op.priority,
    fairnessKey: op.fairness_key,
    dependsOn: op.depends_on as DependencyEdge[],
    enqueued: op.enqueued,
    definition: op as unknown as JsonObject,
    position: { ordinal: ctx.ordinal, operation: ctx.index },
    fifo: ctx.ordinal * 65536 + ctx.index,
    admittedCommit: ctx.commit.id,
    policyEpoch: ctx.commit.policy_epoch,
    state: 'completed', // placeholder so setWorkState indexes the transition below
    barrier: 'none',
    currentClaim: null,
    claims: [],
    attempts: 0,
    retryNotBefore: null,
    completionCommit: null,
    completionAt: null,
    resultCommit: null,
    deliveryFailureCommit: null,
    cancellationCommit: null,
    cancellationReason: null,
    touchedBy: [ctx.commit.id],
  };
  state.works.set(op.work_id, record);
  setWorkState(state, record, 'available');
  bump(state.pendingByPool, op.pool, 1);
  if (graph === undefined) state.graphs.set(op.graph_id, [op.work_id]);
  else graph.push(op.work_id);
  for (const edge of op.depends_on) {
    if (edge.kind !== 'work') continue;
    const list = state.successors.get(edge.work_id);
    if (list === undefined) state.successors.set(edge.work_id, [op.work_id]);
    else list.push(op.work_id);
  }
}

function checkProducer(ctx: CommitContext, op: WorkOp): void {
  const producers = currentPolicy(ctx).producers as Record<string, { pools: string[]; priorities: number[]; fairness_keys: string[] }> | undefined;
  if (producers === undefined || Object.keys(producers).length === 0) return;
  const rule = ownGet(producers, ctx.commit.actor.principal);
  const at = where(ctx);
  if (rule === undefined) fail('producer_not_authorized', `principal ${ctx.commit.actor.principal} has no producer entitlement`, at);
  if (!rule.pools.includes(op.pool)) fail('producer_not_authorized', `producer may not submit to pool ${op.pool}`, at);
  if (!rule.priorities.includes(op.priority)) fail('producer_not_authorized', `producer may not submit priority ${op.priority}`, at);
  if (!rule.fairness_keys.includes(op.fairness_key)) fail('producer_not_authorized', `producer may not use fairness key ${JSON.stringify(op.fairness_key)}`, at);
}

/** Work edges resolve inside the graph (existing nodes or this commit); Issue/PR edges stay within the allowlist. */
function checkEdges(ctx: CommitContext, op: WorkOp, allowed: string[]): void {
  const at = where(ctx);
  const seen = new Set<string>();
  for (const edge of op.depends_on) {
    const key = canonicalize(edge as unknown as JsonObject);
    if (seen.has(key)) fail('duplicate_dependency', 'depends_on lists the same edge twice', at);
    seen.add(key);
    if (edge.kind === 'work') {
      if (edge.work_id === op.work_id) fail('dependency_self', 'a Work cannot depend on itself', at);
      const target = ctx.state.works.get(edge.work_id) ?? sameCommitWork(ctx, edge.work_id);
      if (target === undefined) fail('dependency_missing', `predecessor ${edge.work_id} is not admitted`, at);
      const graphId = 'graphId' in target ? target.graphId : target.graph_id;
      if (graphId !== op.graph_id) fail('dependency_foreign_graph', `predecessor ${edge.work_id} belongs to another graph`, at);
    } else if (!allowed.includes(edge.resource.repository)) {
      fail('repository_not_allowed', `${edge.resource.repository} is not in the pool's allowed repositories`, at);
    }
  }
  checkCycle(ctx, op);
}

function sameCommitWork(ctx: CommitContext, id: string): WorkOp | undefined {
  for (const other of ctx.commit.operations) {
    if (other.kind === 'Work' && other.work_id === id) return other;
  }
  return undefined;
}

/** Existing Work never points at new Work, so a cycle can only run through this commit's nodes. */
function checkCycle(ctx: CommitContext, op: WorkOp): void {
  const path: string[] = [];
  const onPath = new Set<string>();
  const done = new Set<string>();
  const visit = (id: string): void => {
    if (done.has(id) || ctx.state.works.has(id)) return;
    const node = sameCommitWork(ctx, id);
    if (node === undefined) return;
    if (onPath.has(id)) {
      const cycle = [...path.slice(path.indexOf(id)), id].map((w) => sameCommitWork(ctx, w)?.node_key ?? w);
      fail('dependency_cycle', `dependency cycle: ${cycle.join(' -> ')}`, where(ctx), { cycle });
    }
    onPath.add(id);
    path.push(id);
    for (const edge of node.depends_on) if (edge.kind === 'work') visit(edge.work_id);
    path.pop();
    onPath.delete(id);
    done.add(id);
  };
  visit(op.work_id);
}

/**
 * Terminal cancellation (spec 7.6 operation table, 7.14, operator reference "Cancellation
 * preserves dispatch membership, fairness charges, and native reservations"). An optional
 * `claim_id` is the ownership fence: it must name the Work's current open Claim. Cancelling a
 * claimed Work closes that Claim and frees its logical slot ("Closing a Claim frees its
 * logical slot"); the group's native reservation stays until a Release with exact evidence,
 * and the Claim's charge is never refunded.
 */
export function applyWorkCancellation(ctx: CommitContext, op: OperationOf<'WorkCancellation'>): void {
  const at = where(ctx);
  const { state } = ctx;
  const work = state.works.get(op.work_id);
  if (work === undefined) fail('unknown_work', `Work ${op.work_id} is not admitted`, at);
  if (work.state === 'completed' || work.state === 'cancelled') fail('work_terminal', `Work ${op.work_id} is already ${work.state}`, at);
  if (op.claim_id !== undefined) {
    const fenced = state.claims.get(op.claim_id);
    if (fenced === undefined || fenced.workId !== work.workId || work.state !== 'claimed' || work.currentClaim !== fenced.claimId || fenced.state !== 'open') {
      fail('claim_scope_invalid', `Claim ${op.claim_id} is not the current open owner of Work ${op.work_id}; refresh state`, at);
    }
    work.cancellationClaim = op.claim_id;
  }
  checkProducerCancellation(ctx, work);
  if (work.state === 'claimed' && work.currentClaim !== null) {
    const claim = state.claims.get(work.currentClaim)!;
    if (claim.state === 'open') {
      claim.state = 'cancelled';
      claim.terminalCommitId = ctx.commit.id;
      claim.cancelReason = op.reason;
      chargeLogical(state, state.dispatches.get(claim.dispatchId)!.pool, claim.fairnessKey, -1);
    }
  }
  setWorkState(state, work, 'cancelled');
  bump(state.pendingByPool, work.pool, -1);
  work.cancellationCommit = ctx.commit.id;
  work.cancellationReason = op.reason;
  touch(work, ctx.commit.id);
}

/**
 * A producer cancels only Work inside its own entitlement (pool, admitted priority, fairness
 * key), as the reference replayer checks ("producer cannot cancel another accounting scope").
 * With no producer rules installed, admission is open and so is this.
 */
function checkProducerCancellation(ctx: CommitContext, work: WorkRecord): void {
  if (ctx.commit.actor.role !== 'producer') return;
  const producers = currentPolicy(ctx).producers as Record<string, { pools: string[]; priorities: number[]; fairness_keys: string[] }> | undefined;
  if (producers === undefined || Object.keys(producers).length === 0) return;
  const rule = ownGet(producers, ctx.commit.actor.principal);
  if (rule === undefined || !rule.pools.includes(work.pool) || !rule.priorities.includes(work.priority) || !rule.fairness_keys.includes(work.fairnessKey)) {
    fail('producer_not_authorized', `producer ${ctx.commit.actor.principal} may not cancel Work ${work.workId} outside its entitlement`, where(ctx));
  }
}

export function applyWorkPriority(ctx: CommitContext, op: OperationOf<'WorkPriority'>): void {
  const at = where(ctx);
  if (ctx.commit.actor.role !== 'administrator') fail('role_not_allowed', 'WorkPriority is administrator-only', at);
  const work = ctx.state.works.get(op.work_id);
  if (work === undefined) fail('unknown_work', `Work ${op.work_id} is not admitted`, at);
  if (work.state !== 'available') fail('work_not_available', `only available Work can be reprioritized; ${op.work_id} is ${work.state}`, at);
  if (work.effectivePriority !== op.expected_priority) {
    fail('priority_conflict', `expected priority ${op.expected_priority} but Work has ${work.effectivePriority}`, at);
  }
  reindexWork(ctx.state, work, op.priority);
  touch(work, ctx.commit.id);
}
