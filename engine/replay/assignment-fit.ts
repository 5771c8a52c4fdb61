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
import { canonicalize, canonicalSize } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { candidateCommitId, claimHandle, claimId, dispatchId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { assignment, payloadBytes, utf8Bytes } from '../scheduler/assignment.ts';
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

/** Worst-case canonical bytes of a one-Claim assignment of `work` (see the module comment): the definition. */
export function worstAssignmentBytes(work: OperationOf<'Work'>, epoch: string, resultBytes: number): number {
  const ids = worstIdentities();
  const refs: JsonObject[] = work.depends_on.flatMap((edge) => (edge.kind === 'work'
    ? [{ work_id: edge.work_id, result_commit_id: WORST_REQUEST_ID, descriptor: {} }]
    : []));
  const member: JsonObject = { handle: ids.handle, claim_id: ids.claimId, work_id: work.work_id, work: work.payload as unknown as JsonValue, result_refs: refs };
  // Each `{}` descriptor placeholder (2 bytes) stands for a descriptor of `resultBytes` bytes.
  return utf8Bytes(canonicalize(envelopeOf(ids, epoch, work.pool, work.worker_profile, member))) + refs.length * (resultBytes - 2);
}

function envelopeOf(ids: ReturnType<typeof worstIdentities>, epoch: string, pool: string, profile: string, member: JsonObject): JsonObject {
  return assignment({ dispatch_id: ids.dispatchId, request_id: WORST_REQUEST_ID, commit_id: ids.commitId, policy_epoch: epoch, pool, worker_profile: profile }, [member]);
}

/** Sizes of the worst-case envelope with an empty member (`work_id` "", `work` {}, no refs), by epoch, pool, profile. */
const emptyEnvelopes = new Map<string, Map<string, Map<string, number>>>();
let emptyRef: number | null = null;

/**
 * `worstAssignmentBytes` by arithmetic on canonical sizes (replay measures every admitted Work):
 * an object's canonical text is its members' texts joined, so the envelope with an empty member
 * (cached per epoch, pool and profile) grows by the member's `work_id`, its payload's size
 * (`payloadBytes`, measured at admission) and one worst-case Result reference per Work edge
 * (`[]` becomes `[r1,...,rn]`). A differential test holds it to the definition.
 */
export function worstAssignmentSize(work: OperationOf<'Work'>, epoch: string, resultBytes: number, payloadBytes: number): number {
  const ids = worstIdentities();
  emptyRef ??= canonicalSize({ descriptor: {}, result_commit_id: WORST_REQUEST_ID, work_id: '' });
  let refs = 0;
  let refBytes = 0;
  for (const edge of work.depends_on) {
    if (edge.kind !== 'work') continue;
    refBytes += emptyRef - 2 + canonicalSize(edge.work_id) + (refs > 0 ? 1 : 0);
    refs += 1;
  }
  const idBytes = canonicalSize(work.work_id);
  let byPool = emptyEnvelopes.get(epoch);
  if (byPool === undefined) {
    if (emptyEnvelopes.size >= 64) emptyEnvelopes.clear(); // a long-lived process sees few epochs; stay bounded anyway
    emptyEnvelopes.set(epoch, (byPool = new Map()));
  }
  let byProfile = byPool.get(work.pool);
  if (byProfile === undefined) byPool.set(work.pool, (byProfile = new Map()));
  let empty = byProfile.get(work.worker_profile);
  if (empty === undefined) {
    const member: JsonObject = { handle: ids.handle, claim_id: ids.claimId, work_id: '', work: {}, result_refs: [] };
    byProfile.set(work.worker_profile, (empty = canonicalSize(envelopeOf(ids, epoch, work.pool, work.worker_profile, member))));
  }
  return empty + (idBytes - 2) + (payloadBytes - 2) + refBytes + refs * (resultBytes - 2);
}

export function checkAssignmentFit(ctx: CommitContext, op: OperationOf<'Work'>): void {
  const policy = ctx.state.policy;
  if (policy === null) return; // applyWork already failed with policy_missing
  const limits = policy.policy.limits;
  const max = limits.assignment_bytes ?? LIMIT_CEILINGS.assignment_bytes;
  const record = ctx.state.works.get(op.work_id);
  const resultBytes = limits.result_bytes ?? LIMIT_CEILINGS.result_bytes;
  // The record admitted from `op` just now (its measured payload size is this payload's).
  const admitted = record !== undefined && record.admittedCommit === ctx.commit.id && record.position.operation === ctx.index;
  const bytes = admitted ? worstAssignmentSize(op, policy.epoch, resultBytes, payloadBytes(record)) : worstAssignmentBytes(op, policy.epoch, resultBytes);
  if (bytes > max) {
    fail('assignment_limit', `Work ${op.node_key} cannot fit a one-Claim assignment: its worst case is ${bytes} bytes (payload and ${op.depends_on.filter((e) => e.kind === 'work').length} bounded Result inputs); assignment_bytes is ${max}`,
      where(ctx), { limit: 'assignment_bytes', bytes, max, node_key: op.node_key, graph_id: op.graph_id });
  }
}
