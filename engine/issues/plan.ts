/**
 * Pure planning of one backing-Issue synchronization step for one Work: from the desired
 * Issue (desired.ts), the journal (journal.ts), the ledger's bindings and what GitHub showed,
 * which writes are due. Nothing here talks to GitHub; lib/issues/ executes the plan.
 *
 * The rules of operator reference "Synchronization and recovery":
 * - a target with no journal entry (or a released one) is created, after its intent;
 * - a pending intent (sent or not, nobody can tell) is reported and never recreated;
 * - a bound Issue gets only label changes: add the tracking and current status label,
 *   remove our other status labels; every other label, the title, body and state stay;
 * - a bound comment is updated only when its content digest changed;
 * - verified receipts missing from the ledger become IssueLink / IssueComment bindings;
 * - without current target authority (a cross-repository or pre-existing Issue whose projector
 *   rule is not installed for this run) nothing is sent: `projector_not_authorized`;
 * - a deleted (or transferred) Issue or comment stays pending; it is never recreated;
 * - closure only when the caller established it (engine/issues/authority.ts): status `done`
 *   and the Issue seen open, once; a human reopening after that is respected.
 */
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import type { ResourceIdentity } from '../state/state.ts';
import type { DesiredIssue } from './desired.ts';
import { claimKey, issueKey, summaryKey, type JournalState } from './journal.ts';
import { ISSUE_STATUSES, labelChanges, statusLabel, type IssueStatus } from './labels.ts';

/** What GitHub showed of a bound Issue in this run: its labels, or unchanged since the watermark. */
export type IssueObservation = { labels: string[]; state: 'open' | 'closed' } | 'unchanged' | 'missing';

export type PendingReason =
  | 'issue_creation_uncertain'
  | 'comment_creation_uncertain'
  | 'issue_missing'
  | 'comment_missing'
  | 'issue_not_bound'
  | 'projector_not_authorized';

export type IssueAction =
  | { action: 'create'; key: string; title: string; body: string; labels: string[]; status: IssueStatus }
  | { action: 'labels'; key: string; resource: ResourceIdentity; add: string[]; remove: string[]; status: IssueStatus }
  | { action: 'none'; key: string; resource: ResourceIdentity }
  | { action: 'pending'; key: string; reason: PendingReason };

export type CommentAction =
  | { action: 'create'; key: string; claimId?: string; body: string; digest: string }
  | { action: 'update'; key: string; claimId?: string; commentId: string; body: string; digest: string }
  | { action: 'none'; key: string; commentId: string }
  | { action: 'pending'; key: string; reason: PendingReason };

export interface WorkPlan {
  workId: string;
  status: IssueStatus;
  issue: IssueAction;
  /** Empty until the Issue is bound. */
  comments: CommentAction[];
  /** `close`: send the closure; `record`: it is already closed, record that closure is done. */
  close?: 'close' | 'record';
}

export interface PlanOptions {
  /** Current target authority over this Work's Issue (default true). */
  authorized?: boolean;
  /** Closure is established (completion policy at admission and current rule); engine/issues/authority.ts. */
  closeOnResult?: boolean;
}

export function planWork(given: DesiredIssue, journal: JournalState, prefix: string, observed: IssueObservation | null, options: PlanOptions = {}): WorkPlan {
  const key = issueKey(given.workId);
  const entry = journal.entries.get(key);
  // A compacted Result cannot tell PR from non-PR delivery: keep what was projected from it.
  const keep = !given.statusKnown && (entry?.status === 'needs-review' || entry?.status === 'done');
  const desired = keep ? { ...given, status: entry!.status as IssueStatus } : given;
  const base = { workId: desired.workId, status: desired.status, comments: [] as CommentAction[] };
  if (options.authorized === false) return { ...base, issue: { action: 'pending', key, reason: 'projector_not_authorized' } };
  if (entry === undefined || entry.phase === 'released') {
    return { ...base, issue: { action: 'create', key, title: desired.title, body: desired.body, labels: [prefix, statusLabel(prefix, desired.status)], status: desired.status } };
  }
  if (entry.phase === 'pending') return { ...base, issue: { action: 'pending', key, reason: 'issue_creation_uncertain' } };
  const resource = entry.resource!;
  let issue: IssueAction;
  // Marked missing and not seen again this run (a read finding it present gives its labels).
  if (observed === 'missing' || (entry.missing === true && typeof observed !== 'object')) return { ...base, issue: { action: 'pending', key, reason: 'issue_missing' } };
  if (observed === null || observed === 'unchanged') {
    issue = entry.status === desired.status
      ? { action: 'none', key, resource }
      : {
        action: 'labels', key, resource, status: desired.status,
        add: [prefix, statusLabel(prefix, desired.status)],
        // Unknown last status (an operator-adopted Issue): remove every other own status label.
        remove: entry.status === undefined
          ? ISSUE_STATUSES.filter((st) => st !== desired.status).map((st) => statusLabel(prefix, st))
          : [statusLabel(prefix, entry.status as IssueStatus)],
      };
  } else {
    const { add, remove } = labelChanges(prefix, desired.status, observed.labels);
    issue = add.length === 0 && remove.length === 0 && entry.status === desired.status
      ? { action: 'none', key, resource }
      : { action: 'labels', key, resource, add, remove, status: desired.status };
  }
  // Seen again after a missing mark, or planned from a feed snapshot: record it current even when no label changes.
  if (issue.action === 'none' && (entry.missing === true || entry.seen !== undefined)) issue = { action: 'labels', key, resource, add: [], remove: [], status: desired.status };
  const comments = [
    commentAction(journal, summaryKey(desired.workId), undefined, desired.summary.body, desired.summary.digest),
    ...desired.claims.map((c) => commentAction(journal, claimKey(c.claimId), c.claimId, c.body, c.digest)),
  ];
  const close = options.closeOnResult === true && desired.status === 'done' && entry.closed !== true && typeof observed === 'object' && observed !== null
    ? (observed.state === 'open' ? 'close' as const : 'record' as const)
    : undefined;
  return { ...base, issue, comments, ...(close === undefined ? {} : { close }) };
}

