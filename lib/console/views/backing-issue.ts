/**
 * A Work's backing Issue as the ledger binds it (the pre-existing Issue it was admitted with,
 * else its IssueLink; operator reference "Backing Issues"), in the queue repository or
 * another, for the console's Work page and explorer, and the overview's count of admitted
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

function boundResource(projection: Projection, workId: string): { host?: string; repository?: string; number?: string } | undefined {
  const admitted = projection.work(workId)?.backingIssue ?? undefined;
  if (admitted !== undefined) return admitted as { host?: string; repository?: string; number?: string };
  return (projection.issueLinks(workId)).find((r) => r.kind === 'IssueLink')?.resource as { host?: string; repository?: string; number?: string } | undefined;
}

export function backingIssue(projection: Projection, workId: string): BackingIssueView | null {
  const records = projection.issueLinks(workId);
  const resource = boundResource(projection, workId);
  if (resource === undefined) return null;
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
    if (boundResource(projection, w.workId) !== undefined) linked++;
    else unlinked++;
  }
  return { linked, unlinked };
}
