/**
 * What an administrator dialog shows before Confirm (docs/console.md "Previews"): every
 * target with its name, state and current owner, whether the action's
 * preconditions hold on the live ledger now (the same builder checks and
 * no-op refusal the publication runs), and the exact operations it would
 * publish with their SHA-256. Confirm sends that digest back; publication
 * refuses with `preview_stale` when the operations it would write differ
 * from the ones the administrator reviewed (the queue moved in between).
 */
import { ProtocolError } from '../../../engine/errors.ts';
import type { QueueOperation } from '../../../engine/schema/index.ts';
import { projectionOf, type QueueSource } from '../../../engine/replay/index.ts';
import { buildAdminRequest, operationsDigest, refuseNoOp } from './actions.ts';

export { operationsDigest } from './actions.ts';
import type { ConsoleRuntime } from '../runtime.ts';
import type { AdminAction, AdminBody } from './schemas.ts';

export interface PreviewTarget {
  id: string;
  kind: 'work' | 'claim' | 'control' | 'policy';
  exists: boolean;
  /** Work: node key (graph/node); Claim: its Work's node key; control: its name. */
  name: string | null;
  state: string | null;
  priority: number | null;
  /** The current Claim owning the Work (or the Claim's Work id for a Claim target). */
  owner: string | null;
}

export interface AdminPreview {
  ok: true;
  action: AdminAction;
  /** The ledger tip the preview was evaluated at. */
  tip: string | null;
  kind: string;
  targets: PreviewTarget[];
  operations: QueueOperation[];
  operations_sha256: string;
}

export function previewTargets(action: AdminAction, body: AdminBody<AdminAction>, source: QueueSource): PreviewTarget[] {
  const projection = projectionOf(source);
  if (action === 'control') {
    const b = body as AdminBody<'control'>;
    return [{ id: b.control, kind: 'control', exists: true, name: `${b.control} → ${String(b.value)}`, state: `now ${String(projection.controls[b.control])}`, priority: null, owner: null }];
  }
  if (action === 'policy') {
    const b = body as AdminBody<'policy'>;
    return [{ id: b.epoch, kind: 'policy', exists: true, name: `Policy epoch ${b.epoch}`, state: projection.policyEpoch === null ? 'none installed' : `replaces ${projection.policyEpoch}`, priority: null, owner: null }];
  }
  if (action === 'run-again') {
    const b = body as AdminBody<'run-again'>;
    const w = projection.work(b.work_id);
    if (w === undefined) return [{ id: b.work_id, kind: 'work', exists: false, name: null, state: null, priority: null, owner: null }];
    return [{ id: b.work_id, kind: 'work', exists: true, name: `${w.graphId}/${w.nodeKey} → new node ${b.node_key}`, state: w.state === 'completed' ? `delivery ${w.barrier}` : w.state, priority: w.priority, owner: null }];
  }
  if (action === 'cancel-claim') {
    return (body as AdminBody<'cancel-claim'>).claim_ids.map((id) => {
      const c = projection.claim(id);
      if (c === undefined) return { id, kind: 'claim' as const, exists: false, name: null, state: null, priority: null, owner: null };
      return { id, kind: 'claim' as const, exists: true, name: projection.work(c.workId)?.nodeKey ?? c.workId, state: c.state, priority: c.priority, owner: c.workId };
    });
  }
  return (body as AdminBody<'cancel-work' | 'reprioritize'>).work_ids.map((id) => {
    const w = projection.work(id);
    if (w === undefined) return { id, kind: 'work' as const, exists: false, name: null, state: null, priority: null, owner: null };
    return { id, kind: 'work' as const, exists: true, name: `${w.graphId}/${w.nodeKey}`, state: w.state, priority: w.effectivePriority, owner: w.currentClaim };
  });
}

/**
 * The preview of `action` on `source`: throws the ProtocolError publication
 * would answer (unknown_work, work_not_available, claim_terminal, no_change, …)
 * when a precondition fails, so nothing is offered for Confirm.
 */
export function previewAdminAction(action: AdminAction, body: AdminBody<AdminAction>, source: QueueSource, at: number = Date.now()): AdminPreview {
  const projection = projectionOf(source);
  const targets = previewTargets(action, body, projection);
  refuseNoOp(action, body, projection);
  const built = buildAdminRequest(action, body, projection, at);
  return { ok: true, action, tip: projection.tip, kind: built.kind, targets, operations: built.operations, operations_sha256: operationsDigest(built.operations) };
}

/**
 * The preview on the console's live ledger (`POST /api/admin/preview`). A stale view (the last
 * read failed: store unreachable, or a commit the ledger refuses) is no ground for "the
 * precondition verdict on the live ledger", and the action would be refused with the same
 * verdict: the preview answers that read's own code (e.g. unsupported_protocol).
 */
export async function previewLive(runtime: ConsoleRuntime, action: AdminAction, body: AdminBody<AdminAction>): Promise<AdminPreview> {
  if (runtime.readOnly) throw new ProtocolError('read_only', 'this console reads a ledger file offline; start it on a repository to act');
  const live = await runtime.live();
  if (live.stale !== null) {
    // The read's code, never its message: a store's or an exception's text may name paths, hosts or credentials (as /api/tip).
    throw new ProtocolError(live.stale.code, `the ledger cannot be read now (${live.stale.code}), so nothing can be previewed or published`);
  }
  return previewAdminAction(action, body, live.projection, runtime.now());
}
