/**
 * Admin targets that are easy to aim at (docs/console.md "Previews"): each open Claim with
 * its full ids, Work name, receipt and run links, and the by-id targets of a
 * dialog resolved against the ledger (name, state, current owner) so a
 * mistyped or stale id is caught before Confirm.
 */
import { projectionOf, type QueueSource } from '../../../engine/replay/index.ts';

export interface OpenClaimTarget {
  claimId: string;
  workId: string;
  nodeKey: string;
  dispatchId: string;
  dispatchState: string;
  grantedAt: number | null;
  requestId: string;
  workHref: string;
  receiptHref: string;
  runId: string | null;
  /** The run on GitHub when the run's repository is an `owner/repo` name; else null. */
  runUrl: string | null;
}

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const RUN_ID = /^[1-9][0-9]*$/;

/** `https://github.com/OWNER/REPO/actions/runs/ID`, or null when either part is not well formed. */
export function runUrl(repository: string | null | undefined, runId: string | null | undefined): string | null {
  if (typeof repository !== 'string' || typeof runId !== 'string' || !REPOSITORY.test(repository) || !RUN_ID.test(runId)) return null;
  const [owner, repo] = repository.split('/') as [string, string];
  return `https://github.com/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/actions/runs/${runId}`;
}

export function openClaimTargets(source: QueueSource): OpenClaimTarget[] {
  const projection = projectionOf(source);
  const rows: OpenClaimTarget[] = [];
  for (const c of projection.claims()) {
    if (c.state !== 'open') continue;
    const d = projection.dispatch(c.dispatchId);
    const run = (d?.run ?? null) as { run_id?: unknown; repository?: unknown } | null;
    const runId = typeof run?.run_id === 'string' ? run.run_id : null;
    rows.push({
      claimId: c.claimId,
      workId: c.workId,
      nodeKey: projection.work(c.workId)?.nodeKey ?? c.workId,
      dispatchId: c.dispatchId,
      dispatchState: d === undefined ? 'unknown' : d.released ? 'released' : d.state,
      grantedAt: projection.commitInfo(c.commitId)?.at ?? null,
      requestId: c.requestId,
      workHref: `/work/${encodeURIComponent(c.workId)}`,
      receiptHref: `/receipts/${encodeURIComponent(c.requestId)}`,
      runId,
      runUrl: runUrl(typeof run?.repository === 'string' ? run.repository : projection.repository, runId),
    });
  }
  return rows;
}

export type WorkTarget =
  | { id: string; exists: false }
  | { id: string; exists: true; nodeKey: string; state: string; priority: number; owner: string | null };

/** Each id resolved against the ledger: its name, state, effective priority and current Claim. */
export function workTargets(source: QueueSource, ids: readonly string[]): WorkTarget[] {
  const projection = projectionOf(source);
  return ids.map((id) => {
    const w = projection.work(id);
    if (w === undefined) return { id, exists: false };
    return { id, exists: true, nodeKey: w.nodeKey, state: w.state, priority: w.effectivePriority, owner: w.currentClaim };
  });
}
