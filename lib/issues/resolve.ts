/**
 * Operator resolution of a pending creation (docs/backing-issues.md). The projector never
 * clears a pending intent by itself: GitHub offers no creation deduplication, and neither
 * marker text nor an empty search proves that a creation did not happen. An operator who has
 * looked records one checked journal resolution:
 *
 * - `adopt`: the Issue (or comment) that the lost answer created exists; the journal binds it
 *   (checked: it exists in the queue repository, is an Issue and not a pull request, and is
 *   not bound to another Work; a comment must be on the Work's bound Issue). The next sync
 *   publishes its IssueLink / IssueComment and continues from there.
 * - `not_created`: the operator attests that nothing was created (or has deleted what was);
 *   the intent is released and the next sync creates the target anew.
 */
import { fail } from '../../engine/errors.ts';
import { issueKey, type JournalEntry, type JournalRecord } from '../../engine/issues/journal.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import type { IssuesClient } from './github.ts';
import type { JournalStore } from './journal-store.ts';

export type Resolution = { kind: 'not_created' } | { kind: 'adopt_issue'; number: number } | { kind: 'adopt_comment'; commentId: string };

export interface ResolveReport {
  key: string;
  resolution: 'adopted' | 'not_created';
  resource?: ResourceIdentity;
  comment_id?: string;
}

function pendingEntry(entries: ReadonlyMap<string, JournalEntry>, key: string): JournalEntry {
  const entry = entries.get(key);
  if (entry === undefined) fail('issues_target_unknown', `the projection journal has no target ${key}`, {}, { usage: true });
  if (entry.phase !== 'pending') fail('issues_not_pending', `${key} is ${entry.phase}, not pending: there is nothing to resolve`, {}, { usage: true });
  return entry;
}

export async function resolvePending(deps: { journal: JournalStore; client: IssuesClient; principal: string }, key: string, resolution: Resolution): Promise<ResolveReport> {
  const { state } = await deps.journal.load();
  const entry = pendingEntry(state.entries, key);
  let record: JournalRecord;
  if (resolution.kind === 'not_created') {
    record = { v: 1, kind: 'resolved', key, resolution: 'not_created', principal: deps.principal };
  } else if (resolution.kind === 'adopt_issue') {
    if (entry.target !== 'issue') fail('option_invalid', `${key} is a comment; adopt it with --comment-id`, {}, { usage: true });
    const issue = await deps.client.issueByNumber(entry.repository, resolution.number);
    if (issue === null) fail('issues_adopt_invalid', `${entry.repository}#${resolution.number} does not exist (or is not readable with this token)`);
    if (issue.pull) fail('issues_adopt_invalid', `${entry.repository}#${resolution.number} is a pull request, not an Issue`);
    if (!issue.repositoryUrl.toLowerCase().endsWith(`/repos/${entry.repository}`.toLowerCase())) fail('issues_adopt_invalid', `#${resolution.number} now lives in another repository (transferred)`);
    for (const other of state.entries.values()) {
      if (other.target === 'issue' && other.resource?.resource_id === issue.id) fail('issues_adopt_invalid', `${entry.repository}#${resolution.number} already backs Work ${other.workId}`);
    }
    const resource: ResourceIdentity = { kind: 'issue', host: deps.client.host, repository: entry.repository, repository_id: await deps.client.repositoryId(entry.repository), resource_id: issue.id, number: String(issue.number) };
    record = { v: 1, kind: 'resolved', key, resolution: 'adopted', principal: deps.principal, resource };
  } else {
    if (entry.target === 'issue') fail('option_invalid', `${key} is an Issue; adopt it with --issue`, {}, { usage: true });
    const bound = state.entries.get(issueKey(entry.workId));
    if (bound?.phase !== 'bound') fail('issues_adopt_invalid', `Work ${entry.workId} has no bound Issue to hold the comment`);
    const comment = await deps.client.comment(entry.repository, resolution.commentId);
    if (comment === null) fail('issues_adopt_invalid', `comment ${resolution.commentId} does not exist`);
    if (!comment.issueUrl.endsWith(`/repos/${entry.repository}/issues/${bound.resource!.number}`)) fail('issues_adopt_invalid', `comment ${resolution.commentId} is not on #${bound.resource!.number}, the Work's backing Issue`);
    record = { v: 1, kind: 'resolved', key, resolution: 'adopted', principal: deps.principal, comment_id: comment.id };
  }
  const { appended } = await deps.journal.append((s) => (s.entries.get(key)?.phase === 'pending' ? [record] : []));
  if (appended.length === 0) fail('issues_not_pending', `${key} was settled concurrently; nothing recorded`);
  const r = record as Extract<JournalRecord, { kind: 'resolved' }>;
  return { key, resolution: r.resolution, ...(r.resource === undefined ? {} : { resource: r.resource }), ...(r.comment_id === undefined ? {} : { comment_id: r.comment_id }) };
}
