/**
 * Receipt permalinks (docs/console.md "Pages" `/receipts/[requestId]`, spec 7.13): derived
 * from the ledger alone, so a receipt renders identically after a restart.
 * Every request kind gets the envelope and its operations (never payloads); a
 * dispatch_next also gets the engine's receipt, each Claim's planNext
 * explanation re-derived from the predecessor prefix, its dispatch groups and
 * their lifecycle from later commits, and a Mermaid sequence of it.
 *
 * A request that a checkpoint replaced (spec 7.10, 7.17) is rendered from the pre-compaction
 * ledger when the caller could read it through the checkpoint's prior_git_sha (`history`):
 * the same envelope, operations and explanations, with launch states as of now. Without that
 * history only the checkpoint receipt remains: the envelope and Claims, and `compacted` says
 * plainly that the explanation was compacted away and names the Git commit holding it.
 */
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { committedRequest } from '../../../engine/receipts/committed.ts';
import { dispatchReceipt, grantPlan, type DispatchReceipt } from '../../../engine/receipts/dispatch.ts';
import type { Explanation } from '../../../engine/scheduler/plan-types.ts';
import { operationSummary, type OperationSummary } from './operations.ts';
import { dispatchConflicts, lifecycleEvents, lifecycleSequence, type ConflictView, type LifecycleEvent } from './lifecycle.ts';

export interface ReceiptView {
  requestId: string;
  kind: string;
  commitId: string;
  sourceCommit: string | null;
  policyEpoch: string;
  at: number;
  actor: JsonObject;
  operations: OperationSummary[];
  dispatch: DispatchReceipt | null;
  /** One planNext explanation per granted Claim, in grant order. */
  explanations: Explanation[];
  /** Why the fair prefix stopped, and the decision that stopped it when it was a no-grant. */
  stop: { reason: string; explanation: Explanation | null } | null;
  lifecycle: LifecycleEvent[];
  /** Each group's recorded run binding conflict, as of now (spec 7.8). */
  conflicts: ConflictView[];
  sequence: string | null;
  /** Set when the request's commit was compacted and its history is not reachable here. */
  compacted: { code: 'history_compacted'; checkpoint: string; priorGitSha: string } | null;
}

/**
 * The receipt of `requestId`; `host` is the console's GitHub host (run links), `history` the
 * pre-compaction ledger when the request's commit was compacted.
 */
export function receiptView(projection: Projection, requestId: string, host: string, history: Projection | null = null): ReceiptView | null {
  const request = projection.request(requestId);
  if (request === undefined) return null;
  const text = projection.commitText(request.commitId);
  if (text === undefined) return compactedView(projection, requestId, host, history);
  const commit = JSON.parse(text) as { id: string; previous: string | null; policy_epoch: string; at: number; actor: JsonObject; operations: JsonObject[] };
  const view: ReceiptView = {
    requestId,
    kind: request.kind,
    commitId: commit.id,
    sourceCommit: commit.previous,
    policyEpoch: commit.policy_epoch,
    at: commit.at,
    actor: commit.actor,
    operations: commit.operations.map((op) => operationSummary(projection, op)),
    dispatch: null,
    explanations: [],
    stop: null,
    lifecycle: [],
    conflicts: [],
    sequence: null,
    compacted: null,
  };
  if (request.kind !== 'dispatch_next') return view;

  const plan = grantPlan(projection, requestId);
  view.dispatch = dispatchReceipt(projection, requestId, plan);
  const granted = request.claimIds.length;
  view.explanations = plan.explanations.slice(0, granted);
  // The decision after the last granted Claim, if any: a no-grant, or a winner that did not fit.
  view.stop = { reason: plan.stopReason, explanation: plan.explanations[granted] ?? null };
  view.lifecycle = lifecycleEvents(projection, request.commitId, request.claimIds);
  view.conflicts = conflictsOf(projection, view.dispatch, host);
  view.sequence = lifecycleSequence(view.dispatch, view.lifecycle, commit.at);
  return view;
}

function compactedView(projection: Projection, requestId: string, host: string, history: Projection | null): ReceiptView {
  const request = committedRequest(projection, requestId)!;
  if (history !== null && history.commitText(request.commitId) !== undefined) {
    const past = receiptView(history, requestId, host)!;
    if (past.dispatch === null) return past;
    // The grant's own evidence is the pre-compaction ledger's; its launch state is the queue's now.
    const dispatch = dispatchReceipt(projection, requestId, grantPlan(history, requestId));
    return { ...past, dispatch, conflicts: conflictsOf(projection, dispatch, host), sequence: lifecycleSequence(dispatch, past.lifecycle, past.at) };
  }
  const dispatch = request.kind === 'dispatch_next' ? dispatchReceipt(projection, requestId) : null;
  return {
    requestId,
    kind: request.kind,
    commitId: request.commitId,
    sourceCommit: request.previous,
    policyEpoch: request.policyEpoch,
    at: request.at,
    actor: request.actor,
    operations: request.claims.map((op) => operationSummary(projection, op)),
    dispatch,
    explanations: [],
    stop: null,
    lifecycle: [],
    conflicts: conflictsOf(projection, dispatch, host),
    sequence: null,
    compacted: { code: 'history_compacted', checkpoint: projection.commits[0]!.id, priorGitSha: projection.checkpoint!.priorGitSha },
  };
}

function conflictsOf(projection: Projection, dispatch: DispatchReceipt | null, host: string): ConflictView[] {
  return dispatch === null ? [] : dispatchConflicts(projection, dispatch.dispatches.map((g) => g.dispatch_id), host);
}
