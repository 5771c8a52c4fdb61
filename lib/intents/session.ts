/**
 * One processing run over one snapshot's staged intents: binds each intent to
 * its stable request id, publishes it through the checked publisher against
 * the live queue, and turns every outcome into a receipt. The orchestration
 * (order, worker settlement) lives in `processor.ts` and `worker.ts`.
 */
import { fail, isProtocolError } from '../../engine/errors.ts';
import type { CheckedIntent } from '../../engine/intents/check.ts';
import { DISPATCH_MAX_BYTES } from '../../engine/intents/envelope.ts';
import { resolveSubmit } from '../../engine/intents/limits.ts';
import { activationRequestPrefix, intentRequestId, type IntentRecord } from '../../engine/intents/records.ts';
import type { ClaimScope } from '../../engine/intents/scope.ts';
import type { JsonObject } from '../../engine/json.ts';
import { committedRequest } from '../../engine/receipts/committed.ts';
import { dispatchAssignment, dispatchReceipt } from '../../engine/receipts/dispatch.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import { actorOf } from '../publisher/actor.ts';
import type { Publisher, PublishingActor, PublishOutcome } from '../publisher/publisher.ts';
import { grantOf, publishDispatch, publishSubmit } from '../publisher/requests.ts';
import type { DispatchDetail, IntentReceipt } from './receipts.ts';
import type { LoadedSnapshot } from './snapshot.ts';

export interface SessionOptions {
  loaded: LoadedSnapshot;
  publisher: Publisher;
  /** Queue repository used only when a submission bootstraps an absent queue (asked only then). */
  repository: string | (() => Promise<string> | string);
  /** Dispatch groups this run may reserve in total (spec 7.12 per-run dispatch budget). */
  dispatchBudget: number;
}

export type Checked = { record: IntentRecord; intent: CheckedIntent };

export function rejected(record: IntentRecord | null, e: unknown, extra: Partial<IntentReceipt> = {}): IntentReceipt {
  if (!isProtocolError(e)) throw e;
  return {
    intent_id: record?.intent_id ?? null,
    seq: record?.seq ?? null,
    tool: record?.tool ?? 'unknown',
    ...(record === null ? {} : { intent_fingerprint: record.fingerprint }),
    ...(record?.scope ? { claim_handle: record.scope.claim_handle, claim_id: record.scope.claim_id } : {}),
    ...extra,
    status: 'rejected',
    error: { code: e.code, message: e.message },
  };
}

export class Session {
  /** Assignment of every dispatch group granted or found in this run, by dispatch id. */
  readonly assignments = new Map<string, JsonObject>();

  constructor(readonly o: SessionOptions) {}

  get snapshot() {
    return this.o.loaded.snapshot;
  }

  /** The live, validated queue projection (null: no queue yet). */
  async live(): Promise<Projection | null> {
    return (await this.o.publisher.cache.load()).projection;
  }

  requestId(record: IntentRecord, kind: 'submit' | 'dispatch_next'): string {
    return intentRequestId(this.snapshot.snapshot_id, record.intent_id, kind);
  }

  base(record: IntentRecord, requestId: string, scope: ClaimScope | null): IntentReceipt {
    return {
      intent_id: record.intent_id,
      seq: record.seq,
      tool: record.tool,
      status: 'committed',
      request_id: requestId,
      intent_fingerprint: record.fingerprint,
      ...(scope === null ? {} : { claim_handle: scope.claim_handle, claim_id: scope.claim_id }),
    };
  }

  /** Receipt fields every publication outcome shares. */
  settled(receipt: IntentReceipt, outcome: PublishOutcome): IntentReceipt {
    const status = outcome.status === 'no_write' ? 'no_grant' : outcome.replayed ? 'replayed' : 'committed';
    const fingerprint = receipt.request_id === undefined ? undefined : outcome.projection.request(receipt.request_id)?.fingerprint;
    return { ...receipt, status, commit_id: outcome.commitId, ...(fingerprint === undefined ? {} : { request_fingerprint: fingerprint }) };
  }

  /** The activation's origin Actor (producer or dispatcher); the publisher names the queue repository. */
  actorFor(): PublishingActor {
    const role = this.snapshot.role;
    if (role !== 'producer' && role !== 'dispatcher') fail('role_not_allowed', `a ${role} activation publishes no unscoped intents`);
    return actorOf(role, this.snapshot.origin.principal);
  }

  async submit(c: Checked, actor: PublishingActor): Promise<IntentReceipt> {
    if (c.intent.tool !== 'work_queue_submit') fail('intent_invalid', 'not a submit intent');
    const { input, parent } = c.intent;
    const requestId = this.requestId(c.record, 'submit');
    const receipt = this.base(c.record, requestId, c.intent.scope);
    try {
      const outcome = await publishSubmit(this.o.publisher, {
        requestId,
        actor,
        resolve: (policy) => resolveSubmit(input, { policy, intentId: c.record.intent_id, enqueued: this.snapshot.created_at, parent }),
        ...(actor.role === 'worker' ? {} : { bootstrap: { repository: this.o.repository } }),
      });
      if (outcome.status === 'no_write') {
        // Every node exists with exactly this definition: nothing is published, the existing records
        // stand, and this intent's request id stays uncommitted (as `fairway submit` reports it).
        const detail = outcome.detail as { work_ids: string[]; commits: string[] };
        return { ...receipt, status: 'already_admitted', commit_id: null, work_ids: [], existing_work_ids: detail.work_ids, admitted_commits: detail.commits };
      }
      return { ...this.settled(receipt, outcome), work_ids: outcome.projection.request(requestId)?.workIds ?? [] };
    } catch (e) {
      return rejected(c.record, e, { request_id: requestId });
    }
  }

