/**
 * Admission-time fit (spec 7.17: "Reject a Work at admission if it cannot fit a valid one-Claim
 * assignment for its approved profile"). A Work whose worst-case single-Claim assignment exceeds
 * `limits.assignment_bytes` could never be granted and would block its pool's FIFO forever, so
 * replay rejects its admission with `assignment_limit`.
 *
 * Worst case, in canonical UTF-8 bytes (scheduler/assignment.ts shapes):
 *   the assignment envelope for this pool/profile/epoch with the longest request id a dispatcher
 *   may send (a 256-byte identity of characters that each escape to two bytes) and its derived
 *   dispatch/claim/commit ids, one member `h1` carrying the Work's payload, and one result
 *   reference per Work predecessor whose descriptor takes the full `limits.result_bytes` and whose
 *   `result_commit_id` is a worst-case escaped identity (the reference's "bounded escaped
 *   identities"; with the defaults this admits 10 Result parents and rejects 11, as it does).
 */
import { canonicalize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { candidateCommitId, claimHandle, claimId, dispatchId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { assignment, utf8Bytes } from '../scheduler/assignment.ts';
import { where, type CommitContext, type OperationOf } from './context.ts';
import { LIMIT_CEILINGS } from './ledger-budget.ts';

/** The longest request id a dispatcher can name: 256 bytes, each serialized as a 2-byte escape. */
const WORST_REQUEST_ID = '\\'.repeat(256);

/** The worst-case identities do not depend on the Work: derived once, not per admitted Work (replay hot path). */
let worstIds: { commitId: string; handle: string; claimId: string; dispatchId: string } | null = null;
function worstIdentities(): NonNullable<typeof worstIds> {
  worstIds ??= {
    commitId: candidateCommitId('\\'.repeat(256), WORST_REQUEST_ID),
    handle: claimHandle(1),
    claimId: claimId(WORST_REQUEST_ID, 1),
    dispatchId: dispatchId(WORST_REQUEST_ID, 1),
  };
  return worstIds;
}

/**
 * Worst-case canonical bytes of a one-Claim assignment of `work` (see the module comment). With
 * `payloadBytes` (the payload's canonical size, already measured) the payload is not serialized
 * again: the member is written with `{}` (2 bytes) in its place and the size added.
 */
export function worstAssignmentBytes(work: OperationOf<'Work'>, epoch: string, resultBytes: number, payloadBytes?: number): number {
  const ids = worstIdentities();
  const commitId = ids.commitId;
  const refs: JsonObject[] = work.depends_on.flatMap((edge) => (edge.kind === 'work'
    ? [{ work_id: edge.work_id, result_commit_id: WORST_REQUEST_ID, descriptor: {} }]
    : []));
  const payload = payloadBytes === undefined ? (work.payload as unknown as JsonValue) : {};
  const member: JsonObject = { handle: ids.handle, claim_id: ids.claimId, work_id: work.work_id, work: payload, result_refs: refs };
  const envelope = assignment({
    dispatch_id: ids.dispatchId,
    request_id: WORST_REQUEST_ID,
    commit_id: commitId,
    policy_epoch: epoch,
    pool: work.pool,
    worker_profile: work.worker_profile,
  }, [member]);
  // Each `{}` descriptor placeholder (2 bytes) stands for a descriptor of `resultBytes` bytes.
  return utf8Bytes(canonicalize(envelope)) + refs.length * (resultBytes - 2) + (payloadBytes === undefined ? 0 : payloadBytes - 2);
}

export function checkAssignmentFit(ctx: CommitContext, op: OperationOf<'Work'>): void {
  const policy = ctx.state.policy;
  if (policy === null) return; // applyWork already failed with policy_missing
  const limits = policy.policy.limits as Partial<Record<'assignment_bytes' | 'result_bytes', number>>;
  const max = limits.assignment_bytes ?? LIMIT_CEILINGS.assignment_bytes;
  const record = ctx.state.works.get(op.work_id);
  const bytes = worstAssignmentBytes(op, policy.epoch, limits.result_bytes ?? LIMIT_CEILINGS.result_bytes, record?.definition === op ? record.payloadBytes : undefined);
  if (bytes > max) {
    fail('assignment_limit', `Work ${op.node_key} cannot fit a one-Claim assignment: its worst case is ${bytes} bytes (payload and ${op.depends_on.filter((e) => e.kind === 'work').length} bounded Result inputs); assignment_bytes is ${max}`,
      where(ctx), { limit: 'assignment_bytes', bytes, max, node_key: op.node_key, graph_id: op.graph_id });
  }
}