/** Whether closure is due but the Issue's state is not known this run (the projector reads it). */
export function closureNeedsRead(status: IssueStatus, journal: JournalState, workId: string, closeOnResult: boolean): boolean {
  const entry = journal.entries.get(issueKey(workId));
  return closeOnResult && status === 'done' && entry?.phase === 'bound' && entry.closed !== true;
}

function commentAction(journal: JournalState, key: string, claimId: string | undefined, body: string, digest: string): CommentAction {
  const entry = journal.entries.get(key);
  const claim = claimId === undefined ? {} : { claimId };
  if (entry === undefined || entry.phase === 'released') return { action: 'create', key, ...claim, body, digest };
  if (entry.phase === 'pending') return { action: 'pending', key, reason: 'comment_creation_uncertain' };
  if (entry.missing === true) return { action: 'pending', key, reason: 'comment_missing' };
  if (entry.digest === digest) return { action: 'none', key, commentId: entry.commentId! };
  return { action: 'update', key, ...claim, commentId: entry.commentId!, body, digest };
}

/**
 * The IssueLink / IssueComment operations the ledger is missing for this Work's bound
 * journal entries (checked by replay: one Work per Issue, no rebinding).
 */
export function missingBindings(projection: Projection, journal: JournalState, workId: string, projectorRef: string): JsonObject[] {
  const recorded = projection.issueLinks(workId);
  const ops: JsonObject[] = [];
  const issue = journal.entries.get(issueKey(workId));
  if (issue?.phase === 'bound' && issue.linked !== true && !recorded.some((r) => r.kind === 'IssueLink')) {
    ops.push({ kind: 'IssueLink', work_id: workId, resource: issue.resource as unknown as JsonObject, projector_ref: projectorRef });
  }
  const work = projection.work(workId);
  const keys = [summaryKey(workId), ...(work?.claims ?? []).map(claimKey)];
  for (const key of keys) {
    const entry = journal.entries.get(key);
    if (entry?.phase !== 'bound') continue;
    if (recorded.some((r) => r.kind === 'IssueComment' && r.comment_id === entry.commentId)) continue;
    ops.push({ kind: 'IssueComment', work_id: workId, comment_id: entry.commentId!, projector_ref: projectorRef, ...(entry.claimId === undefined ? {} : { claim_id: entry.claimId }) });
  }
  return ops;
}

/**
 * Whether a Work's Issue is out of date in the journal's view (never projected, its status or
 * a comment's content changed, a comment is missing, or the feed showed a change outside an
 * earlier batch): such Work goes first into a run's 25 targets, so a queue larger than one
 * batch is projected in full over successive runs. Pending and missing targets are not: they
 * wait for an operator and would otherwise take every run's slots.
 */
export function needsProjection(given: DesiredIssue, journal: JournalState): boolean {
  const entry = journal.entries.get(issueKey(given.workId));
  if (entry === undefined || entry.phase === 'released') return true;
  if (entry.phase === 'pending' || entry.missing === true) return false;
  if (entry.seen !== undefined || (given.statusKnown && entry.status !== given.status)) return true;
  const comments: Array<[string, string]> = [[summaryKey(given.workId), given.summary.digest], ...given.claims.map((c): [string, string] => [claimKey(c.claimId), c.digest])];
  return comments.some(([key, digest]) => {
    const e = journal.entries.get(key);
    return e === undefined || e.phase === 'released' || (e.phase === 'bound' && e.missing !== true && e.digest !== digest);
  });
}
