/**
 * Launching the groups of one grant (`launch --next`), each on its own (spec 7.8: a start marker
 * and one POST per group; "Retries reconcile the group and must not split it"). A group whose
 * launch is refused does not stop the others: the refusal is reported as that group's outcome
 * (`failed`, with its error) and the next group is launched. Only an error that leaves the queue
 * itself in doubt stops the batch: a publication that failed or may have landed (the store, its
 * lock, its compare-and-swap, an unreadable or invalid ledger), or an internal error. Spec 7.8:
 * "reconcile uncertain writes before attempting another mutation"; the groups not attempted stay
 * reserved for `reconcile --all` (or a later launch) and are reported `not_attempted`.
 */
import { internalError, isProtocolError, isRefusedCandidate } from '../../engine/errors.ts';
import { launchState, type LaunchState } from '../../engine/lifecycle/launch-state.ts';
import type { Publisher } from '../publisher/publisher.ts';
import { thrownWhilePreparing } from '../publisher/requests.ts';
import { launchGroup, launchReport, type LaunchDeps, type LaunchReport } from './launcher.ts';

export interface LaunchBatch {
  /** One report per group, in launch order: every group given appears once. */
  launches: LaunchReport[];
  /** The groups whose launch was refused (outcome `failed`). */
  failed: string[];
  /** The error that stopped the batch (its group is `failed`, the later ones `not_attempted`), or null. */
  stopped: unknown;
}

/**
 * True when `e` refused one group's request and wrote nothing: its builder refused it on the
 * CAS-validated prefix, replay refused the candidate commit before its compare-and-swap, or the
 * request id is already taken by another meaning. The queue itself is as it was: the next
 * group's launch is as safe as it would have been alone.
 */
export function groupRefusal(e: unknown): boolean {
  if (!isProtocolError(e)) return false;
  return thrownWhilePreparing(e) || isRefusedCandidate(e) || e.code === 'request_id_conflict';
}

export async function launchGroups(deps: LaunchDeps, dispatchIds: readonly string[]): Promise<LaunchBatch> {
  const batch: LaunchBatch = { launches: [], failed: [], stopped: null };
  for (const id of dispatchIds) {
    const report = launchReport(id);
    batch.launches.push(report);
    if (batch.stopped !== null) {
      report.outcome = 'not_attempted';
      continue;
    }
    try {
      await launchGroup(deps, id, report);
    } catch (e) {
      report.outcome = 'failed';
      report.error = isProtocolError(e) ? e.toJSON() : internalError(e);
      batch.failed.push(id);
      if (!groupRefusal(e)) batch.stopped = e;
    }
  }
  if (batch.failed.length > 0) await refreshGroupStates(deps.publisher, batch.launches);
  return batch;
}

/**
 * The failed and not attempted groups' launch state as the ledger now says, when it can be read
 * (a batch's reports: `launch --next` here, `reconcile --all` in reconcile-batch.ts).
 */
export async function refreshGroupStates(publisher: Publisher, reports: readonly { dispatch_id: string; outcome: string; state: LaunchState }[]): Promise<void> {
  try {
    const { projection } = await publisher.cache.load();
    for (const r of reports) {
      const group = projection?.dispatch(r.dispatch_id);
      if ((r.outcome === 'failed' || r.outcome === 'not_attempted') && group !== undefined) r.state = launchState(group);
    }
  } catch {
    // Unreadable (the error that stopped the batch may be why): the states stay as last known.
  }
}
