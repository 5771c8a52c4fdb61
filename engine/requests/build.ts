/**
 * Candidate QueueCommit construction (spec 7.6, 7.7): one schema-parsed envelope
 * per request, with the contract's fingerprint and candidate commit id. Building
 * validates nothing else: every candidate is replayed before it is kept, by
 * `commitOn` (the in-memory LedgerWriter) or by appending its canonical line to
 * the publisher's cached projection, so no builder can bypass replay's checks.
 */
import { canonicalize } from '../codec/index.ts';
import { candidateCommitId, requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { applyCommit } from '../replay/apply.ts';
import type { Actor, QueueCommit, QueueOperation } from '../schema/index.ts';
import { parseQueueCommit } from '../schema/index.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export interface RequestEnvelope {
  id: string;
  kind: string;
  parameters: JsonObject;
  actor: Actor;
  /** Trusted decision time (ms). */
  at: number;
  operations: QueueOperation[];
  trace?: { publisher_attempt?: number; span_id?: string; trace_id?: string };
}

export function buildCommit(source: QueueSource, request: RequestEnvelope): QueueCommit {
  const state = stateOf(source);
  const first = request.operations[0];
  const epoch = first?.kind === 'Policy' ? first.epoch : state.policy?.epoch;
  const commit = {
    version: 3,
    id: candidateCommitId(state.tip, request.id),
    previous: state.tip,
    request: {
      id: request.id,
      kind: request.kind,
      parameters: request.parameters,
      fingerprint: requestFingerprint(request.actor as unknown as JsonValue, request.kind, request.parameters),
    },
    actor: request.actor,
    policy_epoch: epoch ?? '',
    at: request.at,
    operations: request.operations,
    ...(request.trace === undefined ? {} : { trace: request.trace }),
  };
  return parseQueueCommit(JSON.parse(canonicalize(commit as unknown as JsonValue)));
}

/**
 * Validates `commit` by applying it to `state` (which it mutates) and returns
 * its canonical ledger line, LF included. Callers that must keep `state`
 * unchanged on failure work on a state they can discard.
 */
export function commitOn(source: QueueSource, commit: QueueCommit): string {
  const state = stateOf(source);
  applyCommit(state, commit);
  return `${canonicalize(commit as unknown as JsonValue)}\n`;
}
