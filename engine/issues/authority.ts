/**
 * Where a Work's backing Issue lives and what this projector may do there (operator
 * reference "Backing Issues"), from the ledger only:
 *
 * - target: the pre-existing Issue the Work was admitted with (`backing_issue`), else the
 *   Issue its IssueLink binds, else a new Issue in the queue repository. Issues a projector
 *   creates live in the queue repository: the protocol fixes every publishing actor's
 *   repository to it, and the reference creates in the admitting run's repository.
 * - authority: Issues the projector created in the queue repository need no rule; a
 *   cross-repository Issue needs an installed projector rule for this run (principal,
 *   workflow, `projector_ref`), the Work's pool and that repository; a pre-existing Issue
 *   also the rule's exact `backing_issues` grant. Replay checks the same on every binding.
 * - closure: the rules in force when the Work was admitted must say `close-on-result` (a
 *   later Policy cannot authorize it retroactively), a rule must still authorize this run
 *   now (current target authority), and the status must be `done` (a verified Result that
 *   is not a pull-request delivery). Nothing a submitter or agent writes takes part.
 */
import type { Projection } from '../replay/index.ts';
import { admittedBackingIssue } from '../replay/ops/backing-issue.ts';
import { admissionCompletionPolicy, grantsIssue, holdsTargetAuthority, rulesFor, type ProjectorIdentity } from '../replay/ops/projector-rules.ts';
import type { ResourceIdentity, WorkRecord } from '../state/state.ts';
import type { IssueStatus } from './labels.ts';

export type { ProjectorIdentity };

export interface IssueTarget {
  /** The repository the Issue lives (or will be created) in. */
  repository: string;
  /** The Issue the ledger binds (admitted `backing_issue` or IssueLink); null before creation. */
  bound: ResourceIdentity | null;
  /** Bound at admission (a pre-existing Issue), never created by a projector. */
  preexisting: boolean;
}

export function issueTarget(projection: Projection, work: WorkRecord): IssueTarget {
  const admitted = admittedBackingIssue(work);
  if (admitted !== undefined) return { repository: admitted.repository, bound: admitted, preexisting: true };
  const link = projection.issueLinks(work.workId).find((r) => r.kind === 'IssueLink');
  if (link !== undefined) {
    const resource = link.resource as unknown as ResourceIdentity;
    return { repository: resource.repository, bound: resource, preexisting: false };
  }
  return { repository: projection.repository ?? '', bound: null, preexisting: false };
}

/** Current target authority of `who` over the Work's Issue. */
export function targetAuthority(projection: Projection, work: WorkRecord, who: ProjectorIdentity, target: IssueTarget): boolean {
  return holdsTargetAuthority(projection.policyRecord?.policy, projection.repository, who, {
    pool: work.pool, repository: target.repository, ...(target.preexisting && target.bound !== null ? { backingIssue: target.bound } : {}),
  });
}

/** The Policy object in force when the Work was admitted. */
function admissionPolicy(projection: Projection, work: WorkRecord) {
  return projection.policyHistory.find((p) => p.epoch === work.policyEpoch)?.policy;
}

/** Whether the projector closes this Work's Issue at `status` (see the header). */
export function closesOnResult(projection: Projection, work: WorkRecord, who: ProjectorIdentity, target: IssueTarget, status: IssueStatus): boolean {
  if (status !== 'done') return false;
  if (admissionCompletionPolicy(admissionPolicy(projection, work), who, work.pool, target.repository) !== 'close-on-result') return false;
  const current = rulesFor(projection.policyRecord?.policy, who, work.pool, target.repository);
  return target.preexisting && target.bound !== null ? current.some((r) => grantsIssue(r, target.bound)) : current.length > 0;
}
