/**
 * Backing-Issue projector records (operator reference, "Backing Issues"):
 * IssueLink binds one admitted Work to one Issue, immutably and one-to-one;
 * IssueComment records a comment handle. Neither changes scheduling.
 */
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { touch } from '../../state/mutate.ts';
import type { ResourceIdentity } from '../../state/state.ts';
import { admittedBackingIssue, checkBindingAuthority, issueIdentity, issueOwner, noteIssueLink } from './backing-issue.ts';

function records(ctx: CommitContext, workId: string): JsonObject[] {
  const work = ctx.state.works.get(workId);
  if (work === undefined) fail('unknown_work', `projector record names unknown Work ${workId}`, where(ctx));
  touch(work, ctx.commit.id);
  let list = ctx.state.issueLinks.get(workId);
  if (list === undefined) ctx.state.issueLinks.set(workId, (list = []));
  return list;
}

/**
 * Agent execution never holds a projector credential: a worker's `observe` cannot bind
 * Issues (bindings inside a worker's `finish` are the settlement form rules.ts allows).
 */
function checkProjector(ctx: CommitContext): void {
  if (ctx.commit.request.kind === 'observe' && ctx.commit.actor.role === 'worker') fail('projector_not_authorized', 'a worker cannot publish backing-Issue bindings (agent execution holds no projector credential)', where(ctx));
}

function checkClaim(ctx: CommitContext, workId: string, claimId: string | undefined): void {
  if (claimId === undefined) return;
  const claim = ctx.state.claims.get(claimId);
  if (claim === undefined || claim.workId !== workId) fail('claim_scope_invalid', `Claim ${claimId} does not belong to Work ${workId}`, where(ctx));
}

export function applyIssueLink(ctx: CommitContext, op: OperationOf<'IssueLink'>): void {
  const at = where(ctx);
  checkProjector(ctx);
  checkClaim(ctx, op.work_id, op.claim_id);
  const list = records(ctx, op.work_id);
  const resource = op.resource as ResourceIdentity;
  if (resource.kind !== 'issue') fail('issue_link_invalid', `a backing resource must be an Issue, not pull request ${resource.repository}#${resource.number}`, at);
  if (list.some((r) => r.kind === 'IssueLink')) fail('issue_link_immutable', `Work ${op.work_id} already has a backing Issue`, at);
  const work = ctx.state.works.get(op.work_id)!;
  // The hook beside admission binds the Work this submit admits; Work admitted earlier (another
  // producer's, another tenant's) is bound only by the trusted projector's `observe`. Otherwise a
  // submitter, a worker's follow-up submit included, could take another Work's one immutable link.
  if (ctx.commit.request.kind === 'submit' && work.admittedCommit !== ctx.commit.id) {
    fail('projector_not_authorized', `a submit binds a backing Issue only for Work it admits; Work ${op.work_id} was admitted by ${work.admittedCommit}`, at);
  }
  const admitted = admittedBackingIssue(work);
  if (admitted !== undefined && issueIdentity(admitted) !== issueIdentity(resource)) {
    fail('issue_link_immutable', `Work ${op.work_id} was admitted with backing Issue ${admitted.repository}#${admitted.number}; it cannot be linked to another`, at);
  }
  const owner = issueOwner(ctx.state, resource, op.work_id);
  if (owner !== undefined) fail('issue_link_conflict', `Issue ${resource.repository}#${resource.number} already backs Work ${owner}`, at);
  checkBindingAuthority(ctx, work, resource, op.projector_ref);
  list.push(op as unknown as JsonObject);
  noteIssueLink(ctx.state, op.work_id, resource);
}

export function applyIssueComment(ctx: CommitContext, op: OperationOf<'IssueComment'>): void {
  checkProjector(ctx);
  checkClaim(ctx, op.work_id, op.claim_id);
  checkClaim(ctx, op.work_id, op.authority_claim_id);
  const list = records(ctx, op.work_id);
  // A comment handle is recorded once in the queue (operator reference: "comment handles cannot be rebound").
  const holder = ctx.state.issueComments.get(op.comment_id);
  if (holder !== undefined) {
    fail('issue_comment_duplicate', `comment ${op.comment_id} is already recorded${holder === op.work_id ? '' : ` for Work ${holder}; a comment handle cannot be rebound to Work ${op.work_id}`}`, where(ctx));
  }
  // One canonical summary per Work and one comment per Claim: a handle is never rebound.
  const same = list.find((r) => r.kind === 'IssueComment' && r.claim_id === op.claim_id);
  if (same !== undefined) {
    fail('issue_comment_immutable', `${op.claim_id === undefined ? `the summary comment of Work ${op.work_id}` : `the comment of Claim ${op.claim_id}`} is already ${String(same.comment_id)}; it cannot be rebound`, where(ctx));
  }
  // The comment is on the Work's bound Issue: its IssueLink, or the Issue it was admitted with.
  const work = ctx.state.works.get(op.work_id)!;
  const link = list.find((r) => r.kind === 'IssueLink')?.resource as ResourceIdentity | undefined;
  const issue = link ?? admittedBackingIssue(work);
  if (issue === undefined) {
    fail('issue_link_invalid', `Work ${op.work_id} has no backing Issue (no IssueLink, no backing_issue): comment ${op.comment_id} is on no Issue of it`, where(ctx));
  }
  checkBindingAuthority(ctx, work, issue, op.projector_ref);
  list.push(op as unknown as JsonObject);
  ctx.state.issueComments.set(op.comment_id, op.work_id);
}
