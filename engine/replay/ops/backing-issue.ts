/**
 * Backing Issues on replay (operator reference "Backing Issues"):
 * - a Work may name a pre-existing Issue as `backing_issue`; admission requires it to be an
 *   Issue in the pool's allowed repositories with an installed projector rule's exact
 *   `backing_issues` grant (`resource_unauthorized`, the reference's code), and one Work per
 *   Issue (`issue_link_conflict`);
 * - an IssueLink or IssueComment whose Issue is outside the queue repository, or is a
 *   pre-existing one, needs current target authority: an installed rule naming the publishing
 *   run's principal and workflow, the binding's `projector_ref`, the Work's pool and the
 *   Issue's repository, with the exact grant for a pre-existing Issue (`projector_not_authorized`).
 *
 * Which Work an Issue backs is indexed in the state: admitted `backing_issue`s in
 * `state.backingIssues` and IssueLinks in `state.linkedIssues` (both kept by replay, rebuilt by
 * checkpoint restoration), so neither admission nor a link scans every Work or every link.
 */
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import type { ResourceIdentity, ReplayState, WorkRecord } from '../../state/state.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { gateIdentity } from '../../identity/index.ts';
import { currentPolicy } from './policy.ts';
import { backingIssueGranted, holdsTargetAuthority } from './projector-rules.ts';

/** The identity one Issue has however it is spelled (host, ids; number and name may change). */
export function issueIdentity(resource: Pick<ResourceIdentity, 'host' | 'kind' | 'repository_id' | 'resource_id'>): string {
  return gateIdentity(resource, 'link');
}

/** The pre-existing Issue a Work was admitted with, if any. */
export function admittedBackingIssue(work: WorkRecord): ResourceIdentity | undefined {
  return work.backingIssue ?? undefined;
}

/** The Work other than `except` that an Issue already backs (admitted `backing_issue` or IssueLink), if any. */
export function issueOwner(state: ReplayState, resource: ResourceIdentity, except: string): string | undefined {
  const identity = issueIdentity(resource);
  const admitted = state.backingIssues.get(identity);
  if (admitted !== undefined && admitted !== except) return admitted;
  const linked = state.linkedIssues.get(identity);
  return linked !== undefined && linked !== except ? linked : undefined;
}

/** Admission of a Work naming `backing_issue` (before its record exists). */
export function checkBackingIssue(ctx: CommitContext, op: OperationOf<'Work'>, allowed: readonly string[]): void {
  const issue = op.backing_issue;
  if (issue === undefined) return;
  const at = { ...where(ctx), path: `operations.${ctx.index}.backing_issue` };
  const node = `node ${op.node_key} in graph ${op.graph_id}`;
  const named = `${issue.repository}#${issue.number}`;
  if (issue.kind !== 'issue') fail('resource_unauthorized', `${node}: backing_issue ${named} is a pull request; a backing resource must be an Issue`, at);
  if (!allowed.includes(issue.repository)) fail('resource_unauthorized', `${node}: backing_issue ${named} is outside pool ${op.pool}'s allowed repositories`, at);
  if (!backingIssueGranted(currentPolicy(ctx), op.pool, issue)) {
    fail('resource_unauthorized', `${node}: the pre-existing backing Issue ${named} requires an installed projector rule's exact backing_issues grant for pool ${op.pool}`, at);
  }
  const owner = issueOwner(ctx.state, issue as ResourceIdentity, op.work_id);
  if (owner !== undefined) fail('issue_link_conflict', `${node}: Issue ${named} already backs Work ${owner} (one Work per Issue)`, at);
}

/** Keeps the index after a Work naming `backing_issue` is admitted. */
export function noteBackingIssue(state: ReplayState, work: WorkRecord): void {
  const issue = admittedBackingIssue(work);
  if (issue !== undefined) state.backingIssues.set(issueIdentity(issue), work.workId);
}

/** Keeps the index after an IssueLink binds `resource` to Work `workId`. */
export function noteIssueLink(state: ReplayState, workId: string, resource: ResourceIdentity): void {
  state.linkedIssues.set(issueIdentity(resource), workId);
}

/** Current target authority of the binding's publisher over the Work's Issue in `resource.repository`. */
export function checkBindingAuthority(ctx: CommitContext, work: WorkRecord, resource: ResourceIdentity, projectorRef: string): void {
  const actor = ctx.commit.actor as unknown as JsonObject;
  const backingIssue = admittedBackingIssue(work);
  const target = { pool: work.pool, repository: resource.repository, ...(backingIssue === undefined ? {} : { backingIssue }) };
  if (backingIssue === undefined && resource.repository !== ctx.state.repository) {
    const pool = currentPolicy(ctx).pools[work.pool];
    if (pool === undefined || !pool.allowed_repositories.includes(resource.repository)) {
      fail('resource_unauthorized', `backing Issue ${resource.repository}#${resource.number} is outside pool ${work.pool}'s allowed repositories`, where(ctx));
    }
  }
  const who = { principal: String(actor.principal), workflow: typeof actor.workflow === 'string' ? actor.workflow : null, ref: projectorRef };
  if (!holdsTargetAuthority(currentPolicy(ctx), ctx.state.repository, who, target)) {
    const what = backingIssue !== undefined ? `the pre-existing Issue ${resource.repository}#${resource.number} (exact backing_issues grant)` : `Issues in ${resource.repository} (cross-repository projection)`;
    fail('projector_not_authorized', `no installed projector rule authorizes principal ${who.principal}, workflow ${who.workflow ?? '(none)'} at ${projectorRef} to project pool ${work.pool} into ${what}`, where(ctx));
  }
}
