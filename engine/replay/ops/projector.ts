/**
 * Backing-Issue projector records (operator reference, "Backing Issues"):
 * IssueLink binds one admitted Work to one Issue, immutably and one-to-one;
 * IssueComment records a comment handle. Neither changes scheduling.
 */
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { touch } from '../mutate.ts';
import { gateIdentity } from './observation.ts';

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
  if (list.some((r) => r.kind === 'IssueLink')) fail('issue_link_immutable', `Work ${op.work_id} already has a backing Issue`, at);
  const identity = gateIdentity(op.resource, 'link');
  for (const [other, links] of ctx.state.issueLinks) {
    if (other === op.work_id) continue;
    if (links.some((r) => r.kind === 'IssueLink' && gateIdentity(r.resource as never, 'link') === identity)) {
      fail('issue_link_conflict', `Issue ${op.resource.repository}#${op.resource.number} already backs Work ${other}`, at);
    }
  }
  list.push(op as unknown as JsonObject);
}

export function applyIssueComment(ctx: CommitContext, op: OperationOf<'IssueComment'>): void {
  checkProjector(ctx);
  checkClaim(ctx, op.work_id, op.claim_id);
  checkClaim(ctx, op.work_id, op.authority_claim_id);
  const list = records(ctx, op.work_id);
  if (list.some((r) => r.kind === 'IssueComment' && r.comment_id === op.comment_id)) {
    fail('issue_comment_duplicate', `comment ${op.comment_id} is already recorded`, where(ctx));
  }
  list.push(op as unknown as JsonObject);
}
