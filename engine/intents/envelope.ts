/**
 * The operating envelope at staging (spec 7.17; docs/operating-envelope.md "Operators and agents": an agent is told ledger_limit
 * before it stages a plan that cannot be admitted). The MCP server builds the commit the trusted
 * processor would publish for a staged submit or dispatch_next, on the activation snapshot, and
 * checks it against the same envelope bounds replay applies (replay/ledger-budget.ts): past the
 * watermark, or past watermark + reserve with the lifecycle bytes it would owe, the intent is
 * refused with `ledger_limit` and nothing is staged.
 *
 * Non-authoritative, like every snapshot answer: the live queue may have grown or been compacted
 * since, and publication replays the real commit. Only `ledger_limit` is decided here; any other
 * problem of the plan is left to trusted processing, which reports it in its receipt.
 */
import { canonicalize, utf8ByteLength } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { candidateCommitId } from '../identity/index.ts';
import type { JsonValue } from '../json.ts';
import { checkGrantFits, checkSubmitFits } from '../replay/ledger-budget.ts';
import type { Projection } from '../replay/index.ts';
import { buildCommit } from '../requests/build.ts';
import { dispatchNextRequest, submitRequest, type BuiltRequest } from '../requests/operations.ts';
import type { Actor } from '../schema/index.ts';
import type { CheckedIntent } from './check.ts';
import { resolveSubmit } from './limits.ts';
import { intentRequestId } from './records.ts';

/** An intent id of the real length (`i_` + 32 hex): default node keys and request ids keep their size. */
const PLACEHOLDER_INTENT = `i_${'0'.repeat(32)}`;
/** Assignment byte bound of a processed dispatch_next (the packer also applies the Policy's). */
export const DISPATCH_MAX_BYTES = 48 * 1024;

export interface StagingEnvelopeContext {
  projection: Projection | null;
  snapshotId: string;
  createdAt: number;
  /** The actor trusted processing would publish as. */
  actor: Actor;
}

function commitBytes(projection: Projection, requestId: string, actor: Actor, at: number, built: BuiltRequest): number {
  const commit = buildCommit(projection, { id: requestId, actor, at, ...built });
  return utf8ByteLength(canonicalize(commit as unknown as JsonValue)) + 1;
}

/** Runs `build`; only a `ledger_limit` escapes (other findings are processing's to report). */
function onlyLedgerLimit(build: () => void): void {
  try {
    build();
  } catch (e) {
    if (isProtocolError(e) && e.code === 'ledger_limit') throw e;
    if (!isProtocolError(e)) throw e;
  }
}

export function checkStagingEnvelope(ctx: StagingEnvelopeContext, intent: CheckedIntent): void {
  const { projection } = ctx;
  if (projection === null || projection.policyRecord === null) return; // a bootstrap: the genesis is checked at publication
  const at = ctx.createdAt;
  if (intent.tool === 'work_queue_submit') {
    onlyLedgerLimit(() => {
      const { graphId, nodes } = resolveSubmit(intent.input, { policy: projection.policyRecord!.policy, intentId: PLACEHOLDER_INTENT, enqueued: at, parent: intent.parent });
      const built = submitRequest(projection, nodes, { graphId, at });
      if (built.operations.length === 0) return; // exact resubmission: nothing would be written
      const requestId = intentRequestId(ctx.snapshotId, PLACEHOLDER_INTENT, 'submit');
      const pools = built.operations.map((op) => (op as { pool: string }).pool);
      checkSubmitFits(projection.state, commitBytes(projection, requestId, ctx.actor, at, built), pools);
    });
  } else if (intent.tool === 'work_queue_dispatch_next') {
    onlyLedgerLimit(() => {
      const requestId = intentRequestId(ctx.snapshotId, PLACEHOLDER_INTENT, 'dispatch_next');
      const input = { pool: intent.input.pool, max_claims: intent.input.max_claims, max_dispatches: intent.input.max_dispatches, max_bytes: DISPATCH_MAX_BYTES };
      const built = dispatchNextRequest(projection, input, { requestId, commitId: candidateCommitId(projection.tip, requestId) }, at);
      if (built.plan.claims.length === 0) return; // a no-grant writes nothing
      const groups = built.plan.groups.map(() => intent.input.pool);
      checkGrantFits(projection.state, commitBytes(projection, requestId, ctx.actor, at, built), built.plan.claims.length, groups);
    });
  }
}
