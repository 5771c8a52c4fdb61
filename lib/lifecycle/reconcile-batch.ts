/**
 * Reconciling several groups (`reconcile --all`, `--work-id`), each on its own, with the same
 * policy as `launch --next` (launch-batch.ts). A group whose own request is refused with nothing
 * written (its builder on the CAS-validated prefix, its refused candidate commit, its request id
 * taken by another meaning, or its receipts that cannot be read) is reported `failed`, with its
 * error, and the next group is reconciled. An error that leaves the queue itself in doubt stops
 * the pass: a publication that failed or may have landed (the store, its lock, its
 * compare-and-swap), an unreadable or invalid ledger, or an internal error. Spec 7.8:
 * "reconcile uncertain writes before attempting another mutation"; the groups after it are
 * reported `not_attempted` and keep their reservations for the next pass. A dispatcher run
 * attempt that granted several of the groups is read from GitHub once in the pass (prelaunch.ts).
 */
import { internalError, isProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { settleDelivery, type DeliveryReport } from './delivery.ts';
import { groupRefusal, refreshGroupStates } from './launch-batch.ts';
import { grantingRunReads } from './prelaunch.ts';
import { reconcileDispatch, reconcileReport, type ReconcileDeps, type ReconcileReport } from './reconciler.ts';

/** One completed Claim's receipts (and optional descriptor) for its delivery barrier. */
export type ReceiptsReader = (claimId: string) => Promise<{ receipts: unknown; descriptor?: JsonObject }>;

export interface ReconcileBatch {
  /** One report per group, in order: every group given appears once. */
  reconciled: ReconcileReport[];
  /** The delivery barriers settled from receipts (only with a receipts reader). */
  deliveries: DeliveryReport[];
  /** The groups whose pass stopped at an error (outcome `failed`). */
  failed: string[];
  /** The error that stopped the batch (its group is `failed`, the later ones `not_attempted`), or null. */
  stopped: unknown;
}

export async function reconcileGroups(given: ReconcileDeps, dispatchIds: readonly string[], receipts?: ReceiptsReader): Promise<ReconcileBatch> {
  const deps: ReconcileDeps = { ...given, grantingRuns: grantingRunReads() };
  const batch: ReconcileBatch = { reconciled: [], deliveries: [], failed: [], stopped: null };
  const settleDeps = { publisher: deps.publisher, api: deps.api, reconciler: deps.reconciler, ...(deps.now === undefined ? {} : { now: deps.now }) };
  for (const id of dispatchIds) {
    // Set when reading this group's own receipts failed: nothing of its delivery was published.
    let receiptsUnreadable = false;
    const report = reconcileReport(id);
    batch.reconciled.push(report);
    if (batch.stopped !== null) {
      report.outcome = 'not_attempted';
      continue;
    }
    try {
      await reconcileDispatch(deps, id, report);
      if (receipts === undefined) continue;
      for (const claimId of report.pending_barriers) {
        const files = await receipts(claimId).catch((e: unknown) => {
          receiptsUnreadable = isProtocolError(e);
          throw e;
        });
        batch.deliveries.push(await settleDelivery(settleDeps, { claimId, ...files, attempts: Math.max(1, report.polls) }));
      }
    } catch (e) {
      report.outcome = 'failed';
      report.error = isProtocolError(e) ? e.toJSON() : internalError(e);
      batch.failed.push(id);
      if (!groupRefusal(e) && !receiptsUnreadable) batch.stopped = e;
    }
  }
  if (batch.failed.length > 0) await refreshGroupStates(deps.publisher, batch.reconciled);
  return batch;
}

