/**
 * Receipt permalinks (issue 5 §2 `/receipts/[requestId]`, spec 7.13): derived
 * from the ledger alone, so a receipt renders identically after a restart.
 * Every request kind gets the envelope and its operations (never payloads); a
 * dispatch_next also gets the engine's receipt, each Claim's planNext
 * explanation re-derived from the predecessor prefix, its dispatch groups and
 * their lifecycle from later commits, and a Mermaid sequence of it.
 */
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { dispatchReceipt, grantPlan, type DispatchReceipt } from '../../../engine/receipts/dispatch.ts';
import type { Explanation } from '../../../engine/scheduler/plan.ts';
import { operationSummary, type OperationSummary } from './operations.ts';
import { lifecycleEvents, lifecycleSequence, type LifecycleEvent } from './lifecycle.ts';

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
  sequence: string | null;
}

export function receiptView(projection: Projection, requestId: string): ReceiptView | null {
  const request = projection.request(requestId);
  if (request === undefined) return null;
  const text = projection.commitText(request.commitId);
  if (text === undefined) return null;
  const commit = JSON.parse(text) as { id: string; previous: string | null; policy_epoch: string; at: number; actor: JsonObject; operations: JsonObject[] };
  const view: ReceiptView = {
    requestId,
    kind: request.kind,
    commitId: commit.id,
    sourceCommit: commit.previous,
    policyEpoch: commit.policy_epoch,
    at: commit.at,
    actor: commit.actor,
    operations: commit.operations.map((op) => operationSummary(projection.state, op)),
    dispatch: null,
    explanations: [],
    stop: null,
    lifecycle: [],
    sequence: null,
  };
  if (request.kind !== 'dispatch_next') return view;

  const plan = grantPlan(projection, requestId);
  view.dispatch = dispatchReceipt(projection, requestId, plan);
  const granted = request.claimIds.length;
  view.explanations = plan.explanations.slice(0, granted);
  // The decision after the last granted Claim, if any: a no-grant, or a winner that did not fit.
  view.stop = { reason: plan.stopReason, explanation: plan.explanations[granted] ?? null };
  view.lifecycle = lifecycleEvents(projection, request.commitId, request.claimIds);
  view.sequence = lifecycleSequence(view.dispatch, view.lifecycle, commit.at);
  return view;
}
