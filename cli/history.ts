/**
 * Historical grant explanations (spec 7.13 "explain --request-id / --before-claim"):
 * replay the commit's predecessor prefix and re-run the one packer at the
 * commit's decision time. The explanations are planNext's own.
 */
import { fail } from '../engine/errors.ts';
import type { Projection } from '../engine/replay/index.ts';
import { historyCompacted } from '../engine/receipts/committed.ts';
import { grantPlan } from '../engine/receipts/dispatch.ts';
import type { HistoryReader } from '../lib/publisher/history.ts';

// The walk back through prior_git_sha is lib's (the console reads it too).
export { ledgersBackTo, memoizedHistory } from '../lib/publisher/history.ts';

/**
 * A grant older than the ledger's checkpoint is explained from the pre-compaction ledger that
 * `history` reads through the checkpoint's prior_git_sha (the same explanation, byte for byte);
 * without reachable history it is `history_compacted`, naming that Git commit.
 */
export async function historicalExplanationAt(p: Projection, sel: { requestId?: string; claimId?: string }, history?: HistoryReader) {
  const requestId = sel.requestId ?? p.claim(sel.claimId!)?.requestId;
  const request = requestId === undefined ? undefined : p.request(requestId);
  if (request === undefined || p.commitText(request.commitId) !== undefined) return historicalExplanation(p, sel);
  if (request.kind !== 'dispatch_next') return historicalExplanation(p, sel);
  const holder = history === undefined ? null : await history(p, request.commitId);
  if (holder === null) return historyCompacted(p, request.commitId, `the explanation of grant ${requestId}`);
  return historicalExplanation(holder, sel);
}

export function historicalExplanation(p: Projection, sel: { requestId?: string; claimId?: string }) {
  let requestId = sel.requestId;
  let focus: string | null = null;
  if (requestId === undefined) {
    const claim = p.claim(sel.claimId!);
    if (claim === undefined) fail('unknown_claim', `Claim ${sel.claimId} is not in the ledger`);
    requestId = claim.requestId;
    focus = claim.claimId;
  }
  const request = p.request(requestId);
  if (request === undefined) fail('unknown_request', `request ${requestId} is not committed`);
  if (request.kind !== 'dispatch_next') fail('not_a_grant', `request ${requestId} is a ${request.kind} request; only dispatch_next grants have selections to explain`);
  const plan = grantPlan(p, requestId);
  const claims = plan.claims.map((c, i) => ({ index: i + 1, claim_id: c.claim_id, work_id: c.work_id, dispatch_id: c.dispatch_id, handle: c.handle, explanation: plan.explanations[i]! }));
  return {
    request_id: requestId,
    commit_id: request.commitId,
    as_of: request.at,
    focus_claim: focus,
    stop_reason: plan.stopReason,
    claims: focus === null ? claims : claims.filter((c) => c.claim_id === focus),
    groups: plan.groups.map((g) => ({ dispatch_id: g.dispatch_id, worker_profile: g.worker_profile, claim_ids: g.claim_ids, bytes: g.bytes })),
  };
}
