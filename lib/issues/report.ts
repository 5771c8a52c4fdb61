/**
 * The receipts of a projector run (`fairway issues sync --json`): per Work what was planned
 * and what GitHub answered, what stays pending and why (with the journal keys an operator
 * resolves), what a dry run would send, and the requests it cost; and which targets a run left
 * incomplete (`incompleteTargets`), which makes `issues sync` fail (`issues_sync_incomplete`).
 */
import { issueKey, type JournalState } from '../../engine/issues/journal.ts';
import type { CommentAction, WorkPlan } from '../../engine/issues/plan.ts';

export interface TargetReport {
  work_id: string;
  status: string;
  /** The repository the Issue lives (or will be created) in. */
  repository: string;
  issue: { number: string | null; action: string; outcome: string };
  comments: Array<{ key: string; action: string; outcome: string; comment_id?: string }>;
  /**
   * Closure under a `close-on-result` projector rule: null when it does not apply; `closed`
   * (this run), `already_closed`, `closed_earlier` (recorded before), `due` (dry run or not
   * yet sent), or the failed attempt's outcome.
   */
  closure: string | null;
  /** Why this target stays pending (empty when in sync). */
  pending: string[];
  /** Journal keys of the pending targets (for `fairway issues resolve --target`). */
  pending_targets: string[];
}

export interface SyncReport {
  /** The queue repository. */
  repository: string;
  /** Every repository this run read or wrote Issues in (the queue's and the Works' backing-Issue repositories). */
  repositories: string[];
  dry_run: boolean;
  targets: TargetReport[];
  deferred: string[];
  labels_created: string[];
  /** Mutations a dry run would make (empty otherwise). */
  would: Array<{ method: string; what: string }>;
  bindings: { request_id: string; status: string; commit_id: string | null; operations: number } | null;
  requests: { github_reads: number; github_writes: number; journal_writes: number; ledger_publications: number };
  stopped: string | null;
}

export function describeWould(report: SyncReport, plan: WorkPlan, repository: string): void {
  const a = plan.issue;
  if (a.action === 'create') report.would.push({ method: 'POST', what: `create issue${repository === report.repository ? '' : ` in ${repository}`} for Work ${plan.workId} labelled ${a.labels.join(', ')} (after its journal intent)` });
  if (a.action === 'labels') {
    for (const r of a.remove) report.would.push({ method: 'DELETE', what: `remove label ${r} from ${a.resource.repository}#${a.resource.number}` });
    if (a.add.length > 0) report.would.push({ method: 'POST', what: `add labels ${a.add.join(', ')} to ${a.resource.repository}#${a.resource.number}` });
  }
  if (plan.close === 'close' && (a.action === 'labels' || a.action === 'none')) report.would.push({ method: 'PATCH', what: `close ${a.resource.repository}#${a.resource.number} as completed (close-on-result)` });
  for (const c of plan.comments) describeComment(report, plan, c);
}

function describeComment(report: SyncReport, plan: WorkPlan, c: CommentAction): void {
  const what = c.key.startsWith('summary:') ? 'summary comment' : `Claim comment ${c.key.slice('claim:'.length)}`;
  const number = plan.issue.action === 'none' || plan.issue.action === 'labels' ? `${plan.issue.resource.repository}#${plan.issue.resource.number}` : `Work ${plan.workId}`;
  if (c.action === 'create') report.would.push({ method: 'POST', what: `create ${what} on ${number}` });
  if (c.action === 'update') report.would.push({ method: 'PATCH', what: `update ${what} ${c.commentId} on ${number}` });
}

export function targetReport(plan: WorkPlan, journal: JournalState, repository: string, closing: boolean, fixed: string | null, outcomes = new Map<string, string>()): TargetReport {
  const entry = journal.entries.get(issueKey(plan.workId));
  const pending: string[] = [];
  const pendingTargets: string[] = [];
  if (plan.issue.action === 'pending') {
    pending.push(plan.issue.reason);
    pendingTargets.push(plan.issue.key);
  }
  const comments = plan.comments.map((c) => {
    if (c.action === 'pending') {
      pending.push(`${c.reason} (${c.key})`);
      pendingTargets.push(c.key);
    }
    const commentId = journal.entries.get(c.key)?.commentId;
    return { key: c.key, action: c.action, outcome: fixed ?? outcomes.get(c.key) ?? (c.action === 'none' ? 'unchanged' : c.action), ...(commentId === undefined ? {} : { comment_id: commentId }) };
  });
  const closure = !closing ? null : outcomes.get(`close:${plan.workId}`) ?? (entry?.closed === true ? 'closed_earlier' : 'due');
  return {
    work_id: plan.workId,
    status: plan.status,
    repository,
    issue: { number: entry?.resource?.number ?? null, action: plan.issue.action, outcome: fixed ?? outcomes.get(issueKey(plan.workId)) ?? (plan.issue.action === 'none' ? 'unchanged' : plan.issue.action) },
    comments,
    closure,
    pending,
    pending_targets: pendingTargets,
  };
}

/** A target a sync run left out of sync: what stays pending, and which of this run's writes were not done. */
export interface IncompleteTarget {
  work_id: string;
  /** The target's pending reasons and journal keys (as in its TargetReport). */
  pending: string[];
  pending_targets: string[];
  /** Writes of this run that were not done: the journal key (`close:<work_id>` for a closure) and the outcome. */
  failed: Array<{ key: string; outcome: string }>;
}

/** Outcomes (send.ts `outcomeName`) of a write that was not done: uncertain, refused, or not sent (rate limit exhausted). */
const NOT_DONE = /^(uncertain_|rejected_|not_sent_)/;

/**
 * The targets a (non-dry) run left incomplete: one still pending (an uncertain creation, a missing
 * Issue or comment, no target authority: each waits for the operator or a later run), or one of
 * whose writes this run was uncertain, refused or not sent. Empty when every target is in sync.
 */
export function incompleteTargets(report: SyncReport): IncompleteTarget[] {
  const out: IncompleteTarget[] = [];
  for (const t of report.targets) {
    const writes: Array<{ key: string; outcome: string }> = [
      { key: issueKey(t.work_id), outcome: t.issue.outcome },
      ...t.comments.map((c) => ({ key: c.key, outcome: c.outcome })),
      ...(t.closure === null ? [] : [{ key: `close:${t.work_id}`, outcome: t.closure }]),
    ];
    const failed = writes.filter((w) => NOT_DONE.test(w.outcome));
    if (t.pending.length > 0 || failed.length > 0) out.push({ work_id: t.work_id, pending: t.pending, pending_targets: t.pending_targets, failed });
  }
  return out;
}
