/**
 * Deterministic identities (contract `identities`, `fingerprint`, `node_identity`;
 * spec 7.6 request fingerprint, 7.14 Claims, 7.15 graph node IDs).
 */
import { fail } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import { canonicalize } from '../codec/json.ts';
import { sha256Hex } from '../codec/digest.ts';

export { DECIMAL_MAX_DIGITS, IDENTITY_MAX_UTF8_BYTES, REVISION, isDecimalId, isIdentity, isReasonCode, isRevision } from './validate.ts';

/**
 * Gate identity of an Issue/PR condition (spec 7.16, contract `gate_identity`):
 * canonical({condition,host,kind,repository_id,resource_id}); display coordinates
 * (repository, number) never change it.
 */
export function gateIdentity(resource: { host: string; kind: string; repository_id: string; resource_id: string }, condition: string): string {
  return canonicalize({
    condition,
    host: resource.host,
    kind: resource.kind,
    repository_id: resource.repository_id,
    resource_id: resource.resource_id,
  });
}

/**
 * SHA-256 hex of canonical({actor, kind, parameters}); binds neither the request ID,
 * predecessor, timestamp, trace nor tentative winners (contract `fingerprint`, spec 7.6).
 */
export function requestFingerprint(actor: JsonValue, kind: string, parameters: JsonValue): string {
  return sha256Hex(canonicalize({ actor, kind, parameters }));
}

/** Work ID: SHA-256 hex of canonical({graph_id, node_key}) (contract `node_identity`, spec 7.15). */
export function workId(graphId: string, nodeKey: string): string {
  // The object's canonical text written member by member (keys in order; replay derives one per
  // Work): each value as `canonicalize` writes it, with its errors, graph_id's first.
  return sha256Hex(`{"graph_id":${canonicalize(graphId)},"node_key":${canonicalize(nodeKey)}}`);
}

function index1(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 1) fail('invalid_argument', `${what} must be a one-based positive integer`);
  return n;
}

/** The last request whose digest was taken: every Claim and group of one grant shares it. */
let lastRequest: { id: string; digest: string } | null = null;
function requestDigest(requestId: string): string {
  if (lastRequest === null || lastRequest.id !== requestId) lastRequest = { id: requestId, digest: sha256Hex(requestId) };
  return lastRequest.digest;
}

/** `c_` + SHA256(request.id) + `_` + one-based fair-prefix index of the Claim. */
export function claimId(requestId: string, index: number): string {
  return `c_${requestDigest(requestId)}_${index1(index, 'Claim index')}`;
}

/** `d_` + SHA256(request.id) + `_` + one-based earliest-compatible-group index. */
export function dispatchId(requestId: string, groupIndex: number): string {
  return `d_${requestDigest(requestId)}_${index1(groupIndex, 'dispatch group index')}`;
}

/** `h` + one-based member index in the original immutable group. */
export function claimHandle(memberIndex: number): string {
  return `h${index1(memberIndex, 'group member index')}`;
}

/**
 * Publisher convention for a new commit ID (contract `identities.candidate_commit`; not an
 * authentication field): `q_` + SHA256(previous_tip + LF + request.id). For genesis (no
 * tip) the hashed text is request.id alone, with no LF: the reference publisher hashes
 * `tip ? tip + "\n" + id : id`, and both reference ledgers' genesis IDs reproduce only that.
 */
export function candidateCommitId(previousTip: string | null, requestId: string): string {
  // The reference tests truthiness; "" is no valid commit ID, so it also means "no tip".
  return `q_${sha256Hex(previousTip ? `${previousTip}\n${requestId}` : requestId)}`;
}

/**
 * Request ID of a version-3 checkpoint commit (spec 7.10 compaction), as the reference
 * fixture writes it: `checkpoint_` + SHA256(prior_tip + LF + prior_git_sha). Neither the
 * spec nor the contract states this; it is inferred from both commits of checkpoint.json.
 */
export function checkpointRequestId(priorTip: string, priorGitSha: string): string {
  return `checkpoint_${sha256Hex(`${priorTip}\n${priorGitSha}`)}`;
}

/**
 * A Claim has at most one finish: its request id is derived from the Claim's
 * scope, so repeating the same outcome is idempotent (`request_replayed`) and a
 * conflicting outcome fails explicitly (`request_id_conflict`, spec 7.14). The CLI's finish and
 * a staged intent's finish (MCP) share it, so they replay each other.
 */
export function finishRequestId(dispatchId: string, claimHandle: string): string {
  return `wq-finish-${sha256Hex(canonicalize({ claim_handle: claimHandle, dispatch_id: dispatchId })).slice(0, 40)}`;
}
