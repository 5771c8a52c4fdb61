/**
 * Administrator actions of the console (issue 5 §2 `/admin`): each one builds
 * its request with the engine's builders and publishes it through the one
 * Publisher (spec 7.7) under a fresh request id, as the signed-in actor, and
 * answers with the receipt derived from the ledger.
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError } from '../../../engine/errors.ts';
import type { JsonObject } from '../../../engine/json.ts';
import type { ReplayState } from '../../../engine/replay/state.ts';
import { cancelClaimsRequest, cancelWorkRequest, policyRequest, reprioritizeRequest } from '../../../engine/requests/admin.ts';
import { control } from '../../../engine/requests/lifecycle.ts';
import type { BuiltRequest } from '../../../engine/requests/operations.ts';
import type { Actor } from '../../../engine/schema/index.ts';
import type { ConsoleRuntime } from '../runtime.ts';
import { receiptView, type ReceiptView } from '../views/receipt.ts';
import type { AdminAction, AdminBody } from './schemas.ts';
import { debugEvent } from '../../debug/log.ts';

export interface AdminOutcome {
  ok: true;
  status: 'committed' | 'request_replayed';
  request_id: string;
  commit_id: string;
  receipt_url: string;
  receipt: ReceiptView | null;
}

/**
 * No-op actions are refused before publishing (issue 14 §4): reprioritising
 * every target to the priority it already has, or setting a control to its
 * current value, would write a commit that changes nothing.
 */
export function refuseNoOp(action: AdminAction, body: AdminBody<AdminAction>, state: ReplayState): void {
  if (action === 'control') {
    const b = body as AdminBody<'control'>;
    if (state.controls[b.control] === b.value) {
      throw new ProtocolError('no_change', `${b.control} is already ${String(b.value)}; nothing to publish`);
    }
  } else if (action === 'reprioritize') {
    const b = body as AdminBody<'reprioritize'>;
    const works = b.work_ids.map((id) => state.works.get(id));
    if (works.length > 0 && works.every((w) => w !== undefined && w.effectivePriority === b.priority)) {
      throw new ProtocolError('no_change', `every target already has priority ${b.priority}; nothing to publish`);
    }
  }
}

function build(action: AdminAction, body: AdminBody<AdminAction>, state: ReplayState): BuiltRequest {
  switch (action) {
    case 'control': {
      const b = body as AdminBody<'control'>;
      return control(b.control, b.value, b.reason);
    }
    case 'cancel-claim': {
      const b = body as AdminBody<'cancel-claim'>;
      debugEvent('claims', 'cancel', { claims: b.claim_ids.length });
      return cancelClaimsRequest(state, b.claim_ids, b.reason);
    }
    case 'cancel-work': {
      const b = body as AdminBody<'cancel-work'>;
      return cancelWorkRequest(state, b.work_ids, b.reason);
    }
    case 'reprioritize': {
      const b = body as AdminBody<'reprioritize'>;
      return reprioritizeRequest(state, b.work_ids, b.priority, b.reason);
    }
    case 'policy': {
      const b = body as AdminBody<'policy'>;
      return policyRequest(b.epoch, b.policy as unknown as JsonObject);
    }
  }
}

export function newRequestId(action: AdminAction): string {
  return `console-${action}-${randomUUID()}`;
}

export async function runAdminAction<A extends AdminAction>(runtime: ConsoleRuntime, action: A, body: AdminBody<A>, principal: string): Promise<AdminOutcome> {
  if (runtime.readOnly) throw new ProtocolError('read_only', 'this console reads a ledger file offline; start it on a repository to act');
  const live = await runtime.live();
  const repository = live.projection.state.repository;
  if (repository === null) throw new ProtocolError('queue_uninitialized', 'the queue has no repository identity yet');
  const actor: Actor = { role: 'administrator', principal, repository };
  const requestId = body.request_id ?? newRequestId(action);
  const outcome = await runtime.publisher.publish({
    requestId,
    actor,
    now: () => runtime.now(),
    prepare: (projection) => {
      // A retry of a request that already committed is answered as replayed, never refused as a no-op.
      if (!projection.state.requests.has(requestId)) refuseNoOp(action, body, projection.state);
      return build(action, body, projection.state);
    },
  });
  runtime.invalidate();
  if (outcome.status === 'no_write') throw new ProtocolError(outcome.code, outcome.message);
  const commitId = outcome.status === 'committed' ? outcome.commit.id : outcome.commitId;
  return {
    ok: true,
    status: outcome.status,
    request_id: requestId,
    commit_id: commitId,
    receipt_url: `/receipts/${encodeURIComponent(requestId)}`,
    receipt: receiptView(outcome.projection, requestId),
  };
}
