/**
 * Administrator actions of the console (docs/console.md "Authentication and roles"): each
 * publishes through the shared administrator publisher (lib/publisher/admin.ts, the engine's
 * admin table) under a fresh request id, as the signed-in principal, and answers with the
 * receipt derived from the ledger.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ProtocolError } from '../../../engine/errors.ts';
import type { QueueSource } from '../../../engine/replay/index.ts';
import { adminNoChange, adminRequest, type AdminActionBody } from '../../../engine/requests/admin-actions.ts';
import type { BuiltRequest } from '../../../engine/requests/operations.ts';
import type { QueueOperation } from '../../../engine/schema/index.ts';
import { publishAdmin } from '../../publisher/admin.ts';
import { actorOf } from '../../publisher/actor.ts';
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
 * No-op actions are refused before publishing (docs/console.md "Previews"): reprioritising
 * every target to the priority it already has, or setting a control to its
 * current value, would write a commit that changes nothing (engine/requests/admin-actions.ts `adminNoChange`).
 */
export function refuseNoOp(action: AdminAction, body: AdminBody<AdminAction>, source: QueueSource): void {
  const why = adminNoChange(action, body as AdminActionBody<AdminAction>, source);
  if (why !== null) throw new ProtocolError('no_change', why);
}

/**
 * The digest of the operations a request would publish (canonical: the builders' own field order).
 * A Work's `enqueued` is its commit's decision time, fixed only at publication, so it is left out.
 */
export function operationsDigest(operations: readonly QueueOperation[]): string {
  const timeless = operations.map((op) => {
    if ((op as { kind?: string }).kind !== 'Work') return op;
    const { enqueued: _enqueued, ...rest } = op as unknown as Record<string, unknown>;
    return rest;
  });
  return createHash('sha256').update(JSON.stringify(timeless)).digest('hex');
}

/** The request an action publishes, built by the engine's admin table on `source` (its builders check the preconditions). */
export function buildAdminRequest(action: AdminAction, body: AdminBody<AdminAction>, source: QueueSource, at: number): BuiltRequest {
  if (action === 'cancel-claim') debugEvent('claims', 'cancel', { claims: (body as AdminBody<'cancel-claim'>).claim_ids.length });
  return adminRequest(action, body, source, at);
}

export function newRequestId(action: AdminAction): string {
  return `console-${action}-${randomUUID()}`;
}

export async function runAdminAction<A extends AdminAction>(runtime: ConsoleRuntime, action: A, body: AdminBody<A>, principal: string): Promise<AdminOutcome> {
  if (runtime.readOnly) throw new ProtocolError('read_only', 'this console reads a ledger file offline; start it on a repository to act');
  const requestId = body.request_id ?? newRequestId(action);
  // The dialog's preview (docs/console.md "Previews"): publish exactly the operations the administrator reviewed.
  const expected = (body as { expect_operations_sha256?: string }).expect_operations_sha256;
  const outcome = await publishAdmin(runtime.publisher, {
    requestId,
    actor: actorOf('administrator', principal),
    action: action as AdminAction,
    body: body as AdminBody<AdminAction>,
    now: () => runtime.now(),
    // A retry of a request that already committed is answered as replayed, never refused as a no-op.
    review: (projection, build) => {
      refuseNoOp(action, body, projection);
      const built = build();
      if (expected !== undefined && operationsDigest(built.operations) !== expected) {
        throw new ProtocolError('preview_stale', 'the queue changed since the preview: these operations differ from the ones you reviewed; review them again');
      }
      return built;
    },
  });
  runtime.invalidate();
  return {
    ok: true,
    status: outcome.status,
    request_id: requestId,
    commit_id: outcome.commitId,
    receipt_url: `/receipts/${encodeURIComponent(requestId)}`,
    receipt: receiptView(outcome.projection, requestId, runtime.githubHost),
  };
}
