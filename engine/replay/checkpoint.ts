/**
 * Version-3 checkpoints (spec 7.6, 7.10 "Compaction", 7.17): a root QueueCommit (previous null,
 * request kind `checkpoint`, administrator only) whose single Checkpoint operation carries the
 * deterministic replay state of a validated ledger and points at the prior Git commit.
 *
 * State shape: exactly the reference's checkpoint snapshot (fixtures/checkpoint.json, gh-aw
 * 1bb494cc): the projection (works with positions, claims, dispatches with their assignment
 * members, latest observation per gate, fairness clocks as decimal strings, controls, policy,
 * stats, ledger_bytes, observation write budgets) plus one receipt per committed request in causal
 * order (`requests`), seen epochs and credential generations, every observation by id, the
 * settling and cancelling operations, completion times and `last_at`. The Fairway extensions
 * `deployments`/`admission_contracts` (checkpoint-deployments.ts) and `issue_links`/
 * `epoch_projectors` (checkpoint-issues.ts) appear only when nonempty (Deployment, IssueLink and
 * projector rules postdate that shape); a reference-shaped history therefore yields the reference bytes.
 *
 * Digests: `state_sha256` = SHA-256 of canonical(state). `history_sha256` = SHA-256 of the
 * replaced ledger serialized canonically: every commit in causal order as its canonical JSON
 * followed by LF (the bytes of a canonical work-queue.jsonl); `ledger_bytes` is its length.
 *
 * Ordinals: the numbering continues through the root. Restored Work keeps its original position
 * (ordinal, operation index) and FIFO rank. The root is itself a transaction, as in the reference
 * (its replay counts N + 1): it takes ordinal N = the number of committed requests it replaces
 * (= `requests.length` = `stats.transactions`), and the commits after it take N+1, N+2, ... (one
 * more per checkpoint than in the uncompacted ledger). Every later position is thus still larger
 * than every restored one, so FIFO order and all position comparisons are unchanged. A checkpoint
 * of a checkpointed ledger carries the earlier receipts forward.
 *
 * Size: the root is one ledger record, so the state must fit LINE_BYTES (8 MiB). This shape keeps
 * every Work, Claim, dispatch, receipt and settling operation ever committed, so it can be larger
 * than the ledger it replaces; `buildCheckpointCommit` fails with `resource_limit` (line_bytes) when it does
 * not fit.
 */
