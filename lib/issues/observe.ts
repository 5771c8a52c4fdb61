/**
 * What GitHub shows of the bound Issues of one repository in a projector run (operator
 * reference "Synchronization and recovery"), with as few reads as possible:
 *
 * - with a journal watermark, one change feed (`GET /issues?since=`, at most three pages):
 *   an Issue it does not list is as the projector last left it (`unchanged`), or as the
 *   journal's `seen` snapshot recorded it when it changed outside an earlier run's batch;
 * - without one (first run in the repository) each bound target is read directly (one
 *   request each); when the feed has more than three pages, each bound target it did not list;
 * - a target whose state the plan needs and the feed did not give (a ledger-bound Issue never
 *   projected, one marked missing, one due for closure) is read directly.
 *
 * The watermark (GitHub's own `Date` less a margin) may move after a complete feed, and after a
 * feed cut short to the last change it listed (the feed is oldest first): a change it
 * listed that disturbed the projector's labels of a bound Issue outside this run's batch is
 * kept as a `seen` snapshot in the same journal write (which makes that Work due for the next
 * run), so a scoped hook never hides a human edit from the run that later projects that Issue. Without a feed it moves only when the run read every Issue the journal binds in
 * the repository. A deleted or transferred Issue (404/410 on a direct read) is marked `missing`.
 */
import { issueKey, type JournalRecord, type JournalState } from '../../engine/issues/journal.ts';
import { labelChanges, ISSUE_STATUSES, type IssueStatus } from '../../engine/issues/labels.ts';
import type { IssueObservation } from '../../engine/issues/plan.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import type { FeedIssue, IssuesClient } from './github.ts';

/** The watermark trails GitHub's clock by this much, so changes racing the read are re-read. */
const WATERMARK_MARGIN_MS = 60_000;
/** A change feed this long moves the watermark forward even when nothing else is written. */
const FEED_ADVANCE = 50;

export interface BoundTarget {
  workId: string;
  resource: ResourceIdentity;
  /** Its labels and state must be known this run (read directly when the feed does not list it). */
  read: boolean;
}

export interface RepositoryObservation {
  observations: Map<string, IssueObservation>;
  /** `missing` marks (Issues found gone) and `seen` snapshots (changes outside the batch). */
  records: JournalRecord[];
  /** The watermark this run may record, or null. */
  watermark: string | null;
  /** Record the watermark even if nothing else is written (first one, or a long feed). */
  advance: boolean;
}

export function isoMinus(httpDate: string | null, ms = WATERMARK_MARGIN_MS): string | null {
  if (httpDate === null) return null;
  const t = Date.parse(httpDate);
  if (!Number.isFinite(t)) return null;
  return new Date(Math.floor((t - ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The watermark after a feed cut short: it lists changes oldest first, so every change up to
 * its last entry's time has been read (less a second, whichever way GitHub compares `since`),
 * capped by GitHub's clock less the margin; null when that is no progress. Without it a repository
 * busier than three pages between two runs would never move its watermark again.
 */
function partialWatermark(feed: { issues: FeedIssue[]; serverTime: string | null }, since: string): string | null {
  const last = feed.issues.at(-1);
  const listed = last === undefined ? null : isoMinus(last.updatedAt, 1000);
  const cap = isoMinus(feed.serverTime);
  if (listed === null || cap === null) return null;
  const at = listed < cap ? listed : cap;
  return at > since ? at : null;
}

export function observedIssue(issue: FeedIssue, resource: ResourceIdentity): IssueObservation {
  // A transferred Issue answers from another repository: it is not this binding any more.
  if (!issue.repositoryUrl.toLowerCase().endsWith(`/repos/${resource.repository}`.toLowerCase())) return 'missing';
  return { labels: issue.labels, state: issue.state };
}

/** Bound Issue targets of `repository` in the journal that are not in `batch`, with the status last written. */
function outsideBatch(journal: JournalState, repository: string, batch: ReadonlySet<string>): Array<{ key: string; resourceId: string; status: string | undefined }> {
  const out: Array<{ key: string; resourceId: string; status: string | undefined }> = [];
  for (const e of journal.entries.values()) {
    if (e.target === 'issue' && e.phase === 'bound' && e.repository === repository && !batch.has(e.workId) && e.resource !== undefined) out.push({ key: e.key, resourceId: e.resource.resource_id, status: e.status });
  }
  return out;
}

/** Whether `labels` still carry exactly the tracking label and the status label last written. */
function labelsAsWritten(prefix: string, status: string | undefined, labels: readonly string[]): boolean {
  if (status === undefined || !(ISSUE_STATUSES as readonly string[]).includes(status)) return false;
  const { add, remove } = labelChanges(prefix, status as IssueStatus, labels);
  return add.length === 0 && remove.length === 0;
}

export async function observeRepository(
  client: IssuesClient, journal: JournalState, prefix: string, repository: string, bound: readonly BoundTarget[], batch: ReadonlySet<string>, labelsServerTime: string | null,
): Promise<RepositoryObservation> {
  const observations = new Map<string, IssueObservation>();
  const records: JournalRecord[] = [];
  const others = outsideBatch(journal, repository, batch);
  const since = journal.watermarks.get(repository);
  if (bound.length === 0) {
    return { observations, records, watermark: others.length === 0 ? isoMinus(labelsServerTime) : null, advance: false };
  }
  const feed = since === undefined ? null : await client.feed(repository, since);
  let watermark: string | null;
  let advance = since === undefined;
  if (feed !== null) {
    const byId = new Map(feed.issues.map((i) => [i.id, i]));
    for (const t of bound) {
      const listed = byId.get(t.resource.resource_id);
      const snapshot = journal.entries.get(issueKey(t.workId))?.seen;
      if (listed !== undefined) observations.set(t.workId, observedIssue(listed, t.resource));
      // A feed cut short says nothing of changes after its last entry: read the target itself.
      else if (!feed.complete) observations.set(t.workId, await direct(client, journal, t, records));
      else observations.set(t.workId, snapshot !== undefined ? { labels: snapshot.labels, state: snapshot.state } : 'unchanged');
    }
    for (const o of others) {
      const listed = byId.get(o.resourceId);
      if (listed !== undefined && !labelsAsWritten(prefix, o.status, listed.labels)) records.push({ v: 1, kind: 'seen', key: o.key, labels: listed.labels, state: listed.state });
    }
    watermark = feed.complete ? isoMinus(feed.serverTime) : partialWatermark(feed, since!);
    if (feed.issues.length >= FEED_ADVANCE) advance = true;
  } else {
    for (const t of bound) observations.set(t.workId, await direct(client, journal, t, records));
    watermark = others.length === 0 ? isoMinus(labelsServerTime) : null;
  }
  for (const t of bound) {
    if (t.read && typeof observations.get(t.workId) !== 'object') observations.set(t.workId, await direct(client, journal, t, records));
  }
  return { observations, records, watermark, advance };
}

async function direct(client: IssuesClient, journal: JournalState, t: BoundTarget, records: JournalRecord[]): Promise<IssueObservation> {
  const issue = await client.issue(t.resource);
  const seen = issue === null ? 'missing' : observedIssue(issue, t.resource);
  const key = issueKey(t.workId);
  if (seen === 'missing' && journal.entries.get(key)?.missing !== true) records.push({ v: 1, kind: 'missing', key, http_status: 404 });
  return seen;
}
