/**
 * Backing-Issue labels (operator reference "Backing Issues"): the tracking label `<prefix>`
 * and one status label `<prefix>:<status>` per Work status. Statuses are lowercase and
 * hyphenated. The set is derived from the spec's Work ownership states (available, claimed,
 * completed, cancelled) and the delivery barrier of completed Work (pending, verified, failed):
 *
 * | status         | Work                                                           |
 * |----------------|----------------------------------------------------------------|
 * | `queued`       | available (waiting or ready; readiness is time-dependent and is shown in the summary, not as a label) |
 * | `running`      | claimed by an open Claim                                       |
 * | `verifying`    | completed, delivery barrier pending (Completion is not Result) |
 * | `needs-review` | verified Result whose delivery is a pull request              |
 * | `done`         | verified Result of any other delivery                          |
 * | `failed`       | DeliveryFailure                                                |
 * | `cancelled`    | WorkCancellation                                               |
 *
 * A native job failure or cancellation changes none of these (it is diagnostic only), and
 * neither does a human label edit or closure: the projector derives the status from the
 * ledger alone and replaces only these seven labels.
 */
export const ISSUE_STATUSES = ['queued', 'running', 'verifying', 'needs-review', 'done', 'failed', 'cancelled'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** GitHub label colour of every projector label (no `#`). */
export const LABEL_COLOR = '7057FF';

/** GitHub's label-name limit (characters). */
export const GITHUB_LABEL_LIMIT = 50;

export function statusLabel(prefix: string, status: IssueStatus): string {
  return `${prefix}:${status}`;
}

/** The tracking label and every status label of `prefix`, tracking label first. */
export function projectorLabels(prefix: string): string[] {
  return [prefix, ...ISSUE_STATUSES.map((s) => statusLabel(prefix, s))];
}

/** Whether `name` is one of this projector's own status labels (GitHub compares label names case-insensitively). */
export function isOwnStatusLabel(prefix: string, name: string): boolean {
  const lower = name.toLowerCase();
  return ISSUE_STATUSES.some((s) => statusLabel(prefix, s).toLowerCase() === lower);
}

/**
 * The label changes that bring `current` to exactly one status label of ours (`status`) plus
 * the tracking label, leaving every other label untouched.
 */
export function labelChanges(prefix: string, status: IssueStatus, current: readonly string[]): { add: string[]; remove: string[] } {
  const want = [prefix, statusLabel(prefix, status)];
  const lower = new Set(current.map((c) => c.toLowerCase()));
  const add = want.filter((w) => !lower.has(w.toLowerCase()));
  const keep = statusLabel(prefix, status).toLowerCase();
  const remove = current.filter((c) => isOwnStatusLabel(prefix, c) && c.toLowerCase() !== keep);
  return { add, remove };
}
