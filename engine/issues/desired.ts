/**
 * The desired backing Issue of one Work, computed from the projection only (pure): its
 * title and generated body (used once, at creation), the canonical summary comment, and one
 * historical comment per owned Claim. Each comment carries a `digest` of its content without
 * the footer, so an unchanged Work needs no request: only the run that changes the content
 * re-writes it (and its footer then names that run).
 */
import { sha256Hex } from '../codec/digest.ts';
import type { Projection } from '../replay/index.ts';
import type { ClaimRecord, WorkRecord } from '../state/state.ts';
import { inlineText, plainTitle, safeRepository, safeToken } from './escape.ts';
import { statusLabel, type IssueStatus } from './labels.ts';
import { footer, render, type Templates } from './render.ts';
import { isPullRequestDelivery, issueStatus, resultOperation, resultOutputTypes, statusKnown } from './status.ts';

export interface ProjectionContext {
  /** Tracking/status label prefix (normalized settings). */
  prefix: string;
  /** Web host of generated links (github.com). */
  host: string;
  /** The producing run's URL, or null outside GitHub Actions. */
  runUrl: string | null;
  /** The Git version (commit SHA) of the ledger this projection read, for ledger links. */
  ledgerVersion: string | null;
  templates: Templates;
}

export interface DesiredText {
  body: string;
  /** sha256 of the content without its footer. */
  digest: string;
}

export interface DesiredClaimComment extends DesiredText {
  claimId: string;
}

export interface DesiredIssue {
  workId: string;
  status: IssueStatus;
  /** False when a verified Result's PR-ness is unknown (compacted); see status.ts. */
  statusKnown: boolean;
  title: string;
  /** The generated Issue body (only ever written when the projector creates the Issue). */
  body: string;
  summary: DesiredText;
  claims: DesiredClaimComment[];
}

/**
 * Rendered text and its digest. The digest covers the content without the footer, and with
 * `stable` in place of values that move with every ledger commit (the ledger link names the
 * version read): the other values already change whenever the Work or Claim does.
 */
function text(ctx: ProjectionContext, name: 'issue-body' | 'issue-summary' | 'issue-claim', values: Record<string, string>, stable: Record<string, string> = {}): DesiredText {
  const content = render(ctx.templates, name, { ...values, ...stable, footer: '' });
  return { body: render(ctx.templates, name, { ...values, footer: footer(ctx.runUrl) }), digest: sha256Hex(content) };
}

function ledgerLink(projection: Projection, ctx: ProjectionContext): string {
  const repo = safeRepository(projection.repository ?? '');
  const version = ctx.ledgerVersion === null ? null : safeToken(ctx.ledgerVersion);
  if (repo === null || version === null) return 'not linkable (no GitHub repository or Git version)';
  return `[ledger at ${version.slice(0, 12)}](https://${ctx.host}/${repo}/blob/${version}/work-queue.jsonl)`;
}

function titleOf(work: WorkRecord): string {
  const payload = work.definition.payload as Record<string, unknown> | undefined;
  const given = typeof payload?.title === 'string' ? payload.title : work.nodeKey;
  return plainTitle(given);
}

function runLink(projection: Projection, ctx: ProjectionContext, claim: ClaimRecord): string {
  const run = projection.dispatch(claim.dispatchId)?.run as { run_id?: string; repository?: string } | null | undefined;
  if (run?.run_id === undefined) return 'no verified run binding yet';
  const repo = safeRepository(run.repository ?? '');
  const id = safeToken(run.run_id);
  return repo === null || id === null ? 'run not linkable' : `[run ${id}](https://${ctx.host}/${repo}/actions/runs/${id})`;
}

function claimOutcome(projection: Projection, work: WorkRecord, claim: ClaimRecord): string {
  if (claim.state === 'open') return 'open (the worker holds this Claim)';
  if (claim.state === 'cancelled') return `cancelled${claim.cancelReason === null ? '' : ` (${inlineText(claim.cancelReason, 128)})`}`;
  if (work.currentClaim !== claim.claimId) return 'completed (superseded)';
  if (work.barrier === 'verified') {
    const types = resultOutputTypes(resultOperation(projection, work));
    return `verified Result${types.length > 0 ? `: ${types.map((t) => inlineText(t, 64)).join(', ')}` : ''}${isPullRequestDelivery(types) ? ' (pull request: needs review)' : ''}`;
  }
  if (work.barrier === 'failed') return 'DeliveryFailure (terminal)';
  return 'completed; delivery not yet verified (Completion is not Result)';
}

export function desiredIssue(projection: Projection, work: WorkRecord, ctx: ProjectionContext): DesiredIssue {
  const status = issueStatus(projection, work);
  const identity = {
    work_id: inlineText(work.workId, 256),
    graph_id: inlineText(work.graphId, 256),
    node_key: inlineText(work.nodeKey, 256),
    pool: inlineText(work.pool, 128),
    worker_profile: inlineText(work.workerProfile, 128),
    priority: String(work.priority),
    fairness_key: inlineText(work.fairnessKey === '' ? '(default)' : work.fairnessKey, 128),
  };
  const body = text(ctx, 'issue-body', { ...identity, title: inlineText(titleOf(work), 200) }).body;
  const summary = text(ctx, 'issue-summary', {
    ...identity,
    status,
    status_label: inlineText(statusLabel(ctx.prefix, status), 64),
    attempts: String(work.attempts),
    claims: String(work.claims.length),
    ledger: ledgerLink(projection, ctx),
  }, { ledger: '' });
  const claims = work.claims.flatMap((claimId, i) => {
    const claim = projection.claim(claimId);
    if (claim === undefined) return [];
    const t = text(ctx, 'issue-claim', {
      ...identity,
      attempt: String(i + 1),
      claim_id: inlineText(claim.claimId, 256),
      dispatch_id: inlineText(claim.dispatchId, 256),
      run: runLink(projection, ctx, claim),
      ledger: ledgerLink(projection, ctx),
      outcome: claimOutcome(projection, work, claim),
    }, { ledger: '' });
    return [{ claimId, ...t }];
  });
  return { workId: work.workId, status, statusKnown: statusKnown(projection, work), title: titleOf(work), body, summary, claims };
}