  /** The snapshot's (stale, non-authoritative) prediction for a pool. */
  private prediction(pool: string): DispatchDetail['prediction'] {
    const projection = this.o.loaded.projection;
    try {
      if (projection === null) return { label: 'activation_snapshot', authoritative: false, work_id: null, reason: 'queue_uninitialized' };
      const plan = planNext(projection, pool, this.snapshot.created_at);
      return { label: 'activation_snapshot', authoritative: false, work_id: plan.selected ? plan.work.workId : null, reason: plan.explanation.reason };
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      return { label: 'activation_snapshot', authoritative: false, work_id: null, reason: e.code };
    }
  }

  async dispatch(c: Checked, actor: PublishingActor): Promise<IntentReceipt> {
    if (c.intent.tool !== 'work_queue_dispatch_next') fail('intent_invalid', 'not a dispatch_next intent');
    const { input } = c.intent;
    const requestId = this.requestId(c.record, 'dispatch_next');
    const receipt = this.base(c.record, requestId, c.intent.scope);
    const prediction = this.prediction(input.pool);
    const requested = { pool: input.pool, max_claims: input.max_claims, max_dispatches: input.max_dispatches };
    try {
      const live = await this.live();
      const known = live?.request(requestId);
      // A committed request replays with the parameters it was clamped to then (different
      // parameters under the same id still conflict); a new one is clamped to the run's remaining
      // budget on each attempt's projection (another processing run of this activation may spend it).
      const maxDispatches = known !== undefined ? Math.min(this.committedDispatches(live!, requestId), input.max_dispatches) : input.max_dispatches;
      const outcome = await publishDispatch(this.o.publisher, {
        requestId, actor, input: { pool: input.pool, max_claims: input.max_claims, max_dispatches: maxDispatches, max_bytes: DISPATCH_MAX_BYTES },
        ...(known === undefined ? { budget: { total: this.o.dispatchBudget, reserved: (projection: Projection) => this.reservedBy(projection, requestId) } } : {}),
      });
      const settled = this.settled(receipt, outcome);
      if (outcome.status === 'no_write') {
        return { ...settled, dispatch: { prediction, late_bound: false, requested, assignment_files: [], limiting_reason: outcome.code, granted_claims: 0, requested_claims: input.max_claims } };
      }
      // A replayed grant is described by its own packer run (from pre-compaction history if need be)
      // and its groups' immutable assignments, which survive compaction.
      const plan = await grantOf(this.o.publisher, outcome, requestId);
      const granted = dispatchReceipt(outcome.projection, requestId, plan);
      const files: string[] = [];
      const groups = plan?.groups.map((g) => [g.dispatch_id, g.assignment] as const)
        ?? granted.dispatches.map((d) => [d.dispatch_id, dispatchAssignment(outcome.projection, d.dispatch_id)] as const);
      for (const [dispatchId, assignment] of groups) {
        this.assignments.set(dispatchId, assignment);
        files.push(`assignments/${dispatchId}.json`);
      }
      const first = granted.claims[0]?.work_id ?? null;
      const detail: DispatchDetail = { ...granted, prediction, late_bound: prediction.work_id !== null && first !== prediction.work_id, requested, assignment_files: files };
      return { ...settled, dispatch: detail };
    } catch (e) {
      return rejected(c.record, e, { request_id: requestId });
    }
  }

  /**
   * Dispatch groups this activation has reserved, other than `requestId`'s: counted in the live
   * ledger under the activation's request-id prefix (engine/intents/records.ts), so intent files
   * removed between two processing runs of one activation (a worker's normal and wrap-up steps,
   * or an agent deleting what was processed) do not hand the run its budget again.
   */
  private reservedBy(live: Projection | null, requestId: string): number {
    if (live === null) return 0;
    const prefix = activationRequestPrefix(this.snapshot.snapshot_id, 'dispatch_next');
    const groups = new Set<string>();
    for (const request of live.requests()) {
      if (request.requestId === requestId || !request.requestId.startsWith(prefix)) continue;
      for (const claimId of request.claimIds) {
        const dispatchId = live.claim(claimId)?.dispatchId;
        if (dispatchId !== undefined) groups.add(dispatchId);
      }
    }
    return groups.size;
  }

  private committedDispatches(projection: Projection, requestId: string): number {
    // The committed parameters, from the commit or (after compaction) its checkpoint receipt.
    return (committedRequest(projection, requestId)!.parameters as { max_dispatches: number }).max_dispatches;
  }
}
