/**
 * `apply(state, commit)`: the fold step of replay (spec 7.6). Validates the
 * envelope (genesis form, request identity and fingerprint, role, policy
 * epoch, parameters binding) and then applies every operation in order.
 */
import { canonicalize, utf8ByteLength } from '../codec/index.ts';
import { fail, isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonValue } from '../json.ts';
import type { QueueCommit, QueueOperation } from '../schema/index.ts';
import type { CommitContext } from './context.ts';
import { restoreCheckpoint } from './checkpoint-restore.ts';
import { checkAssignmentFit } from './assignment-fit.ts';
import { verifyFinish } from './finish.ts';
import { chargeCommit } from './ledger-budget.ts';
import { applyGrant } from './grant.ts';
import { applyClaimCancellation, applyCompletion, checkAttemptExhaustion } from './ops/claim.ts';
import { applyDispatch, applyRelease } from './ops/dispatch.ts';
import { applyDeliveryFailure, applyResult } from './ops/barrier.ts';
import { checkEvidenceBytes } from './ops/limits.ts';
import { applyObservation } from './ops/observation.ts';
import { admitExecution, applyDeployment } from './ops/deployment.ts';
import { applyControl, applyPolicy } from './ops/policy.ts';
import { applyIssueComment, applyIssueLink } from './ops/projector.ts';
import { applyWork, applyWorkCancellation, applyWorkPriority } from './ops/work.ts';
import { checkWorkerCommit } from './ops/worker-scope.ts';
import { OPERATIONS_KINDS, REQUEST_OPERATIONS, roleMayRequest } from './rules.ts';
import type { ReplayState } from '../state/state.ts';
import type { RecordMeasures } from './measures.ts';
import type { DefinitionSource } from '../state/definitions.ts';

export interface ApplyOptions {
  /** Physical line, for diagnostics. */
  line?: number;
  /**
   * Precomputed fingerprint input check (replay fast path): when the caller
   * already verified `request.fingerprint` against the canonical bytes it sets
   * this to true and the envelope check skips recomputing it.
   */
  fingerprintVerified?: boolean;
  /** Same for the parameters ↔ operations binding of submit/operations kinds. */
  parametersVerified?: boolean;
  /** The commit's canonical record bytes (line + LF); computed from the commit when absent. */
  bytes?: number;
  /** What the record stage measured of the commit's record (measures.ts); the fold measures itself when absent. */
  measures?: RecordMeasures | null;
  /**
   * Where the commit's Work definitions are read back from (state/definitions.ts): only a caller
   * that keeps the commit's record (replay.ts) sets it; definitions are kept as values otherwise.
   */
  definitions?: DefinitionSource;
}

export function applyCommit(state: ReplayState, commit: QueueCommit, options: ApplyOptions = {}): void {
  // After a checkpoint root, ordinals continue from the compacted prefix (replay/checkpoint.ts).
  let ordinal = (state.checkpoint?.ordinal ?? 0) + state.commits.length;
  const base = { commit: commit.id, line: options.line };

  checkEnvelope(state, commit, ordinal, options);
  // Only a worker's commit has a scope to check (worker-scope.ts answers at once for every other role).
  if (commit.actor.role === 'worker') checkWorkerCommit({ state, commit, ordinal, index: -1, line: options.line });
  const checkpointRoot = ordinal === 0 && commit.request.kind === 'checkpoint';
  if (checkpointRoot) ordinal = restoreCheckpoint(state, commit, options.line);
  const ctx: CommitContext = { state, commit, ordinal, index: -1, line: options.line, measures: options.measures, definitions: options.definitions };
  state.requests.set(commit.request.id, {
    requestId: commit.request.id,
    kind: commit.request.kind,
    fingerprint: commit.request.fingerprint,
    commitId: commit.id,
    ordinal,
    at: commit.at,
    actor: commit.actor as never,
    // Only a grant adds Claims to its receipt (replay/ops/claim.ts); other receipts share one empty list.
    claimIds: commit.request.kind === 'dispatch_next' ? [] : NO_IDS,
    workIds: workIdsOf(commit.operations),
  });
  if (ordinal === 0) state.repository = commit.actor.repository;

  if (checkpointRoot) {
    // restoreCheckpoint applied the root's single Checkpoint operation.
  } else if (commit.request.kind === 'dispatch_next') {
    applyGrant(ctx);
  } else {
    if (commit.request.kind === 'finish') verifyFinish(ctx);
    const ops = commit.operations;
    for (let index = 0; index < ops.length; index++) {
      ctx.index = index;
      try {
        applyOperation(ctx, ops[index]!);
      } catch (e) {
        throw isProtocolError(e) ? e.at({ ...base, operation: index }) : e;
      }
    }
    checkAttemptExhaustion(ctx);
  }

  chargeCommit(state, commit, options.bytes ?? utf8ByteLength(canonicalize(commit as unknown as JsonValue)) + 1, base);

  state.commitIndex.set(commit.id, state.commits.length);
  state.commits.push({
    id: commit.id,
    // The tip's own string when it is the predecessor (as it is but for a root): the record's copy is not kept.
    previous: commit.previous !== null && commit.previous === state.tip ? state.tip : commit.previous,
    ordinal,
    at: commit.at,
    requestId: commit.request.id,
    kind: commit.request.kind,
    role: commit.actor.role,
    operations: commit.operations.length,
    policyEpoch: commit.policy_epoch,
  });
  state.tip = commit.id;
}

