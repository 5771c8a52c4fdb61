/**
 * Work admission (spec 7.2, 7.15 "Atomic graph admission"), WorkCancellation
 * and the administrator WorkPriority override (spec 7.6).
 */
import { canonicalize } from '../../codec/index.ts';
import { notePayloadBytes } from '../../scheduler/assignment.ts';
import { fail } from '../../errors.ts';
import { workId as deriveWorkId } from '../../identity/index.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { bump, chargeLogical, reindexWork, setWorkState, touch } from '../../state/mutate.ts';
import type { DependencyEdge, ResourceIdentity, WorkRecord } from '../../state/state.ts';
import { sourcedPosition, withSourcedDefinition } from '../../state/definitions.ts';
import { addGraphGates, checkGates, checkGraphNodes, checkGraphPool, checkReplacement, checkSubject } from './admission.ts';
import { checkLimit, limitOf, type CheckedLimit } from './limits.ts';
import { payloadSize } from './payload-size.ts';
import { checkBackingIssue, noteBackingIssue } from './backing-issue.ts';
import { repeatsWorkCancellation } from './repeat.ts';
import { checkPrelaunchCancellation } from './claim.ts';
import { currentPolicy, poolPolicy } from './policy.ts';
import { producerEntitlements } from './producer-rules.ts';
import { ownGet } from '../../schema/record.ts';

type WorkOp = OperationOf<'Work'>;

