/**
 * What a reused request id means (spec 7.6 "Reusing a request ID with different meaning MUST
 * fail"; 7.10 compaction preserves request idempotency; 7.14 "conflicting outcomes fail
 * explicitly"). The publisher (publisher.ts) asks it before answering `request_replayed`.
 *
 * The retry must mean the same request: prepared as of the committed decision (its time; first
 * on the current projection, then, if that differs, on the commit's own predecessor prefix,
 * which after compaction is read from the checkpoint's prior Git commit), it has the committed
 * fingerprint. Builders whose parameters depend on the pre-state (a reprioritize's expected
 * priorities, ...) thus match an honest retry, and a request that can no longer be prepared (its
 * Work since claimed, ...) is compared on that prefix too (a lifecycle transition under its
 * derived id, `derivedId`, is the committed one once it cannot be prepared). When a checkpoint
 * replaced the commit and that history is unreachable, only the receipt is left: another actor
 * or kind is `request_id_conflict`, and so is another dispatch_next (its parameters are its
 * caller's input alone); any other difference may be the pre-state's or the retry's (a finish's
 * other outcome under its derived id, ...), and is `history_compacted` (naming the Git commit to
 * fetch), never a replay that would drop the retry's meaning unseen.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { ProtocolError, fail } from '../../engine/errors.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonValue } from '../../engine/json.ts';
import { committedRequest, historyCompacted } from '../../engine/receipts/committed.ts';
import { projectionAt } from '../../engine/receipts/prefix.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { Actor } from '../../engine/schema/index.ts';

/** What the check reads of a publication (publisher.ts `PublishInput`). */
export interface Retry {
  requestId: string;
  prepare: (projection: Projection, candidate: { requestId: string; commitId: string; at: number }) => { kind: string; parameters: unknown };
  bootstrap?: (candidate: { requestId: string; commitId: string; at: number }, actor: Actor) => Promise<{ kind: string; parameters: unknown }> | { kind: string; parameters: unknown };
  derivedId?: boolean;
}

/** The validated ledger that still retains a commit: the projection itself, or pre-compaction Git history (null: unreachable). */
export type HistoryReader = (projection: Projection, commitId: string) => Promise<Projection | null>;

type Identity = { kind: string; fingerprint: string } | null;

/**
 * Answers the committed commit id of `retry.requestId` when the retry means that request; throws
 * `request_id_conflict` or `history_compacted` otherwise. The id must be committed in `projection`.
 */
export async function checkSameRequest(history: HistoryReader, projection: Projection, retry: Retry, actor: Actor): Promise<string> {
  const existing = projection.request(retry.requestId)!;
  const ids = { requestId: retry.requestId, commitId: existing.commitId, at: existing.at };
  const conflict = (): never => fail('request_id_conflict', `request id ${retry.requestId} was already committed with a different meaning (commit ${existing.commitId})`, { commit: existing.commitId });
  const now = preparedOn(projection, retry, actor, ids);
  if (now !== null && now.fingerprint === existing.fingerprint) return existing.commitId;
  if (now === null && retry.derivedId === true) return existing.commitId;
  const holder = await history(projection, existing.commitId);
  if (holder !== null) {
    const before = projectionAt(holder, existing.commitId, false);
    // The genesis had no queue before it: a retry of it is the same bootstrap.
    const then = before.tip === null ? await bootstrapped(retry, actor, ids) : preparedOn(before, retry, actor, ids);
    return then !== null && then.fingerprint === existing.fingerprint ? existing.commitId : conflict();
  }
  const receipt = committedRequest(projection, retry.requestId)!;
  const sameActor = canonicalize(receipt.actor as JsonValue) === canonicalize(actor as unknown as JsonValue);
  if (!sameActor || (now !== null && (now.kind !== receipt.kind || receipt.kind === 'dispatch_next'))) return conflict();
  return historyCompacted(projection, existing.commitId, `request ${retry.requestId}'s pre-state (this retry differs from what the request means now, and only that state tells whether it is the same request)`);
}

async function bootstrapped(retry: Retry, actor: Actor, ids: { requestId: string; commitId: string; at: number }): Promise<Identity> {
  if (retry.bootstrap === undefined) return null;
  try {
    const built = await retry.bootstrap(ids, actor);
    return { kind: built.kind, fingerprint: requestFingerprint(actor as unknown as JsonValue, built.kind, built.parameters as JsonValue) };
  } catch (e) {
    return unprepared(e);
  }
}

function preparedOn(projection: Projection, retry: Retry, actor: Actor, ids: { requestId: string; commitId: string; at: number }): Identity {
  try {
    const prepared = retry.prepare(projection, ids);
    return { kind: prepared.kind, fingerprint: requestFingerprint(actor as unknown as JsonValue, prepared.kind, prepared.parameters as JsonValue) };
  } catch (e) {
    return unprepared(e);
  }
}

/** Builder codes that say the retry's content differs from what is recorded (a conflict, not "can no longer be prepared"). */
const MEANING_CONFLICTS = new Set(['inconsistent_resubmission']);

/** A retry the builders refuse: null when it can no longer be prepared, a non-matching identity when it means something else. */
function unprepared(e: unknown): Identity {
  if (!(e instanceof ProtocolError)) throw e;
  return MEANING_CONFLICTS.has(e.code) ? { kind: 'conflict', fingerprint: 'conflict' } : null;
}