import { LINE_BYTES, canonicalize, sha256Hex, utf8ByteLength } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { candidateCommitId, checkpointRequestId, requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { parseQueueCommit, type Actor, type QueueCommit } from '../schema/index.ts';
import { assignmentMember } from '../scheduler/assignment.ts';
import type { SiblingClock } from '../state/fairness.ts';
import { applyCommit } from './apply.ts';
import { deploymentExtensions } from './checkpoint-deployments.ts';
import { issueExtensions } from './checkpoint-issues.ts';
import { nodeCount } from './checkpoint-lifecycle.ts';
import type { Projection } from './projection.ts';
import { createState, type ReplayState, type WorkRecord } from '../state/state.ts';

export { restoreCheckpoint } from './checkpoint-restore.ts';

/** A replay state and the commits of the ledger it was replayed from, in causal order. */
export interface CheckpointSource {
  state: ReplayState;
  history: readonly QueueCommit[];
}

export interface CheckpointOptions {
  /** The Git commit that holds the ledger being replaced (40 or 64 hex digits). */
  priorGitSha: string;
  /** An administrator of the queue repository. */
  actor: Actor;
  /** Trusted decision time; not earlier than the replaced tip. */
  at: number;
}

/** The validated ledger behind a projection, reparsed from its retained lines. */
export function checkpointSource(projection: Projection): CheckpointSource {
  const { state } = projection;
  const history = state.commits.map(({ id }) => {
    const text = projection.commitText(id);
    if (text === undefined) return fail('checkpoint_invalid', `the projection does not retain commit ${id}`);
    return parseQueueCommit(JSON.parse(text));
  });
  return { state, history };
}

/** canonical(commit) + LF for every commit: the canonical ledger text. */
export function canonicalLedger(history: readonly QueueCommit[]): string {
  return history.map((c) => `${canonicalize(c as unknown as JsonValue)}\n`).join('');
}

/** `history_sha256`: SHA-256 of the canonical ledger text. */
export function historyDigest(history: readonly QueueCommit[]): string {
  return sha256Hex(canonicalLedger(history));
}

export function stateDigest(state: JsonObject): string {
  return sha256Hex(canonicalize(state));
}

function receipt(commit: QueueCommit): JsonObject {
  const parameters = commit.request.parameters as JsonValue;
  return {
    id: commit.id,
    request_id: commit.request.id,
    kind: commit.request.kind,
    fingerprint: commit.request.fingerprint,
    parameters_digest: sha256Hex(canonicalize(parameters)),
    ...(commit.request.kind === 'dispatch_next' ? { dispatch_parameters: parameters } : {}),
    actor: commit.actor as unknown as JsonObject,
    policy_epoch: commit.policy_epoch,
    at: commit.at,
    claims: commit.operations.filter((op) => op.kind === 'Claim') as unknown as JsonObject[],
  };
}

interface HistoryFacts {
  receipts: JsonObject[];
  epochs: Set<string>;
  terminalBarriers: JsonObject;
  cancellations: JsonObject;
}

/** What only the commits themselves say: receipts, seen identities, settling operations. */
function historyFacts(state: ReplayState, history: readonly QueueCommit[]): HistoryFacts {
  const base = state.checkpoint;
  const facts: HistoryFacts = {
    receipts: [...(base?.receipts ?? [])],
    epochs: new Set(base?.seenEpochs),
    terminalBarriers: { ...base?.terminalBarriers },
    cancellations: { ...base?.cancellations },
  };
  for (const commit of history) {
    facts.receipts.push(receipt(commit));
    for (const op of commit.operations) {
      const value = op as unknown as JsonObject;
      if (op.kind === 'Policy') facts.epochs.add(op.epoch);
      else if (op.kind === 'Result' || op.kind === 'DeliveryFailure') facts.terminalBarriers[op.work_id] = value;
      else if (op.kind === 'ClaimCancellation') facts.cancellations[op.claim_id] = value;
      else if (op.kind === 'WorkCancellation') facts.cancellations[op.work_id] = value;
    }
  }
  return facts;
}

function workEntry(state: ReplayState, w: WorkRecord, terminal: JsonObject): JsonObject {
  const entry: JsonObject = { ...w.definition };
  if (w.effectivePriority !== w.priority) entry.effective_priority = w.effectivePriority;
  entry.state = w.state;
  entry.position = { commit: w.position.ordinal, operation: w.position.operation };
  if (w.currentClaim !== null) entry.claim_id = w.currentClaim;
  entry.attempts = w.attempts;
  entry.retry_not_before = w.retryNotBefore ?? 0;
  if (w.completionCommit !== null) entry.completion_id = w.completionCommit;
  entry.barrier = w.barrier;
  const result = state.ready.results.get(w.workId);
  if (w.barrier === 'verified' && result !== undefined) {
    entry.result = result.descriptor;
    entry.result_commit_id = result.result_commit_id;
  }
  const settled = terminal[w.workId] as JsonObject | undefined;
  if (w.barrier === 'failed' && typeof settled?.disposition === 'string') entry.disposition = settled.disposition;
  if (w.cancellationReason !== null) entry.cancellation_reason = w.cancellationReason;
  if (w.cancellationClaim !== undefined) entry.cancellation_claim_id = w.cancellationClaim;
  if (w.cancellationCommit !== null) entry.cancellation_commit_id = w.cancellationCommit;
  return entry;
}

function clockEntry<K>(clock: SiblingClock<K>): JsonObject {
  const pass = Object.create(null) as JsonObject; // members are fairness keys: any string, `__proto__` included
  for (const [member, value] of clock.pass) pass[String(member)] = value.toString();
  const active = Object.create(null) as JsonObject;
  for (const member of clock.active) active[String(member)] = true;
  return { v: clock.v.toString(), pass, active };
}


/** The deterministic replay state of `state`, replayed from `history` (see the module comment). */
export function checkpointState(state: ReplayState, history: readonly QueueCommit[]): JsonObject {
  return snapshotOf(state, history, utf8ByteLength(canonicalLedger(history)));
}

function snapshotOf(state: ReplayState, history: readonly QueueCommit[], ledgerBytes: number): JsonObject {
  if (state.policy === null || state.tip === null) return fail('checkpoint_invalid', 'only a ledger with an installed Policy can be checkpointed');
  if (history.length !== state.commits.length || history.some((c, i) => c.id !== state.commits[i]!.id)) {
    return fail('checkpoint_invalid', 'the history is not the ledger this state was replayed from');
  }
  const facts = historyFacts(state, history);
  const counts = { available: 0, claimed: 0, completed: 0, cancelled: 0 };
  const works: JsonObject = {};
  const completionTimes: JsonObject = {};
  for (const w of state.works.values()) {
    works[w.workId] = workEntry(state, w, facts.terminalBarriers);
    counts[w.state] += 1;
    if (w.state === 'completed') completionTimes[w.workId] = w.completionAt!;
  }
  const claims: JsonObject = {};
  for (const c of state.claims.values()) {
    claims[c.claimId] = {
      kind: 'Claim', work_id: c.workId, claim_id: c.claimId, dispatch_id: c.dispatchId, handle: c.handle, observations: c.observations,
      state: c.state, commit_id: c.commitId, request_id: c.requestId,
      ...(c.terminalCommitId === null ? {} : { terminal_commit_id: c.terminalCommitId }),
      ...(c.cancelReason === null ? {} : { cancellation_reason: c.cancelReason }),
      ...(c.retryNotBefore === null || c.retryNotBefore === 0 ? {} : { retry_not_before: c.retryNotBefore }),
    };
  }
  const dispatches: JsonObject = {};
  let unreleased = 0;
  for (const g of state.dispatches.values()) {
    const members = g.claimIds.map((id) => {
      const claim = state.claims.get(id)!;
      return assignmentMember(state, state.works.get(claim.workId)!, id, claim.handle);
    });
    dispatches[g.dispatchId] = {
      version: 3, dispatch_id: g.dispatchId, request_id: g.requestId, commit_id: g.commitId, policy_epoch: g.policyEpoch,
      pool: g.pool, worker_profile: g.workerProfile, claims: members, profile: g.profile, state: g.state,
      ...(g.sender === null ? {} : { sender: g.sender }), ...(g.run === null ? {} : { run: g.run }),
      released: g.released, ...(g.reason === null ? {} : { reason: g.reason }), lifecycle_writes: g.lifecycleWrites,
      // A recorded run binding conflict's candidates survive compaction (ops/conflict.ts).
      ...(g.conflict === null ? {} : { conflict: { runs: g.conflict.runs, unnamed: g.conflict.unnamed, terminal: g.conflict.terminal } }),
    };
    if (!g.released) unreleased += 1;
  }
  const observations: JsonObject = {};
  for (const [gate, id] of state.latestObservation) observations[gate] = state.observations.get(id)!.operation;
  const observationIds: JsonObject = {};
  for (const o of state.observations.values()) observationIds[o.observationId] = o.operation;
  const clocks = Object.create(null) as JsonObject; // keyed by pool name
  for (const [pool, c] of state.fairness.pools) {
    const keys: JsonObject = {};
    for (const [priority, clock] of c.keys) keys[String(priority)] = clockEntry(clock);
    clocks[pool] = { classes: clockEntry(c.classes), keys };
  }
  const snapshot: JsonObject = {
    repository: state.repository,
    tip: state.tip,
    policy_epoch: state.policy.epoch,
    policy: state.policy.policy,
    works, claims, dispatches, observations,
    requests: facts.receipts,
    clocks,
    admission_paused: state.controls.admission_paused,
    grants_paused: state.controls.grants_paused,
    credential_generation: state.controls.credential_generation,
    stats: {
      work: state.works.size, ...counts, claims: state.claims.size, dispatches: unreleased,
      transactions: facts.receipts.length, nodes: nodeCount(state),
    },
    ledger_bytes: ledgerBytes,
    observation_writes: Object.fromEntries(state.observationWrites),
    seen_epochs: Object.fromEntries([...facts.epochs].map((e) => [e, true])),
    // Kept by replay itself (ops/policy.ts), `initial` included: the checkpoint writes what it refuses to return to.
    seen_generations: Object.fromEntries([...state.seenGenerations.keys()].map((g) => [g, true])),
    observation_ids: observationIds,
    terminal_barriers: facts.terminalBarriers,
    cancellations: facts.cancellations,
    completion_times: completionTimes,
    last_at: state.commits[state.commits.length - 1]!.at,
  };
  Object.assign(snapshot, deploymentExtensions(state), issueExtensions(state));
  return snapshot;
}

/**
 * Spec 7.10: a checkpoint "replaces a validated prefix with deterministic state", and its
 * prior Git commit and history digest point at that prefix. `prior` is the ledger read at the
 * root's `prior_git_sha`, replayed: it must be the history the root names (tip `prior_tip`,
 * canonical text hashing to `history_sha256`; else `checkpoint_history_mismatch`), and the
 * root's state must be that history's deterministic state (`state_sha256`; else
 * `checkpoint_state_mismatch`): replay alone cannot tell a resealed, self-consistent but forged
 * state from the real one, the history it claims to replace can.
 */
export function checkReplacedHistory(root: QueueCommit, prior: CheckpointSource | Projection): void {
  const op = root.operations[0];
  if (root.request.kind !== 'checkpoint' || op?.kind !== 'Checkpoint') return fail('checkpoint_invalid', `commit ${root.id} is not a checkpoint root`);
  const { state, history } = 'history' in prior ? prior : checkpointSource(prior);
  const where = { commit: root.id, operation: 0 };
  const details = { prior_git_sha: op.prior_git_sha, checkpoint: root.id };
  // The history's canonical text once, for its digest and its size (as buildCheckpointCommit does).
  const ledger = canonicalLedger(history);
  if (state.tip !== op.prior_tip || sha256Hex(ledger) !== op.history_sha256) {
    fail('checkpoint_history_mismatch', `the ledger at Git commit ${op.prior_git_sha} is not the history checkpoint ${root.id} replaced`, where, details);
  }
  if (stateDigest(snapshotOf(state, history, utf8ByteLength(ledger))) !== op.state_sha256) {
    fail('checkpoint_state_mismatch', `checkpoint ${root.id}'s state is not the replay state of the history it replaced (Git commit ${op.prior_git_sha})`, where, details);
  }
}

const REVISION = /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/;

/**
 * The checkpoint root that replaces `source`'s ledger: request id
 * `checkpoint_` + SHA256(prior_tip + LF + prior_git_sha), commit id `q_` + SHA256(request id).
 * The candidate is validated by replaying it alone.
 */
export function buildCheckpointCommit(source: CheckpointSource | Projection, options: CheckpointOptions): QueueCommit {
  const { state, history } = 'history' in source ? source : checkpointSource(source);
  const { actor, at, priorGitSha } = options;
  if (!REVISION.test(priorGitSha)) fail('checkpoint_invalid', 'prior_git_sha must be a 40- or 64-digit hex Git commit id');
  if (actor.role !== 'administrator') fail('role_not_allowed', 'checkpoints are administrator requests');
  if (state.tip === null || state.policy === null) return fail('checkpoint_invalid', 'only a ledger with an installed Policy can be checkpointed');
  if (actor.repository !== state.repository) fail('repository_mismatch', `actor repository ${actor.repository} is not the queue repository ${state.repository}`);
  if (!Number.isSafeInteger(at) || at < state.commits[state.commits.length - 1]!.at) fail('checkpoint_invalid', 'a checkpoint cannot predate the tip it replaces');

  const ledger = canonicalLedger(history);
  const snapshot = snapshotOf(state, history, utf8ByteLength(ledger));
  const parameters = {
    prior_git_sha: priorGitSha,
    prior_tip: state.tip,
    history_sha256: sha256Hex(ledger),
    state_sha256: stateDigest(snapshot),
  };
  const requestId = checkpointRequestId(state.tip, priorGitSha);
  const line = canonicalize({
    version: 3,
    id: candidateCommitId(null, requestId),
    previous: null,
    request: { id: requestId, kind: 'checkpoint', parameters, fingerprint: requestFingerprint(actor as unknown as JsonValue, 'checkpoint', parameters) },
    actor: actor as unknown as JsonObject,
    policy_epoch: state.policy.epoch,
    at,
    operations: [{ kind: 'Checkpoint', ...parameters, state: snapshot }],
  });
  // The root is one ledger record, so the whole state must fit the record bound.
  const bytes = utf8ByteLength(line);
  if (bytes > LINE_BYTES) {
    fail('resource_limit', `the checkpoint record would be ${bytes} bytes; a ledger record holds at most ${LINE_BYTES}. A checkpoint keeps every Work, Claim and receipt ever committed (the reference's shape), so this queue's state has outgrown one record: compacting cannot shrink it, and the ledger stays as it is`, {}, { limit: 'line_bytes', max: LINE_BYTES, value: bytes });
  }
  const commit = parseQueueCommit(JSON.parse(line));
  applyCommit(createState(), commit);
  return commit;
}
