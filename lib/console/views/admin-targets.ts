/**
 * Admin targets that are easy to aim at (docs/console.md "Previews"): each open Claim with
 * its full ids, Work name, receipt and run links, and the by-id targets of a
 * dialog resolved against the ledger (name, state, current owner) so a
 * mistyped or stale id is caught before Confirm.
 */
import { commitTime } from '../../../engine/receipts/committed.ts';
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
  /** The run on the console's GitHub host when the run's repository is an `owner/repo` name; else null. */
  runUrl: string | null;
}

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const RUN_ID = /^[1-9][0-9]*$/;
/** A host name with an optional port (`ghe.example.com:8443`): nothing that could end the authority. */
const HOST = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})(?::[0-9]{1,5})?$/;

/**
 * `https://HOST/OWNER/REPO/actions/runs/ID` on the console's GitHub host (ConsoleRuntime
 * `githubHost`: github.com, or a GitHub Enterprise Server's host), or null when any part is not well formed.
 */
export function runUrl(host: string, repository: string | null | undefined, runId: string | null | undefined): string | null {
  if (!HOST.test(host) || typeof repository !== 'string' || typeof runId !== 'string' || !REPOSITORY.test(repository) || !RUN_ID.test(runId)) return null;
  const [owner, repo] = repository.split('/') as [string, string];
  return `https://${host}/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/actions/runs/${runId}`;
}

/** Every open Claim as an admin target; `host` is the console's GitHub host (run links). */
export function openClaimTargets(source: QueueSource, host: string): OpenClaimTarget[] {
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
      grantedAt: commitTime(projection, c.commitId),
      requestId: c.requestId,
      workHref: `/work/${encodeURIComponent(c.workId)}`,
      receiptHref: `/receipts/${encodeURIComponent(c.requestId)}`,
      runId,
      runUrl: runUrl(host, typeof run?.repository === 'string' ? run.repository : projection.repository, runId),
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