/** Validates and admits one Work operation. Work edges may point forward inside the same commit. */
export function applyWork(ctx: CommitContext, op: WorkOp): void {
  const { state } = ctx;
  const policy = currentPolicy(ctx);
  if (state.controls.admission_paused) fail('admission_paused', `${nodeName(op)}: new Work admission is paused by a Control`, where(ctx));
  if (ctx.measures?.workIdsVerified !== true && op.work_id !== deriveWorkId(op.graph_id, op.node_key)) {
    fail('work_id_mismatch', `${nodeName(op)}: work_id ${op.work_id} is not SHA256(canonical({graph_id,node_key}))`, atPath(ctx, 'work_id'));
  }
  if (state.works.has(op.work_id)) duplicateWork(ctx, op);

  const pool = poolPolicy(ctx, op.pool);
  const profile = ownGet(pool.profiles, op.worker_profile);
  if (profile === undefined) fail('unknown_profile', `${nodeName(op)}: pool ${op.pool} has no approved worker profile ${op.worker_profile}`, atPath(ctx, 'worker_profile'));
  if (profile.trust_domain !== op.batch_trust_domain) {
    fail('trust_domain_mismatch', `${nodeName(op)}: batch_trust_domain ${op.batch_trust_domain} differs from the profile's ${String(profile.trust_domain)}`, atPath(ctx, 'batch_trust_domain'));
  }
  const weights = policy.accounting_weights;
  if (!Object.prototype.hasOwnProperty.call(weights, op.fairness_key)) {
    fail('unknown_fairness_key', `${nodeName(op)}: fairness key ${JSON.stringify(op.fairness_key)} is not registered in the Policy`, atPath(ctx, 'fairness_key'));
  }
  checkProducer(ctx, op);

  // Measured by the record stage (measures.ts) when it had the record's text, else here.
  const measured = ctx.measures?.payloadBytes?.[ctx.index];
  let payloadBytes: number;
  let canonical = true;
  if (measured !== undefined && measured >= 0) payloadBytes = measured;
  else ({ bytes: payloadBytes, canonical } = payloadSize(op.payload));
  checkNodeLimit(ctx, op, 'payload_bytes', payloadBytes, PAYLOAD_BYTES);
  checkNodeLimit(ctx, op, 'predecessors', op.depends_on.length, PREDECESSORS);
  checkGraphPool(ctx, op);
  checkGates(ctx, op);
  checkEdges(ctx, op, pool.allowed_repositories as string[]);
  checkSubject(ctx, op, pool.allowed_repositories as string[]);
  checkBackingIssue(ctx, op, pool.allowed_repositories as string[]);
  checkReplacement(ctx, op);

  const graph = state.graphs.get(op.graph_id);
  checkGraphNodes(ctx, op);
  const pending = ctx.state.pendingByPool.get(op.pool) ?? 0;
  checkNodeLimit(ctx, op, 'pending_nodes', pending + 1, PENDING_NODES);

  const fields: Omit<WorkRecord, 'definition'> = {
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
    executionRef: op.execution_ref ?? null,
    backingIssue: (op.backing_issue as ResourceIdentity | undefined) ?? null,
    replacementOf: op.replacement_of?.work_id ?? null,
    position: ctx.definitions === undefined ? { ordinal: ctx.ordinal, operation: ctx.index } : sourcedPosition(ctx.ordinal, ctx.index, ctx.definitions),
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
  // Read back from the commit's record when asked, where replay keeps the record (state/definitions.ts).
  const record: WorkRecord = ctx.definitions === undefined
    ? Object.assign(fields, { definition: op as unknown as JsonObject })
    : withSourcedDefinition(fields);
  // Kept as the canonical size (scheduler/assignment.ts `payloadBytes`) when it is one.
  if (canonical) notePayloadBytes(record, payloadBytes);
  state.works.set(op.work_id, record);
  noteBackingIssue(state, record);
  setWorkState(state, record, 'available');
  bump(state.pendingByPool, op.pool, 1);
  if (graph === undefined) state.graphs.set(op.graph_id, [op.work_id]);
  else graph.push(op.work_id);
  addGraphGates(state, op.graph_id, op.depends_on);
  for (const edge of op.depends_on) {
    if (edge.kind !== 'work') continue;
    const list = state.successors.get(edge.work_id);
    if (list === undefined) state.successors.set(edge.work_id, [op.work_id]);
    else list.push(op.work_id);
  }
}

/** What a Work limit's error says was measured (built only for the error). */
const PAYLOAD_BYTES = (op: WorkOp): string => `${nodeName(op)}: payload (canonical bytes)`;
const PREDECESSORS = (op: WorkOp): string => `${nodeName(op)}: the number of predecessors`;
const PENDING_NODES = (op: WorkOp): string => `pool ${op.pool}'s pending Work with ${nodeName(op)}`;

/**
 * `checkLimit` of one measure of an admitted Work, its message and details (the node and the
 * value) built only when it fails: replay checks three per Work.
 */
function checkNodeLimit(ctx: CommitContext, op: WorkOp, name: CheckedLimit, used: number, what: (op: WorkOp) => string): void {
  if (used <= limitOf(ctx, name)) return;
  checkLimit(ctx, name, used, what(op), { node_key: op.node_key, graph_id: op.graph_id, value: used });
}

/** How an admission error names a node: its key and graph, never only its hashed id. */
function nodeName(op: WorkOp): string {
  return `node ${op.node_key} in graph ${op.graph_id}`;
}

/** The error location of a field of the operation under replay (`operations.N.<path>`). */
function atPath(ctx: CommitContext, path: string): ReturnType<typeof where> & { path: string } {
  return { ...where(ctx), path: `operations.${ctx.index}.${path}` };
}

/** The error location of the operation's edge `j` (built only for an error). */
function edgeAt(ctx: CommitContext, j: number): ReturnType<typeof atPath> {
  return atPath(ctx, `depends_on.${j}`);
}

/** A Work edge by graph/node key where the target is known, else by its id. */
function edgeName(ctx: CommitContext, edge: WorkOp['depends_on'][number]): string {
  if (edge.kind !== 'work') return `${edge.kind} gate ${edge.condition}`;
  const target = ctx.state.works.get(edge.work_id);
  if (target !== undefined) return `${target.graphId}/${target.nodeKey}`;
  const same = sameCommitWork(ctx, edge.work_id);
  return same === undefined ? `Work ${edge.work_id}` : `${same.graph_id}/${same.node_key}`;
}

/**
 * Work is immutable and admitted once: a second admission of a work_id is
 * rejected, whether it repeats an earlier commit's node (builders leave exact
 * resubmissions out of the commit) or a node key twice in one commit.
 */
function duplicateWork(ctx: CommitContext, op: WorkOp): never {
  const admitted = ctx.state.works.get(op.work_id)!;
  const earlier = admitted.admittedCommit === ctx.commit.id;
  fail('duplicate_work', earlier
    ? `duplicate node key ${op.node_key} in graph ${op.graph_id}: operations ${admitted.position.operation} and ${ctx.index} of one commit admit the same Work`
    : `${nodeName(op)} is already admitted (commit ${admitted.admittedCommit}); Work is immutable and admitted once`, atPath(ctx, 'node_key'), { graph_id: op.graph_id, node_key: op.node_key, work_id: op.work_id, admitted_commit: admitted.admittedCommit });
}

function checkProducer(ctx: CommitContext, op: WorkOp): void {
  const entitlements = producerEntitlements(currentPolicy(ctx).producers);
  if (entitlements === null) return;
  const rule = entitlements.get(ctx.commit.actor.principal);
  if (rule === undefined) fail('producer_not_authorized', `principal ${ctx.commit.actor.principal} has no producer entitlement`, where(ctx));
  if (!rule.pools.has(op.pool)) fail('producer_not_authorized', `producer may not submit to pool ${op.pool}`, where(ctx));
  if (!rule.priorities.has(op.priority)) fail('producer_not_authorized', `producer may not submit priority ${op.priority}`, where(ctx));
  if (!rule.fairnessKeys.has(op.fairness_key)) fail('producer_not_authorized', `producer may not use fairness key ${JSON.stringify(op.fairness_key)}`, where(ctx));
}

/** Work edges resolve inside the graph (existing nodes or this commit); Issue/PR edges stay within the allowlist. */
function checkEdges(ctx: CommitContext, op: WorkOp, allowed: string[]): void {
  const edges = op.depends_on;
  // A single edge repeats nothing (its canonical key is still written: writing it may refuse it).
  const seen = edges.length > 1 ? new Set<string>() : undefined;
  for (let j = 0; j < edges.length; j++) {
    const edge = edges[j]!;
    const key = canonicalize(edge as unknown as JsonObject);
    if (seen !== undefined) {
      if (seen.has(key)) fail('duplicate_dependency', `${nodeName(op)}: depends_on lists the same edge twice (${edgeName(ctx, edge)})`, edgeAt(ctx, j));
      seen.add(key);
    }
    if (edge.kind === 'work') {
      if (edge.work_id === op.work_id) fail('dependency_self', `${op.node_key} -> ${op.node_key}: a node cannot depend on itself (graph ${op.graph_id})`, edgeAt(ctx, j));
      const target = ctx.state.works.get(edge.work_id) ?? sameCommitWork(ctx, edge.work_id);
      if (target === undefined) fail('dependency_missing', `${op.node_key} -> Work ${edge.work_id} (not in graph ${op.graph_id}: no admitted node or node of this commit has that id)`, edgeAt(ctx, j));
      const graphId = 'graphId' in target ? target.graphId : target.graph_id;
      if (graphId !== op.graph_id) fail('dependency_foreign_graph', `${op.node_key} -> ${edgeName(ctx, edge)} (not in graph ${op.graph_id})`, edgeAt(ctx, j));
    } else if (!allowed.includes(edge.resource.repository)) {
      fail('resource_unauthorized', `${nodeName(op)}: gate ${edge.kind} ${edge.resource.repository}#${edge.resource.number} is outside pool ${op.pool}'s allowed repositories`, edgeAt(ctx, j));
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
  // No edge to a Work of this commit (every target already admitted): no cycle runs through it.
  let local = false;
  for (const edge of op.depends_on) if (edge.kind === 'work' && !ctx.state.works.has(edge.work_id)) local = true;
  if (!local) return;
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
  if (repeatsWorkCancellation(ctx, work, op)) return checkProducerCancellation(ctx, work);
  if (work.state === 'completed' || work.state === 'cancelled') fail('work_terminal', `Work ${op.work_id} is already ${work.state}`, at);
  if (op.claim_id !== undefined) {
    const fenced = state.claims.get(op.claim_id);
    if (fenced === undefined || fenced.workId !== work.workId || work.state !== 'claimed' || work.currentClaim !== fenced.claimId || fenced.state !== 'open') {
      fail('claim_scope_invalid', `Claim ${op.claim_id} is not the current open owner of Work ${op.work_id}; refresh state`, at);
    }
    // Spec 7.8: after a start marker, a prelaunch cancellation is no definitive nonlaunch evidence.
    const group = state.dispatches.get(fenced.dispatchId);
    if (group !== undefined) checkPrelaunchCancellation(ctx, op.reason, `Work ${op.work_id}`, group);
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
  const entitlements = producerEntitlements(currentPolicy(ctx).producers);
  if (entitlements === null) return;
  const rule = entitlements.get(ctx.commit.actor.principal);
  if (rule === undefined || !rule.pools.has(work.pool) || !rule.priorities.has(work.priority) || !rule.fairnessKeys.has(work.fairnessKey)) {
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
