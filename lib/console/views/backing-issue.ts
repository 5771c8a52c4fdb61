/**
 * A Work's backing Issue as the ledger binds it (IssueLink; operator reference "Backing
 * Issues"), for the console's Work page and explorer, and the overview's count of admitted
 * Work still without a bound Issue (projection pending or not enabled). The ledger is read
 * only; what GitHub shows now is not.
 */
import type { Projection } from '../../../engine/replay/index.ts';

export interface BackingIssueView {
  repository: string;
  number: string;
  /** https://HOST/OWNER/REPO/issues/N, built from the validated identity only. */
  url: string | null;
  /** Comment handles recorded for the Work (summary and per-Claim). */
  comments: number;
}

const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const HOST = /^[A-Za-z0-9.-]{1,253}$/;

export function backingIssue(projection: Projection, workId: string): BackingIssueView | null {
  const records = projection.state.issueLinks.get(workId) ?? [];
  const link = records.find((r) => r.kind === 'IssueLink');
  if (link === undefined) return null;
  const resource = link.resource as { host?: string; repository?: string; number?: string };
  const repository = String(resource.repository ?? '');
  const number = String(resource.number ?? '');
  const ok = REPOSITORY.test(repository) && /^[1-9][0-9]{0,18}$/.test(number) && HOST.test(String(resource.host ?? ''));
  return { repository, number, url: ok ? `https://${resource.host}/${repository}/issues/${number}` : null, comments: records.filter((r) => r.kind === 'IssueComment').length };
}

/** Admitted Work with and without a bound backing Issue. `unlinked` counts pending projections when projection is on. */
export function backingIssueCounts(projection: Projection): { linked: number; unlinked: number } {
  let linked = 0;
  let unlinked = 0;
  for (const w of projection.works()) {
    if ((projection.state.issueLinks.get(w.workId) ?? []).some((r) => r.kind === 'IssueLink')) linked++;
    else unlinked++;
  }
  return { linked, unlinked };
}
