/**
 * The lifecycle a restored checkpoint must be able to have reached (spec "Compaction": a
 * checkpoint "replaces a validated prefix with deterministic state" and must preserve
 * "ownership, delivery outcomes, … fairness debt, … dispatch bindings, and releases"; 7.17: it
 * is authoritative only as part of the queue, never as a trusted cache). checkpoint-restore.ts
 * reads each record and checks it against its neighbours one way (a Work's current Claim, a
 * Claim's group and grant, a member's payload); this pass checks every restored record against
 * the rules replay enforces when the same state is reached commit by commit, so a hand-edited
 * checkpoint cannot seat what no ledger could: an owner twice, a Claim outside its assignment, a
 * run binding replay would refuse, a barrier settled by nothing, a budget reset, a clock moved.
 * Each violation is `checkpoint_invalid` (the reader's `bad`). Runs after the indexes are rebuilt.
 */
import { canonicalize } from '../codec/index.ts';
import { gateIdentity, workId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import { classStride, keyStride } from '../scheduler/clocks.ts';
import type { SiblingClock } from '../state/fairness.ts';
import { RequestOperationSchema } from '../schema/index.ts';
import type { ClaimRecord, DispatchRecord, DispatchState, ReplayState, WorkRecord } from '../state/state.ts';
import type { StateReader } from './checkpoint-reader.ts';
import { workerRoute } from './ops/deployment.ts';

/** What this pass reads of each restored request receipt, by ordinal. */
export interface RestoredReceipt {
  id: string;
  policyEpoch: string;
}

/**
 * Checks the restored `state` against the checkpoint `snapshot` it came from; returns the
 * settling operations the checkpoint keeps (`terminal_barriers`, `cancellations`).
 */
export function checkLifecycle(r: StateReader, state: ReplayState, snapshot: JsonObject, receipts: readonly RestoredReceipt[]): Settled {
  const settled = checkSettlingFacts(r, state, snapshot);
  const commitAt = new Map<string, number>();
  for (const request of state.requests.values()) commitAt.set(request.commitId, request.at);
  const seenEpochs = new Set(r.set(snapshot.seen_epochs, 'seen_epochs'));
  receipts.forEach((receipt, ordinal) => {
    if (!seenEpochs.has(receipt.policyEpoch)) r.bad(`requests[${ordinal}] binds policy epoch ${receipt.policyEpoch}, which seen_epochs lacks`);
  });
  // The replaced ledger's tip is its last receipt, and last_at that commit's time.
  const last = receipts[receipts.length - 1];
  if (last === undefined || last.id !== snapshot.tip || commitAt.get(last.id) !== snapshot.last_at) r.bad('tip and last_at are not the last request receipt\'s commit and time');
  for (const work of state.works.values()) checkWork(r, state, work, settled.terminalBarriers, commitAt);
  checkGraph(r, state);
  for (const claim of state.claims.values()) checkClaim(r, state, claim, commitAt);
  for (const request of state.requests.values()) {
    for (const id of request.claimIds) if (state.claims.get(id)?.requestId !== request.requestId) r.bad(`request ${request.requestId}'s receipt lists Claim ${id}, which it did not grant`);
  }
  for (const group of state.dispatches.values()) checkGroup(r, state, group, receipts);
  checkClocks(r, state);
  checkStats(r, state, snapshot, receipts.length);
  return settled;
}

function checkClaim(r: StateReader, state: ReplayState, claim: ClaimRecord, commitAt: ReadonlyMap<string, number>): void {
  const work = state.works.get(claim.workId)!;
  const owns = work.currentClaim === claim.claimId;
  const what = `claims.${claim.claimId}`;
  for (const id of claim.observations) if (!state.observations.has(id)) r.bad(`${what} names Observation ${id}, which the checkpoint does not record`);
  if (claim.state === 'open') {
    // Spec 7.6: one owner per Work; an open Claim is its Work's current Claim while it is claimed.
    if (!owns || work.state !== 'claimed') r.bad(`${what} is open but Work ${work.workId} is ${work.state}${owns ? '' : ' and owned by another Claim'}`);
    if (claim.terminalCommitId !== null || claim.cancelReason !== null || claim.retryNotBefore !== null) r.bad(`${what} is open but has terminal fields`);
    return;
  }
  if (claim.terminalCommitId === null || !commitAt.has(claim.terminalCommitId)) r.bad(`${what} is ${claim.state} without a recorded commit that settled it`);
  if (claim.state === 'completed' && (!owns || work.state !== 'completed' || work.completionCommit !== claim.terminalCommitId)) {
    r.bad(`${what} completed, but Work ${work.workId} is ${work.state}${owns ? '' : ' under another Claim'} or completed by another commit`);
  }
  if (claim.state === 'completed' && claim.cancelReason !== null) r.bad(`${what} completed but has a cancellation reason`);
  if (claim.state === 'cancelled' && claim.cancelReason === null) r.bad(`${what} is cancelled without a reason`);
}

/** The checkpoint's own counts (what `fairway compact` reports) are the restored state's. */
function checkStats(r: StateReader, state: ReplayState, snapshot: JsonObject, transactions: number): void {
  const stats = r.obj(snapshot.stats, 'stats');
  r.keys(stats, STATS_KEYS, 'stats');
  const counts: Record<string, number> = { available: 0, claimed: 0, completed: 0, cancelled: 0 };
  for (const work of state.works.values()) counts[work.state]! += 1;
  let unreleased = 0;
  for (const group of state.dispatches.values()) if (!group.released) unreleased++;
  const expected: Record<string, number> = {
    ...counts, work: state.works.size, claims: state.claims.size, dispatches: unreleased, transactions, nodes: nodeCount(state),
  };
  for (const key of STATS_KEYS) if (r.int(stats[key], `stats.${key}`) !== expected[key]) r.bad(`stats.${key} is ${String(stats[key])}, but the state holds ${expected[key]}`);
}

const STATS_KEYS: ReadonlySet<string> = new Set(['work', 'available', 'claimed', 'completed', 'cancelled', 'claims', 'dispatches', 'transactions', 'nodes']);

/** Distinct scheduling graph nodes: every Work, plus each graph's external gates. */
export function nodeCount(state: ReplayState): number {
  const nodes = new Set<string>();
  for (const w of state.works.values()) {
    nodes.add(`work:${w.workId}`);
    for (const edge of w.dependsOn) if (edge.kind !== 'work') nodes.add(w.graphId + gateIdentity(edge.resource, edge.condition));
  }
  return nodes.size;
}

interface Settled {
  terminalBarriers: JsonObject;
  cancellations: JsonObject;
}

/**
 * The settling operations a checkpoint keeps (`terminal_barriers`: the Result or DeliveryFailure
 * of each settled Work; `cancellations`: ClaimCancellation by claim, WorkCancellation by Work) are
 * operations, parsed with the operation schemas and keyed by what they settle, and what they
 * settle is settled: a cancelled Claim of that Work, a cancelled Work. `completion_times` and
 * `observation_writes` name only completed Work and observed gates.
 */
function checkSettlingFacts(r: StateReader, state: ReplayState, snapshot: JsonObject): Settled {
  const terminalBarriers = r.obj(snapshot.terminal_barriers, 'terminal_barriers');
  for (const [id, value] of Object.entries(terminalBarriers)) {
    const op = RequestOperationSchema.safeParse(value);
    if (!op.success || (op.data.kind !== 'Result' && op.data.kind !== 'DeliveryFailure') || op.data.work_id !== id) {
      r.bad(`terminal_barriers.${id} is not the Result or DeliveryFailure of Work ${id}`);
    }
  }
  const cancellations = r.obj(snapshot.cancellations, 'cancellations');
  for (const [id, value] of Object.entries(cancellations)) {
    const op = RequestOperationSchema.safeParse(value);
    const ok = op.success && (
      (op.data.kind === 'ClaimCancellation' && op.data.claim_id === id && state.claims.get(id)?.state === 'cancelled' && state.claims.get(id)!.workId === op.data.work_id)
      || (op.data.kind === 'WorkCancellation' && op.data.work_id === id && state.works.get(id)?.state === 'cancelled'));
    if (!ok) r.bad(`cancellations.${id} is not the ClaimCancellation or WorkCancellation that settled ${id}`);
  }
  for (const id of Object.keys(r.obj(snapshot.completion_times, 'completion_times'))) {
    if (state.works.get(id)?.state !== 'completed') r.bad(`completion_times names ${id}, which is not completed Work`);
  }
  const gates = new Set([...state.observations.values()].map((o) => o.gate));
  for (const gate of state.observationWrites.keys()) if (!gates.has(gate)) r.bad(`observation_writes names gate ${gate}, which has no recorded Observation`);
  return { terminalBarriers, cancellations };
}

/** Spec 7.6, 7.14, 7.18 and §8.2 "Result barrier": a Work's state, owner, attempts and barrier agree. */
function checkWork(r: StateReader, state: ReplayState, work: WorkRecord, terminal: JsonObject, commitAt: ReadonlyMap<string, number>): void {
  const what = `works.${work.workId}`;
  if (workId(work.graphId, work.nodeKey) !== work.workId) r.bad(`${what} is not the Work id of (${work.graphId}, ${work.nodeKey})`);
  // Every Claim is an attempt (ops/claim.ts), and the checkpoint keeps every Claim.
  if (work.attempts !== work.claims.length) r.bad(`${what}.attempts is ${work.attempts}, but the Work has ${work.claims.length} Claim(s)`);
  const current = work.currentClaim === null ? undefined : state.claims.get(work.currentClaim);
  const settledBy = (terminal[work.workId] as { kind?: unknown } | undefined)?.kind;
  switch (work.state) {
    case 'available':
      if (current !== undefined) r.bad(`${what} is available but names Claim ${work.currentClaim}`);
      checkRetryBoundary(r, state, work, commitAt, what);
      break;
    case 'completed':
      // completion_times is the Completion commit's own time (reconciliation deadlines count from it).
      if (current?.state !== 'completed' || work.completionCommit === null || commitAt.get(work.completionCommit) !== work.completionAt) {
        r.bad(`${what} is completed without its completed Claim, or its completion time is not its Completion commit's`);
      }
      break;
    case 'cancelled':
      if (current !== undefined && current.state !== 'cancelled') r.bad(`${what} is cancelled but its Claim ${current.claimId} is ${current.state}`);
      if (work.cancellationCommit === null || !commitAt.has(work.cancellationCommit)) r.bad(`${what} is cancelled without a recorded cancellation commit`);
      break;
    case 'claimed':
      break; // checkpoint-restore.ts: a claimed Work's current Claim is open
  }
  if (work.state !== 'completed' && (work.completionCommit !== null || work.barrier !== 'none')) {
    r.bad(`${what} is ${work.state}, so it has no Completion and its barrier is none, not ${work.barrier}`);
  }
  if (work.resultCommit !== null && !commitAt.has(work.resultCommit)) r.bad(`${what}.result_commit_id names no recorded commit`);
  if (work.state === 'completed' && work.barrier === 'none') r.bad(`${what} is completed, so its result barrier is pending, verified or failed`);
  // A settled barrier is settled by exactly its terminal operation (spec §8.2: Result or DeliveryFailure, mutually exclusive).
  const expected = work.barrier === 'verified' ? 'Result' : work.barrier === 'failed' ? 'DeliveryFailure' : undefined;
  if (settledBy !== expected) r.bad(`${what}'s barrier is ${work.barrier}, but terminal_barriers holds ${settledBy === undefined ? 'nothing' : `a ${String(settledBy)}`} for it`);
  // Spec 7.10: nonterminal or delivery-pending Work is the current epoch's, on a route it configures.
  if ((work.state === 'available' || work.state === 'claimed' || work.barrier === 'pending') && workerRoute(state, work.pool, work.workerProfile) === null) {
    r.bad(`${what} is pending in pool ${work.pool} with profile ${work.workerProfile}, which the installed Policy does not configure`);
  }
}

/**
 * An available Work's retry boundary is one its cancelled Claims set (ops/claim.ts: a
 * ClaimCancellation's `retry_not_before`), and no later than that cancellation's commit time
 * plus the pool's backoff (spec 7.18 "bounded retry/backoff"; the Work is the installed epoch's,
 * checked below): a checkpoint cannot hold Work out of the fair order.
 */
function checkRetryBoundary(r: StateReader, state: ReplayState, work: WorkRecord, commitAt: ReadonlyMap<string, number>, what: string): void {
  const boundary = work.retryNotBefore;
  if (boundary === null) return;
  const setBy = work.claims.map((id) => state.claims.get(id)).find((c) => c?.state === 'cancelled' && c.retryNotBefore === boundary);
  const at = setBy?.terminalCommitId == null ? undefined : commitAt.get(setBy.terminalCommitId);
  const pools = state.policy?.policy.pools;
  if (pools === undefined || !Object.hasOwn(pools, work.pool)) return; // an unconfigured route is refused below
  const backoff = pools[work.pool]!.retry.backoff_ms;
  if (at === undefined || boundary > at + backoff) {
    r.bad(`${what}.retry_not_before ${boundary} is not a cancelled Claim's retry boundary within backoff_ms ${backoff} of its cancellation`);
  }
}

/** Spec §8.2 "DAG admission": edges name admitted Work of the same graph, once, never itself, and form no cycle. */
function checkGraph(r: StateReader, state: ReplayState): void {
  for (const work of state.works.values()) {
    const seen = new Set<string>();
    for (const edge of work.dependsOn) {
      const key = canonicalize(edge as unknown as JsonObject);
      if (seen.has(key)) r.bad(`works.${work.workId}.depends_on lists an edge twice`);
      seen.add(key);
      if (edge.kind !== 'work') continue;
      const target = state.works.get(edge.work_id);
      if (edge.work_id === work.workId || target === undefined || target.graphId !== work.graphId) {
        r.bad(`works.${work.workId} depends on ${edge.work_id === work.workId ? 'itself' : `${edge.work_id}, which is no admitted Work of graph ${work.graphId}`}`);
      }
    }
  }
  // Kahn's algorithm over the Work edges: what is left after peeling every sink-free node is a cycle.
  const waiting = new Map<string, number>();
  const ready: string[] = [];
  for (const work of state.works.values()) {
    const n = work.dependsOn.filter((e) => e.kind === 'work').length;
    waiting.set(work.workId, n);
    if (n === 0) ready.push(work.workId);
  }
  let peeled = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    peeled++;
    for (const next of state.successors.get(id) ?? []) {
      const left = waiting.get(next)! - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (peeled !== state.works.size) r.bad(`the Work dependency edges form a cycle (${state.works.size - peeled} Work on or behind it)`);
}

/** Spec 7.8, 7.10, 7.14: a group is its grant's, of its members' route, in a launch state its markers support. */
function checkGroup(r: StateReader, state: ReplayState, g: DispatchRecord, receipts: readonly RestoredReceipt[]): void {
  const what = `dispatches.${g.dispatchId}`;
  const grant = state.requests.get(g.requestId)!;
  if (g.policyEpoch !== receipts[grant.ordinal]!.policyEpoch) r.bad(`${what}.policy_epoch is not its grant's ${receipts[grant.ordinal]!.policyEpoch}`);
  let open = 0;
  g.claimIds.forEach((id, i) => {
    const claim = state.claims.get(id);
    if (claim === undefined || claim.dispatchId !== g.dispatchId) r.bad(`${what}.claims[${i}] names Claim ${id}, which is not a Claim of this group`);
    const work = state.works.get(claim.workId)!;
    if (work.pool !== g.pool || work.workerProfile !== g.workerProfile || work.batchTrustDomain !== g.batchTrustDomain) {
      r.bad(`${what}.claims[${i}]: Work ${work.workId} is not of the group's pool, worker profile and trust domain`);
    }
    // Spec 7.10 "pins stay pinned": a pinned member runs the revision the group froze.
    if (work.executionRef !== null && work.executionRef !== g.profile.ref) r.bad(`${what}.claims[${i}]: Work ${work.workId} is pinned to ${work.executionRef}, not the group's revision ${String(g.profile.ref)}`);
    if (claim.state === 'open') open++;
  });
  if (new Set(g.claimIds).size !== g.claimIds.length) r.bad(`${what} lists a Claim twice`);
  // Spec 7.8: exactly one Release, and only once no Claim is open.
  if (g.released && open > 0) r.bad(`${what} is released with ${open} open Claim(s)`);
  if (!g.released) {
    // Spec 7.10: an unreleased reservation is the current epoch's, frozen at a registered revision of its route.
    const route = workerRoute(state, g.pool, g.workerProfile);
    const frozen = canonicalize(g.profile);
    if (route === null || ![...route.revisions.values()].some((rev) => canonicalize(rev.profile) === frozen)) {
      r.bad(`${what}.profile is no registered revision of pool ${g.pool}'s worker profile ${g.workerProfile}`);
    }
  }
  checkLaunch(r, state, g, what);
}

/** The fewest Dispatch writes that reach each state (ops/dispatch.ts FROM: started, then uncertain, then unresolved). */
const MIN_WRITES: Readonly<Record<DispatchState, number>> = { reserved: 0, started: 1, uncertain: 2, bound: 2, rejected: 2, unresolved: 3 };

/** The launch state a group's start marker, run binding and conflict record allow (ops/dispatch.ts). */
function checkLaunch(r: StateReader, state: ReplayState, g: DispatchRecord, what: string): void {
  const sender = g.sender as { role?: string; repository?: string; workflow?: string; run_id?: string; run_attempt?: number } | null;
  const run = g.run as { run_id: string; workflow: string; ref: string; principal: string; repository: string } | null;
  if ((g.state === 'reserved') !== (sender === null)) r.bad(`${what} is ${g.state} ${sender === null ? 'without' : 'with'} a start marker sender`);
  if ((g.state === 'bound') !== (run !== null)) r.bad(`${what} is ${g.state} ${run === null ? 'without' : 'with'} a run binding`);
  if ((g.state === 'uncertain' || g.state === 'unresolved') && g.reason === null) r.bad(`${what} is ${g.state} without its reason code`);
  // Each Dispatch and the Release is a lifecycle write (they size the recovery reserve, ledger-budget.ts).
  const writes = MIN_WRITES[g.state] + (g.released ? 1 : 0);
  if (g.lifecycleWrites < writes) r.bad(`${what}.lifecycle_writes is ${g.lifecycleWrites}, fewer than the ${writes} its ${g.released ? 'released ' : ''}${g.state} state took`);
  if (sender !== null && (sender.role !== 'dispatcher' || sender.repository !== state.repository || sender.workflow === undefined || sender.run_id === undefined || sender.run_attempt === undefined)) {
    r.bad(`${what}.sender is not a dispatcher run of the queue repository`);
  }
  if (run !== null) {
    const profile = g.profile as { workflow?: unknown; ref?: unknown; principal?: unknown };
    if (run.workflow !== profile.workflow || run.ref !== profile.ref || run.principal !== profile.principal || run.repository !== state.repository) {
      r.bad(`${what}.run ${run.run_id} does not match the frozen profile (workflow, ref, principal) and the queue repository`);
    }
    if (sender?.run_id === run.run_id) r.bad(`${what} is bound to run ${run.run_id}, the dispatcher run that sent its start marker, not a worker run`);
    const other = state.boundRuns.get(run.run_id);
    if (other !== undefined) r.bad(`run ${run.run_id} is bound to both dispatch ${other} and ${g.dispatchId}: one native run binds one group`);
    state.boundRuns.set(run.run_id, g.dispatchId);
  }
  // A recorded conflict stays until release or an administrator's resolution binds one of its candidates.
  if (g.conflict !== null && !(g.state === 'unresolved' || (g.state === 'bound' && g.conflict.runs.includes(run!.run_id)))) {
    r.bad(`${what} records a run binding conflict but is ${g.state}${g.state === 'bound' ? ' to a run that is not one of its candidates' : ''}`);
  }
}

/**
 * Spec 7.5: at every pick the active set is the eligible set and V the selected pass before its
 * charge, and an entering member is clamped to max(P, V + stride); so every active member's pass
 * lies in [V, V + stride]. A clock outside that is debt reset or invented (§8.2 "Trust").
 */
function checkClocks(r: StateReader, state: ReplayState): void {
  const f = state.fairness;
  const check = <K>(clock: SiblingClock<K>, stride: (member: K) => bigint, what: string): void => {
    for (const member of clock.active) {
      const pass = clock.pass.get(member);
      if (pass === undefined || pass < clock.v || pass > clock.v + stride(member)) {
        r.bad(`${what}: active member ${String(member)} has pass ${pass === undefined ? 'none' : pass.toString()} outside [V, V + stride] (V = ${clock.v.toString()})`);
      }
    }
  };
  for (const [pool, clocks] of f.pools) {
    if (!Object.hasOwn(state.policy?.policy.pools ?? {}, pool)) r.bad(`clocks.${pool} is no pool of the installed Policy`);
    check(clocks.classes, (priority) => classStride(f, priority), `clocks.${pool}.classes`);
    for (const [priority, clock] of clocks.keys) check(clock, (key) => keyStride(f, key), `clocks.${pool}.keys.${priority}`);
  }
}