/**
 * The empty id list of a receipt without Claims or Work: one frozen array for all of them (a
 * ledger's receipts are retained for its whole life, and most name neither), so a stray push
 * throws rather than writing into every receipt.
 */
const NO_IDS = Object.freeze([]) as unknown as string[];

function workIdsOf(ops: readonly QueueOperation[]): string[] {
  let ids: string[] | null = null;
  for (const op of ops) if (op.kind === 'Work') (ids ??= []).push(op.work_id);
  return ids ?? NO_IDS;
}

export function applyOperation(ctx: CommitContext, op: QueueOperation): void {
  checkEvidenceBytes(ctx, op);
  switch (op.kind) {
    case 'Policy': return applyPolicy(ctx, op);
    case 'Control': return applyControl(ctx, op);
    case 'Deployment': return applyDeployment(ctx, op);
    case 'Work':
      applyWork(ctx, op);
      checkAssignmentFit(ctx, op);
      return admitExecution(ctx, op);
    case 'WorkCancellation': return applyWorkCancellation(ctx, op);
    case 'WorkPriority': return applyWorkPriority(ctx, op);
    case 'Completion': return applyCompletion(ctx, op);
    case 'ClaimCancellation': return applyClaimCancellation(ctx, op);
    case 'Dispatch': return applyDispatch(ctx, op);
    case 'Release': return applyRelease(ctx, op);
    case 'Result': return applyResult(ctx, op);
    case 'DeliveryFailure': return applyDeliveryFailure(ctx, op);
    case 'Observation': return applyObservation(ctx, op);
    case 'IssueLink': return applyIssueLink(ctx, op);
    case 'IssueComment': return applyIssueComment(ctx, op);
    case 'Claim':
      return fail('claim_outside_grant', 'Claims are created only by dispatch_next requests', { commit: ctx.commit.id, operation: ctx.index });
    case 'Checkpoint':
      return fail('checkpoint_position', 'a Checkpoint is only valid as the root record of a ledger', { commit: ctx.commit.id, operation: ctx.index });
  }
}

