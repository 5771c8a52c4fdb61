/**
 * Sending one Work's planned Issue writes and turning each answer into journal records
 * (operator reference "Synchronization and recovery"): a verified answer is a receipt (or a
 * `written` digest/status/closure), a definitive pre-execution refusal releases the intent,
 * anything else (timeout, 5xx, unreadable answer) leaves it pending. A bound Issue or comment
 * answered 404/410 is marked `missing`; nothing is ever recreated.
 */
import { fail } from '../../engine/errors.ts';
import { issueKey, type JournalRecord } from '../../engine/issues/journal.ts';
import type { WorkPlan } from '../../engine/issues/plan.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import type { IssuesClient, WriteOutcome } from './github.ts';

export interface SendState {
  client: IssuesClient;
  /** This run's projector identity in journal records. */
  owner: string;
  /** Keys whose intent this run holds. */
  owned: Set<string>;
  records: JournalRecord[];
  /** Outcome by journal key (reports). */
  outcomes: Map<string, string>;
  /** Repository id by repository (Issue receipts), read once before any intent. */
  repositoryIds: Map<string, string>;
}

export function outcomeName(out: WriteOutcome<unknown>): string {
  if (out.ok) return 'ok';
  if (out.kind === 'uncertain') return `uncertain_${out.reason}`;
  if (out.kind === 'stopped') return 'not_sent_rate_limit_exhausted';
  return out.rateLimited ? 'rejected_rate_limited' : `rejected_${out.status}`;
}

const gone = (out: WriteOutcome<unknown>): boolean => !out.ok && out.kind === 'rejected' && (out.status === 404 || out.status === 410);

/** Outcome of a creation: a receipt (pushed by the caller), a definitive rejection (releases the intent), or pending. */
function settle(s: SendState, key: string, out: WriteOutcome<unknown>): void {
  if (out.ok) {
    s.outcomes.set(key, 'created');
    return;
  }
  if (out.kind === 'rejected' || out.kind === 'stopped') {
    // Never executed (a 4xx answer, a refused connection, or not sent at all): the intent is released.
    s.records.push({ v: 1, kind: 'rejected', key, owner: s.owner, http_status: out.kind === 'rejected' ? out.status : 0, reason: out.kind === 'rejected' ? out.reason : 'not_sent_rate_limit_exhausted' });
  }
  s.outcomes.set(key, outcomeName(out));
}

/** The Issue step of a plan: creation (after its durable intent), label changes, closure. */
export async function sendIssue(s: SendState, plan: WorkPlan, repository: string): Promise<void> {
  const a = plan.issue;
  if (a.action === 'create') {
    if (!s.owned.has(a.key)) {
      s.outcomes.set(a.key, 'another_projector_holds_intent');
      return;
    }
    // Read before the intents (projector.ts): a read failing after them would strand every intent.
    const repositoryId = s.repositoryIds.get(repository) ?? fail('internal_error', `the id of ${repository} was not read before its Issue creation intents`);
    const out = await s.client.createIssue(repository, { title: a.title, body: a.body, labels: a.labels });
    if (out.ok) {
      const resource: ResourceIdentity = { kind: 'issue', host: s.client.host, repository, repository_id: repositoryId, resource_id: out.value.id, number: String(out.value.number) };
      s.records.push({ v: 1, kind: 'receipt', key: a.key, resource, status: a.status });
    }
    settle(s, a.key, out);
    return;
  }
  if (a.action === 'labels') {
    // The first failure names the outcome: a later success does not make the change complete.
    let failed: WriteOutcome<null> | null = null;
    for (const name of a.remove) {
      const out = await s.client.removeLabel(a.resource, name);
      if (!out.ok) failed ??= out;
    }
    if (a.add.length > 0) {
      const out = await s.client.addLabels(a.resource, a.add);
      if (!out.ok) failed ??= out;
    }
    if (failed === null) s.records.push({ v: 1, kind: 'written', key: a.key, status: a.status });
    else if (gone(failed)) s.records.push({ v: 1, kind: 'missing', key: a.key, http_status: (failed as { status: number }).status });
    s.outcomes.set(a.key, failed === null ? 'labels_updated' : gone(failed) ? 'issue_missing' : outcomeName(failed));
  }
}

/** Closure of a bound Issue whose labels are in place (completion policy `close-on-result`). */
export async function sendClose(s: SendState, plan: WorkPlan): Promise<void> {
  const a = plan.issue;
  if (plan.close === undefined || (a.action !== 'labels' && a.action !== 'none') || s.outcomes.has(`close:${plan.workId}`)) return;
  if (a.action === 'labels' && s.outcomes.get(a.key) !== 'labels_updated') return;
  if (plan.close === 'record') {
    s.records.push({ v: 1, kind: 'written', key: a.key, state: 'closed' });
    s.outcomes.set(`close:${plan.workId}`, 'already_closed');
    return;
  }
  const out = await s.client.closeIssue(a.resource);
  if (out.ok) s.records.push({ v: 1, kind: 'written', key: a.key, state: 'closed' });
  else if (gone(out)) s.records.push({ v: 1, kind: 'missing', key: issueKey(plan.workId), http_status: (out as { status: number }).status });
  s.outcomes.set(`close:${plan.workId}`, out.ok ? 'closed' : outcomeName(out));
}

/** The comment step of a plan on a bound Issue (`onlyCreates`: the first comments of an Issue created this run). */
export async function sendComments(s: SendState, plan: WorkPlan, onlyCreates = false): Promise<void> {
  if (plan.issue.action !== 'none' && plan.issue.action !== 'labels') return;
  const resource = plan.issue.resource;
  for (const c of plan.comments) {
    if (s.outcomes.has(c.key)) continue;
    if (c.action === 'create') {
      if (!s.owned.has(c.key)) {
        s.outcomes.set(c.key, 'another_projector_holds_intent');
        continue;
      }
      const out = await s.client.createComment(resource, c.body);
      if (out.ok) s.records.push({ v: 1, kind: 'receipt', key: c.key, comment_id: out.value.id, digest: c.digest });
      settle(s, c.key, out);
    } else if (c.action === 'update' && !onlyCreates) {
      const out = await s.client.updateComment(resource.repository, c.commentId, c.body);
      if (out.ok) s.records.push({ v: 1, kind: 'written', key: c.key, digest: c.digest });
      // A deleted comment is not recreated: its handle is bound in the ledger. It stays pending.
      else if (gone(out)) s.records.push({ v: 1, kind: 'missing', key: c.key, http_status: (out as { status: number }).status });
      s.outcomes.set(c.key, out.ok ? 'updated' : gone(out) ? 'comment_missing' : outcomeName(out));
    }
  }
}
