/**
 * A committed request as the ledger still knows it (spec 7.10 "Compaction must preserve ...
 * request idempotency", 7.17). While the commit is retained, its own record answers; once a
 * checkpoint replaced it, the checkpoint state's request receipt does, in the reference's form
 * (fixtures/checkpoint.json `requests`: commit id, request id, kind, fingerprint, parameters
 * digest, the dispatch_next parameters, actor, policy epoch, decision time, Claim operations).
 * Receipts are in causal order, so a compacted commit's predecessor is the receipt before it
 * (a checkpoint root has none). A submit's parameters are its admitted Work operations, as the
 * reference restores them.
 *
 * What a receipt does not keep (the other operations of a commit, the packer's pre-state) is
 * evidence that stays at the checkpoint's prior Git commit: asking for it here is
 * `history_compacted`, naming that commit.
 */
import { fail } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import type { CheckpointBase } from '../state/state.ts';
import { unforked } from '../state/unforked.ts';

export interface CommittedRequest {
  requestId: string;
  kind: string;
  commitId: string;
  /** The commit's predecessor (null for a genesis or a checkpoint root). */
  previous: string | null;
  policyEpoch: string;
  at: number;
  actor: JsonObject;
  fingerprint: string;
  /** The request parameters; null when a checkpoint receipt does not keep them (neither submit nor dispatch_next). */
  parameters: JsonValue | null;
  /** The commit's Claim operations, in order. */
  claims: JsonObject[];
  /** True when the commit itself was replaced by a checkpoint (only its receipt remains). */
  compacted: boolean;
}

interface ReceiptIndex {
  byRequest: Map<string, number>;
  byCommit: Map<string, number>;
}

const indexes = new WeakMap<Readonly<CheckpointBase>, ReceiptIndex>();

function receiptIndex(forkedBase: Readonly<CheckpointBase>): ReceiptIndex {
  const base = unforked(forkedBase); // a fork's view of the checkpoint: its projection's index
  let index = indexes.get(base);
  if (index === undefined) {
    index = { byRequest: new Map(), byCommit: new Map() };
    base.receipts.forEach((r, i) => {
      index!.byRequest.set(String(r.request_id), i);
      index!.byCommit.set(String(r.id), i);
    });
    indexes.set(base, index);
  }
  return index;
}

/** The checkpoint receipt of a compacted commit, or undefined. */
export function compactedReceipt(projection: Projection, commitId: string): JsonObject | undefined {
  const base = projection.checkpoint;
  if (base === undefined || projection.commitText(commitId) !== undefined) return undefined;
  const i = receiptIndex(base).byCommit.get(commitId);
  return i === undefined ? undefined : base.receipts[i];
}

/**
 * The decision time (`at`, Unix ms) of commit `commitId` of the ledger: its own record while
 * retained, its checkpoint receipt once compacted; null for null or a commit the ledger never had.
 * Every surface that dates a commit reads it here.
 */
export function commitTime(projection: Projection, commitId: string | null): number | null {
  if (commitId === null) return null;
  const info = projection.commitInfo(commitId);
  if (info !== undefined) return info.at;
  const at = compactedReceipt(projection, commitId)?.at;
  return typeof at === 'number' ? at : null;
}

/** True when `commitId` is in the ledger's causal history: retained, or compacted into its checkpoint. */
export function hasCommitted(projection: Projection, commitId: string): boolean {
  return projection.commitPosition(commitId) !== undefined || compactedReceipt(projection, commitId) !== undefined;
}

/** The commit that holds the evidence a checkpoint replaced (its prior Git commit). */
export function historyCompacted(projection: Projection, commitId: string, what: string): never {
  const base = projection.checkpoint;
  const root = projection.commits[0]?.id ?? null;
  const prior = base?.priorGitSha ?? null;
  return fail(
    'history_compacted',
    `${what} was compacted away: commit ${commitId} precedes checkpoint ${root}; the earlier ledger is at Git commit ${prior}`,
    {},
    { commit: commitId, checkpoint: root, prior_git_sha: prior },
  );
}

export function committedRequest(projection: Projection, requestId: string): CommittedRequest | undefined {
  const outcome = projection.request(requestId);
  if (outcome === undefined) return undefined;
  const text = projection.commitText(outcome.commitId);
  if (text !== undefined) {
    const commit = JSON.parse(text) as {
      previous: string | null; policy_epoch: string; at: number; actor: JsonObject;
      request: { kind: string; fingerprint: string; parameters: JsonValue }; operations: JsonObject[];
    };
    return {
      requestId, kind: commit.request.kind, commitId: outcome.commitId, previous: commit.previous, policyEpoch: commit.policy_epoch,
      at: commit.at, actor: commit.actor, fingerprint: commit.request.fingerprint, parameters: commit.request.parameters,
      claims: commit.operations.filter((op) => op.kind === 'Claim'), compacted: false,
    };
  }
  const base = projection.checkpoint;
  const i = base === undefined ? undefined : receiptIndex(base).byRequest.get(requestId);
  if (base === undefined || i === undefined) return fail('internal_error', `request ${requestId} has neither a retained commit nor a checkpoint receipt (a bug)`);
  const receipt = base.receipts[i]!;
  const kind = String(receipt.kind);
  let parameters: JsonValue | null = null;
  if (kind === 'dispatch_next') parameters = receipt.dispatch_parameters ?? null;
  else if (kind === 'submit') parameters = { nodes: outcome.workIds.map((id) => projection.work(id)!.definition) };
  return {
    requestId, kind, commitId: outcome.commitId,
    previous: kind === 'checkpoint' || i === 0 ? null : String(base.receipts[i - 1]!.id),
    policyEpoch: String(receipt.policy_epoch), at: Number(receipt.at), actor: receipt.actor as JsonObject,
    fingerprint: String(receipt.fingerprint), parameters, claims: receipt.claims as JsonObject[], compacted: true,
  };
}