function checkEnvelope(state: ReplayState, commit: QueueCommit, ordinal: number, options: ApplyOptions): void {
  const at = { commit: commit.id, line: options.line };
  const { request, actor } = commit;
  const ops = commit.operations;

  if (ordinal === 0) {
    const first = ops[0]!;
    const bootstrap = request.kind === 'submit' && first.kind === 'Policy' && ops.slice(1).every((op) => op.kind === 'Work') && ops.length > 1;
    const policyGenesis = request.kind === 'policy' && ops.length === 1 && first.kind === 'Policy';
    const checkpoint = request.kind === 'checkpoint' && ops.length === 1 && first.kind === 'Checkpoint';
    if (!bootstrap && !policyGenesis && !checkpoint) {
      fail('genesis_invalid', 'the genesis record must be a Policy, a bootstrap submit carrying Policy first and then its Work, or a Checkpoint', at);
    }
    // Spec 7.6, 7.7: "Only the first compiler-approved producer/dispatcher submit may install
    // Policy as part of genesis"; an administrator installs Policy with a policy request.
    if (bootstrap && actor.role !== 'producer' && actor.role !== 'dispatcher') {
      fail('policy_not_authorized', `a ${actor.role}'s submit cannot install Policy: only a producer's or dispatcher's first submit carries the genesis Policy`, { ...at, operation: 0 });
    }
  } else {
    if (state.policy === null) fail('policy_missing', 'no Policy is installed', at);
    if (ops[0]!.kind !== 'Policy' && commit.policy_epoch !== state.policy.epoch) {
      fail('policy_epoch_mismatch', `commit binds policy epoch ${commit.policy_epoch}, but ${state.policy.epoch} is installed`, at);
    }
    if (actor.repository !== state.repository) {
      fail('repository_mismatch', `actor repository ${actor.repository} is not the queue repository ${state.repository}`, at);
    }
  }

  // Installed (or, for a bootstrap genesis, the one being installed) Policy's operation budget;
  // the reference answers resource_limit ("operation count exceeds installed policy").
  const installing = ordinal === 0 && ops[0]!.kind === 'Policy' ? (ops[0] as { policy: { limits?: { operations?: number } } }).policy : undefined;
  const operationLimit = (installing ?? state.policy?.policy)?.limits?.operations;
  if (operationLimit !== undefined && ops.length > operationLimit) {
    fail('resource_limit', `commit has ${ops.length} operations; the installed Policy allows ${operationLimit}`, at, { limit: 'operations', max: operationLimit });
  }

  const existing = state.requests.get(request.id);
  if (existing !== undefined) {
    fail('duplicate_request', `request ${request.id} was already committed in ${existing.commitId}`, at, { first_commit: existing.commitId });
  }
  if (!roleMayRequest(actor.role, request.kind)) fail('role_not_allowed', `role ${actor.role} may not publish ${request.kind} requests`, at);
  if (!options.fingerprintVerified) {
    const expected = requestFingerprint(actor as never, request.kind, request.parameters as JsonValue);
    if (expected !== request.fingerprint) fail('fingerprint_mismatch', `request ${request.id} fingerprint does not match its actor, kind and parameters`, at);
  }

  const allowed = REQUEST_OPERATIONS[request.kind];
  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    if (allowed === undefined || !allowed.has(op.kind)) {
      if (op.kind === 'Deployment') {
        fail('deployment_not_authorized', `Deployments are derived only by authorized operators in control requests, not in ${request.kind}`, { ...at, operation: index });
      }
      fail('operation_not_allowed', `${request.kind} requests cannot carry ${op.kind} operations`, { ...at, operation: index });
    }
    if (op.kind === 'Policy' && request.kind === 'submit' && (ordinal !== 0 || index !== 0)) {
      fail('policy_not_authorized', 'a submit may install Policy only as the first operation of the genesis', { ...at, operation: index });
    }
  }

  if (!options.parametersVerified) checkParametersBinding(commit, at);
}

/** Contract `request_parameters`: submit and operations kinds persist exactly their parameters. */
function checkParametersBinding(commit: QueueCommit, at: { commit: string; line?: number }): void {
  const { request } = commit;
  const params = request.parameters as Record<string, JsonValue>;
  if (request.kind === 'submit') {
    const works = commit.operations.filter((op) => op.kind === 'Work');
    if (!Array.isArray(params.nodes) || canonicalize(params.nodes) !== canonicalize(works as never)) {
      fail('parameters_mismatch', 'submit parameters.nodes must equal the persisted Work operations', at);
    }
  } else if (OPERATIONS_KINDS.has(request.kind)) {
    if (!Array.isArray(params.operations) || canonicalize(params.operations) !== canonicalize(commit.operations as never)) {
      fail('parameters_mismatch', `${request.kind} parameters.operations must equal the persisted operations`, at);
    }
  }
}
