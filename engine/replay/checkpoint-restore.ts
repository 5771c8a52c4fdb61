/**
 * Restoring a checkpoint root (spec 7.1 "Checkpoint restoration MUST preserve the original Work
 * operation positions", 7.10 "Compaction", 7.17). `applyCommit` calls this for the ledger's
 * first commit when its request kind is `checkpoint`, after the envelope checks (administrator
 * role, fingerprint, a single Checkpoint operation). The state shape, the digests and the
 * ordinal rule are described in replay/checkpoint.ts. Each record is read and held to its
 * neighbours here; checkpoint-lifecycle.ts then holds the whole restored state to the rules replay
 * enforces commit by commit (ownership, attempts, barriers, launch states, the DAG, the clocks).
 */
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { fail, isProtocolError } from '../errors.ts';
import { claimHandle, isDecimalId, requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { ActorSchema, DeploymentWorkerProfileSchema, QueuePolicySchema, RunBindingSchema, WorkOperationSchema, issuePath, type QueueCommit, type QueuePolicy } from '../schema/index.ts';
import { assignmentMember } from '../scheduler/assignment.ts';
import { indexWork, recordResult } from '../state/ready-index.ts';
import { EXTENSION_KEYS, RECEIPT_KEYS, STATE_KEYS, WORK_STATE_KEYS, readFairness, restoreExtensions, restoreObservations } from './checkpoint-read.ts';
import { StateReader } from './checkpoint-reader.ts';
import { accountKey, bump } from '../state/mutate.ts';
import { roleMayRequest } from './rules.ts';
import type { ClaimRecord, DependencyEdge, DispatchConflict, DispatchRecord, DispatchState, PolicyRecord, ReplayState, ResourceIdentity, WorkRecord } from '../state/state.ts';
import { policyIncoherence } from './ops/policy.ts';
import { addGraphGates } from './ops/admission.ts';
import { checkLifecycle } from './checkpoint-lifecycle.ts';

interface Receipt {
  id: string;
  requestId: string;
  kind: string;
  policyEpoch: string;
  raw: JsonObject;
  claims: string[];
}

const WORK_STATES = ['available', 'claimed', 'completed', 'cancelled'] as const;
const BARRIERS = ['none', 'pending', 'verified', 'failed'] as const;
const CLAIM_STATES = ['open', 'completed', 'cancelled'] as const;
const DISPATCH_STATES: readonly DispatchState[] = ['reserved', 'started', 'bound', 'uncertain', 'unresolved', 'rejected'];

/** Restores `state` (fresh) from the root `commit`; returns the root's ordinal. */
export function restoreCheckpoint(state: ReplayState, commit: QueueCommit, line?: number): number {
  const where = { commit: commit.id, operation: 0, ...(line === undefined ? {} : { line }) };
  const op = commit.operations[0];
  if (state.commits.length > 0 || commit.previous !== null || commit.operations.length !== 1 || op?.kind !== 'Checkpoint') {
    return fail('checkpoint_position', 'a Checkpoint is only valid as the single operation of a ledger\'s root record', where);
  }
  const bound = { prior_git_sha: op.prior_git_sha, prior_tip: op.prior_tip, history_sha256: op.history_sha256, state_sha256: op.state_sha256 };
  if (canonicalize(commit.request.parameters as JsonValue) !== canonicalize(bound)) {
    fail('parameters_mismatch', 'checkpoint parameters must repeat the Checkpoint operation\'s prior_git_sha, prior_tip and digests', where);
  }
  const snapshot = op.state as JsonObject;
  if (sha256Hex(canonicalize(snapshot)) !== op.state_sha256) {
    fail('checkpoint_digest_mismatch', 'state_sha256 is not the SHA-256 of the canonical checkpoint state', where);
  }
  const r: StateReader = new StateReader(where); // annotated: `r.bad(...)` (never) then narrows
  r.keys(snapshot, new Set<string>([...STATE_KEYS, ...EXTENSION_KEYS]), 'state');
  for (const key of STATE_KEYS) if (snapshot[key] === undefined) r.bad(`${key} is missing`);
  const repository = r.str(snapshot.repository, 'repository');
  if (repository !== commit.actor.repository) r.bad(`repository ${repository} is not the checkpoint actor's repository`);
  if (snapshot.tip !== op.prior_tip) r.bad('tip differs from prior_tip');
  const epoch = r.str(snapshot.policy_epoch, 'policy_epoch');
  if (epoch !== commit.policy_epoch) r.bad(`policy_epoch ${epoch} is not the commit's ${commit.policy_epoch}`);
  if (commit.at < r.int(snapshot.last_at, 'last_at')) r.bad('the checkpoint is older than the last commit it replaces');
  const policy = r.obj(snapshot.policy, 'policy');
  // The restored Policy is held to the same rules as an installed one (PolicyOperation schema, coherence).
  const checked = QueuePolicySchema.safeParse(policy);
  if (!checked.success) r.bad(`policy does not match the Policy schema at ${issuePath(checked.error.issues[0]) || '(root)'}: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  const incoherent = policyIncoherence(checked.data);
  if (incoherent !== null) r.bad(`policy: ${incoherent}`);
  state.repository = repository;

  const receipts = restoreRequests(r, state, snapshot, commit);
  restoreWorks(r, state, snapshot, receipts);
  const memberWork = restoreDispatches(r, state, snapshot);
  restoreClaims(r, state, snapshot, receipts, memberWork);
  restoreObservations(r, state, snapshot);
  restorePolicy(r, state, snapshot, receipts, checked.data, epoch);
  restoreExtensions(r, state, snapshot);
  rebuildIndexes(state, receipts);

  const settled = checkLifecycle(r, state, snapshot, receipts);
  r.int(snapshot.ledger_bytes, 'ledger_bytes');
  state.checkpoint = {
    ordinal: receipts.length,
    priorGitSha: op.prior_git_sha,
    priorTip: op.prior_tip,
    receipts: receipts.map((x) => x.raw),
    seenEpochs: r.set(snapshot.seen_epochs, 'seen_epochs'),
    seenGenerations: r.set(snapshot.seen_generations, 'seen_generations'),
    terminalBarriers: settled.terminalBarriers,
    cancellations: settled.cancellations,
  };
  // `initial` is every queue's first generation, seen whatever the checkpoint lists.
  state.seenGenerations = new Map([['initial', null], ...state.checkpoint.seenGenerations.filter((g) => g !== 'initial').map((g): [string, string] => [g, commit.id])]);
  return receipts.length;
}

function restoreRequests(r: StateReader, state: ReplayState, snapshot: JsonObject, commit: QueueCommit): Receipt[] {
  const commitIds = new Set<string>([commit.id]);
  return r.arr(snapshot.requests, 'requests').map((value, ordinal) => {
    const what = `requests[${ordinal}]`;
    const raw = r.obj(value, what);
    r.keys(raw, RECEIPT_KEYS, what);
    const requestId = r.str(raw.request_id, `${what}.request_id`);
    const id = r.str(raw.id, `${what}.id`);
    const kind = r.str(raw.kind, `${what}.kind`);
    const actor = closed(r, ActorSchema, raw.actor, `${what}.actor`);
    if (actor.repository !== state.repository || !roleMayRequest(String(actor.role), kind)) r.bad(`${what} has a foreign or unauthorized actor`);
    if (state.requests.has(requestId) || requestId === commit.request.id) {
      fail('duplicate_request', `request ${requestId} appears twice in the checkpoint`, r.where);
    }
    if (commitIds.has(id)) r.bad(`${what} repeats commit ${id}`);
    commitIds.add(id);
    const fingerprint = r.digest(raw.fingerprint, `${what}.fingerprint`);
    const digest = r.digest(raw.parameters_digest, `${what}.parameters_digest`);
    if ((kind === 'dispatch_next') !== (raw.dispatch_parameters !== undefined)) r.bad(`${what}: dispatch_parameters belong to exactly the dispatch_next receipts`);
    if (kind === 'dispatch_next') checkParameters(r, what, raw, raw.dispatch_parameters!, digest, fingerprint);
    const claims = r.arr(raw.claims, `${what}.claims`).map((c, i) => {
      const claim = r.obj(c, `${what}.claims[${i}]`);
      if (claim.kind !== 'Claim') r.bad(`${what}.claims[${i}] is not a Claim operation`);
      r.keys(claim, RECEIPT_CLAIM_KEYS, `${what}.claims[${i}]`);
      return r.str(claim.claim_id, `${what}.claims[${i}].claim_id`);
    });
    const at = r.int(raw.at, `${what}.at`);
    state.requests.set(requestId, { requestId, kind, fingerprint, commitId: id, ordinal, at, actor, claimIds: [...claims], workIds: [] });
    return { id, requestId, kind, policyEpoch: r.str(raw.policy_epoch, `${what}.policy_epoch`), raw, claims };
  });
}

/** A receipt's parameters digest and fingerprint must recompute from the parameters the state implies. */
function checkParameters(r: StateReader, what: string, raw: JsonObject, parameters: JsonValue, digest: string, fingerprint: string): void {
  if (sha256Hex(canonicalize(parameters)) !== digest || requestFingerprint(raw.actor!, String(raw.kind), parameters) !== fingerprint) {
    r.bad(`${what}: parameters_digest or fingerprint does not recompute`);
  }
}

function restoreWorks(r: StateReader, state: ReplayState, snapshot: JsonObject, receipts: Receipt[]): void {
  const completionTimes = r.obj(snapshot.completion_times, 'completion_times');
  const records: WorkRecord[] = [];
  for (const [id, value] of Object.entries(r.obj(snapshot.works, 'works'))) {
    const what = `works.${id}`;
    const raw = r.obj(value, what);
    const definition: JsonObject = {};
    for (const [key, field] of Object.entries(raw)) if (!WORK_STATE_KEYS.has(key)) definition[key] = field;
    const parsed = WorkOperationSchema.safeParse(definition);
    if (!parsed.success || parsed.data.work_id !== id) r.bad(`${what} does not hold a valid Work operation for ${id}`);
    const op = parsed.data;
    const position = r.obj(raw.position, `${what}.position`);
    r.keys(position, POSITION_KEYS, `${what}.position`);
    const ordinal = r.int(position.commit, `${what}.position.commit`);
    const operation = r.int(position.operation, `${what}.position.operation`);
    if (receipts[ordinal]?.kind !== 'submit' || operation > 65535) r.bad(`${what}.position does not name an operation of a submit`);
    const workState = r.oneOf(raw.state, `${what}.state`, WORK_STATES);
    const barrier = r.oneOf(raw.barrier, `${what}.barrier`, BARRIERS);
    const effective = raw.effective_priority === undefined ? op.priority : r.int(raw.effective_priority, `${what}.effective_priority`);
    if (effective < 1 || effective > 5) r.bad(`${what}.effective_priority is not a priority class`);
    const retry = r.int(raw.retry_not_before, `${what}.retry_not_before`);
    const record: WorkRecord = {
      workId: id, graphId: op.graph_id, nodeKey: op.node_key, pool: op.pool, workerProfile: op.worker_profile,
      batchTrustDomain: op.batch_trust_domain, priority: op.priority, effectivePriority: effective, fairnessKey: op.fairness_key,
      dependsOn: op.depends_on as DependencyEdge[], enqueued: op.enqueued, definition,
      executionRef: op.execution_ref ?? null, backingIssue: (op.backing_issue as ResourceIdentity | undefined) ?? null,
      replacementOf: op.replacement_of?.work_id ?? null,
      position: { ordinal, operation }, fifo: ordinal * 65536 + operation,
      admittedCommit: receipts[ordinal]!.id, policyEpoch: receipts[ordinal]!.policyEpoch,
      state: workState, barrier, currentClaim: r.optStr(raw.claim_id, `${what}.claim_id`), claims: [],
      attempts: r.int(raw.attempts, `${what}.attempts`), retryNotBefore: retry === 0 ? null : retry,
      completionCommit: r.optStr(raw.completion_id, `${what}.completion_id`),
      completionAt: workState === 'completed' ? r.int(completionTimes[id], `completion_times.${id}`) : null,
      resultCommit: r.optStr(raw.result_commit_id, `${what}.result_commit_id`), deliveryFailureCommit: null,
      cancellationCommit: r.optStr(raw.cancellation_commit_id, `${what}.cancellation_commit_id`),
      cancellationReason: r.optStr(raw.cancellation_reason, `${what}.cancellation_reason`), touchedBy: [],
    };
    const fenced = r.optStr(raw.cancellation_claim_id, `${what}.cancellation_claim_id`);
    if (fenced !== null) record.cancellationClaim = fenced;
    if (barrier === 'verified') {
      recordResult(state.ready, id, r.str(raw.result_commit_id, `${what}.result_commit_id`), r.obj(raw.result, `${what}.result`));
    }
    records.push(record);
  }
  records.sort((a, b) => a.fifo - b.fifo);
  for (const work of records) {
    state.works.set(work.workId, work);
    state.requests.get(receipts[work.position.ordinal]!.requestId)!.workIds.push(work.workId);
  }
  // A submit's parameters are exactly its Work operations, in operation order.
  receipts.forEach((receipt, ordinal) => {
    if (receipt.kind !== 'submit') return;
    const nodes = state.requests.get(receipt.requestId)!.workIds.map((id) => state.works.get(id)!.definition);
    if (nodes.length === 0) r.bad(`requests[${ordinal}] is a submit that admitted no Work`);
    checkParameters(r, `requests[${ordinal}]`, receipt.raw, { nodes }, String(receipt.raw.parameters_digest), String(receipt.raw.fingerprint));
  });
}

/** Restores the dispatch groups; returns each member's Work by Claim id (restoreClaims holds the Claims to it). */
function restoreDispatches(r: StateReader, state: ReplayState, snapshot: JsonObject): Map<string, string> {
  const records: Array<[number, DispatchRecord]> = [];
  const memberWork = new Map<string, string>();
  for (const [id, value] of Object.entries(r.obj(snapshot.dispatches, 'dispatches'))) {
    const what = `dispatches.${id}`;
    const raw = r.obj(value, what);
    if (raw.dispatch_id !== id || raw.version !== 3) r.bad(`${what} is not a version-3 dispatch ${id}`);
    r.keys(raw, DISPATCH_KEYS, what);
    const members = r.arr(raw.claims, `${what}.claims`).map((m, i) => r.obj(m, `${what}.claims[${i}]`));
    const first = state.works.get(String(members[0]?.work_id));
    if (first === undefined) r.bad(`${what} has no member Work`);
    // The members are the group's assignment (launch rebuilds it from them): each must be
    // exactly the member the packer builds for its Work and the restored Results.
    members.forEach((m, i) => {
      const work = state.works.get(String(m.work_id));
      const expected = work === undefined || typeof m.claim_id !== 'string' ? undefined : memberOf(state, work, m.claim_id, claimHandle(i + 1));
      if (expected === undefined || canonicalize(expected) !== canonicalize(m)) r.bad(`${what}.claims[${i}] is not the assignment member of its Work`);
      if (memberWork.has(String(m.claim_id))) r.bad(`${what}.claims[${i}]: Claim ${String(m.claim_id)} is a member twice`);
      memberWork.set(String(m.claim_id), String(m.work_id));
    });
    const requestId = r.str(raw.request_id, `${what}.request_id`);
    const commitId = r.str(raw.commit_id, `${what}.commit_id`);
    const request = state.requests.get(requestId);
    if (request?.commitId !== commitId || request.kind !== 'dispatch_next') r.bad(`${what} does not belong to a committed dispatch_next`);
    records.push([request.ordinal, {
      dispatchId: id, pool: r.str(raw.pool, `${what}.pool`), workerProfile: r.str(raw.worker_profile, `${what}.worker_profile`),
      profile: closed(r, DeploymentWorkerProfileSchema, raw.profile, `${what}.profile`), batchTrustDomain: first.batchTrustDomain,
      claimIds: members.map((m, i) => r.str(m.claim_id, `${what}.claims[${i}].claim_id`)), commitId, requestId,
      policyEpoch: r.str(raw.policy_epoch, `${what}.policy_epoch`), state: r.oneOf(raw.state, `${what}.state`, DISPATCH_STATES),
      sender: raw.sender === undefined ? null : closed(r, ActorSchema, raw.sender, `${what}.sender`),
      run: raw.run === undefined ? null : closed(r, RunBindingSchema, raw.run, `${what}.run`),
      released: r.bool(raw.released, `${what}.released`), releaseCommit: null,
      lifecycleWrites: r.int(raw.lifecycle_writes, `${what}.lifecycle_writes`), reason: r.optStr(raw.reason, `${what}.reason`),
      conflict: raw.conflict === undefined ? null : conflictOf(r, raw.conflict, `${what}.conflict`),
    }]);
  }
  records.sort((a, b) => a[0] - b[0] || a[1].dispatchId.length - b[1].dispatchId.length || (a[1].dispatchId < b[1].dispatchId ? -1 : 1));
  for (const [, record] of records) state.dispatches.set(record.dispatchId, record);
  return memberWork;
}

/** A recorded run binding conflict: decimal run ids (unique), terminal ones among them. */
function conflictOf(r: StateReader, value: JsonValue, what: string): DispatchConflict {
  const raw = r.obj(value, what);
  r.keys(raw, CONFLICT_KEYS, what);
  const ids = (v: JsonValue | undefined, field: string): string[] => {
    const list = r.arr(v, `${what}.${field}`).map((x, i) => r.str(x, `${what}.${field}[${i}]`));
    if (list.some((id) => !isDecimalId(id)) || new Set(list).size !== list.length) r.bad(`${what}.${field} must be unique decimal run ids`);
    return list;
  };
  const runs = ids(raw.runs, 'runs');
  const terminal = ids(raw.terminal, 'terminal');
  const unnamed = r.int(raw.unnamed, `${what}.unnamed`);
  if (runs.length + unnamed < 2 || terminal.some((id) => !runs.includes(id))) r.bad(`${what} is not a run binding conflict of its candidate runs`);
  return { runs, unnamed, terminal };
}

function memberOf(state: ReplayState, work: WorkRecord, claimId: string, handle: string): JsonObject | undefined {
  try {
    return assignmentMember(state, work, claimId, handle);
  } catch (e) {
    if (isProtocolError(e)) return undefined;
    throw e;
  }
}

function restoreClaims(r: StateReader, state: ReplayState, snapshot: JsonObject, receipts: Receipt[], memberWork: ReadonlyMap<string, string>): void {
  const records: ClaimRecord[] = [];
  for (const [id, value] of Object.entries(r.obj(snapshot.claims, 'claims'))) {
    const what = `claims.${id}`;
    const raw = r.obj(value, what);
    r.keys(raw, CLAIM_KEYS, what);
    const work = state.works.get(String(raw.work_id));
    const group = state.dispatches.get(String(raw.dispatch_id));
    if (raw.kind !== 'Claim' || raw.claim_id !== id || work === undefined || group === undefined || !group.claimIds.includes(id) || raw.handle !== claimHandle(group.claimIds.indexOf(id) + 1)) {
      r.bad(`${what} does not name its Work and dispatch group`);
    }
    const request = state.requests.get(r.str(raw.request_id, `${what}.request_id`));
    const operation = request === undefined ? -1 : receipts[request.ordinal]!.claims.indexOf(id);
    if (request === undefined || operation < 0 || request.commitId !== raw.commit_id) r.bad(`${what} is not among its grant's Claims`);
    // The Claim is its grant's Claim operation and its group's member: the same Work, scope and observations.
    const granted = { kind: raw.kind, work_id: raw.work_id, claim_id: id, dispatch_id: raw.dispatch_id, handle: raw.handle, observations: raw.observations ?? null };
    if (memberWork.get(id) !== work.workId || canonicalize((receipts[request.ordinal]!.raw.claims as JsonValue[])[operation]!) !== canonicalize(granted as JsonObject)) {
      r.bad(`${what} differs from its grant's Claim operation or its group's member`);
    }
    const retry = raw.retry_not_before === undefined ? 0 : r.int(raw.retry_not_before, `${what}.retry_not_before`);
    records.push({
      claimId: id, workId: work.workId, dispatchId: group.dispatchId, handle: r.str(raw.handle, `${what}.handle`),
      requestId: request.requestId, commitId: request.commitId,
      // Operation index among the grant's Claims: the receipt keeps no preceding Observations.
      position: { ordinal: request.ordinal, operation },
      priority: work.effectivePriority, fairnessKey: work.fairnessKey,
      observations: r.arr(raw.observations, `${what}.observations`).map((o) => r.str(o, `${what}.observations`)),
      state: r.oneOf(raw.state, `${what}.state`, CLAIM_STATES),
      terminalCommitId: r.optStr(raw.terminal_commit_id, `${what}.terminal_commit_id`),
      retryNotBefore: retry === 0 ? null : retry, cancelReason: r.optStr(raw.cancellation_reason, `${what}.cancellation_reason`),
    });
  }
  records.sort((a, b) => a.position.ordinal - b.position.ordinal || a.position.operation - b.position.operation);
  for (const claim of records) {
    state.claims.set(claim.claimId, claim);
    state.works.get(claim.workId)!.claims.push(claim.claimId);
  }
  for (const work of state.works.values()) {
    const current = work.currentClaim === null ? undefined : state.claims.get(work.currentClaim);
    if (work.currentClaim !== null && current?.workId !== work.workId) r.bad(`works.${work.workId}.claim_id names a foreign Claim`);
    if (work.state === 'claimed' && current?.state !== 'open') r.bad(`works.${work.workId} is claimed without an open Claim`);
  }
}

function restorePolicy(r: StateReader, state: ReplayState, snapshot: JsonObject, receipts: Receipt[], policy: QueuePolicy, epoch: string): void {
  // The installing commit of an epoch is the first to bind it; older epochs' Policies are not kept.
  const epochs = r.set(snapshot.seen_epochs, 'seen_epochs');
  if (!epochs.includes(epoch)) r.bad(`seen_epochs lacks the installed epoch ${epoch}`);
  const first = (e: string) => { const i = receipts.findIndex((x) => x.policyEpoch === e); return i < 0 ? receipts.length : i; };
  const installed: PolicyRecord = { epoch, policy, commitId: receipts[first(epoch)]?.id ?? '', ordinal: first(epoch) };
  state.policyHistory = epochs.sort((a, b) => first(a) - first(b)).map((e) => {
    if (e === epoch) return installed;
    const ordinal = first(e);
    return { epoch: e, policy: {}, commitId: receipts[ordinal]?.id ?? '', ordinal };
  });
  state.policy = installed;
  state.fairness = readFairness(r, snapshot.clocks, policy, epoch);
  const generation = r.str(snapshot.credential_generation, 'credential_generation');
  if (!r.set(snapshot.seen_generations, 'seen_generations').includes(generation)) r.bad('seen_generations lacks the current credential generation');
  state.controls = {
    admission_paused: r.bool(snapshot.admission_paused, 'admission_paused'),
    grants_paused: r.bool(snapshot.grants_paused, 'grants_paused'),
    credential_generation: generation,
  };
}

/** The disposable indexes a replay keeps: graphs, reverse edges, ready buckets, counters, history. */
function rebuildIndexes(state: ReplayState, receipts: Receipt[]): void {
  const ordinalOf = new Map(receipts.map((x, i) => [x.id, i]));
  for (const work of state.works.values()) {
    const graph = state.graphs.get(work.graphId);
    if (graph === undefined) state.graphs.set(work.graphId, [work.workId]);
    else graph.push(work.workId);
    addGraphGates(state, work.graphId, work.dependsOn);
    for (const edge of work.dependsOn) {
      if (edge.kind !== 'work') continue;
      const list = state.successors.get(edge.work_id);
      if (list === undefined) state.successors.set(edge.work_id, [work.workId]);
      else list.push(work.workId);
    }
    if (work.state === 'available') indexWork(state.ready, work);
    if (work.state === 'available' || work.state === 'claimed' || work.barrier === 'pending') bump(state.pendingByPool, work.pool, 1);
    // Commits known to have touched the Work; the compacted history itself stays in the prior Git commit.
    const touched = [work.admittedCommit, work.completionCommit, work.resultCommit, work.cancellationCommit];
    for (const id of work.claims) touched.push(state.claims.get(id)!.commitId, state.claims.get(id)!.terminalCommitId);
    const known = [...new Set(touched.filter((id): id is string => id !== null))];
    work.touchedBy = known.sort((a, b) => (ordinalOf.get(a) ?? receipts.length) - (ordinalOf.get(b) ?? receipts.length));
  }
  for (const claim of state.claims.values()) {
    if (claim.state !== 'open') continue;
    const pool = state.dispatches.get(claim.dispatchId)!.pool;
    bump(state.outstandingClaims, pool, 1);
    bump(state.outstandingByKey, accountKey(pool, claim.fairnessKey), 1);
  }
  for (const group of state.dispatches.values()) if (!group.released) bump(state.outstandingNative, group.pool, 1);
  // state.boundRuns is rebuilt by checkLifecycle (checkpoint-lifecycle.ts), which checks each binding first.
}

/** Fixed-shape parts of a checkpoint state (what buildCheckpointCommit writes; fixtures/checkpoint.json). */
const POSITION_KEYS: ReadonlySet<string> = new Set(['commit', 'operation']);
const RECEIPT_CLAIM_KEYS: ReadonlySet<string> = new Set(['kind', 'work_id', 'claim_id', 'dispatch_id', 'handle', 'observations']);
const CLAIM_KEYS: ReadonlySet<string> = new Set([
  'kind', 'work_id', 'claim_id', 'dispatch_id', 'handle', 'observations', 'state', 'commit_id', 'request_id', 'terminal_commit_id', 'cancellation_reason', 'retry_not_before',
]);
const DISPATCH_KEYS: ReadonlySet<string> = new Set([
  'version', 'dispatch_id', 'request_id', 'commit_id', 'policy_epoch', 'pool', 'worker_profile', 'claims', 'profile', 'state', 'sender', 'run', 'released', 'reason', 'lifecycle_writes',
  'conflict',
]);
const CONFLICT_KEYS: ReadonlySet<string> = new Set(['runs', 'unnamed', 'terminal']);

/** A state part that is a wire record: parsed with the record's own closed schema. */
function closed(r: StateReader, schema: { safeParse(v: unknown): { success: boolean; error?: { issues: readonly { path: PropertyKey[]; message: string }[] } } }, value: JsonValue | undefined, what: string): JsonObject {
  const raw = r.obj(value, what);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error?.issues[0];
    r.bad(`${what} does not match its schema at ${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return raw;
}
