/**
 * A Work's backing-Issue status, from the ledger alone (operator reference "Backing Issues":
 * Completion projects Verifying, verified PR delivery Needs review, verified non-PR delivery
 * Done; DeliveryFailure Failed; WorkCancellation Cancelled). Native run failure/cancellation
 * and human Issue edits are not inputs.
 */
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import type { WorkRecord } from '../state/state.ts';
import type { IssueStatus } from './labels.ts';

/**
 * The Result operation of a verified Work (null when it has none). A Result that a checkpoint
 * replaced is the operation the checkpoint keeps (`terminal_barriers`, carried through every
 * later checkpoint): compaction keeps the delivery outcome, PR-ness included (spec 7.10).
 */
export function resultOperation(projection: Projection, work: WorkRecord): JsonObject | null {
  if (work.resultCommit === null) return null;
  const text = projection.commitText(work.resultCommit);
  if (text === undefined) {
    const kept = projection.checkpoint?.terminalBarriers[work.workId] as JsonObject | undefined;
    return kept?.kind === 'Result' ? kept : null;
  }
  const commit = JSON.parse(text) as { operations?: JsonObject[] };
  return commit.operations?.find((op) => op.kind === 'Result' && op.work_id === work.workId) ?? null;
}

/** Output types of a verified Result's descriptor (`outputs[].type`). */
export function resultOutputTypes(result: JsonObject | null): string[] {
  const outputs = (result?.descriptor as { outputs?: unknown } | undefined)?.outputs;
  if (!Array.isArray(outputs)) return [];
  return outputs.flatMap((o) => (typeof (o as { type?: unknown })?.type === 'string' ? [(o as { type: string }).type] : []));
}

/** Whether a verified delivery includes a pull request (output type naming `pull_request`). */
export function isPullRequestDelivery(types: readonly string[]): boolean {
  return types.some((t) => /pull_request/i.test(t));
}

/**
 * Whether the status is fully known from this projection. A verified Result whose operation
 * is neither retained nor kept by a checkpoint (a projection without its records) cannot say
 * whether it delivered a pull request: the planner then keeps an already projected
 * `needs-review` or `done` (plan.ts).
 */
export function statusKnown(projection: Projection, work: WorkRecord): boolean {
  return work.barrier !== 'verified' || resultOperation(projection, work) !== null;
}

export function issueStatus(projection: Projection, work: WorkRecord): IssueStatus {
  switch (work.state) {
    case 'available': return 'queued';
    case 'claimed': return 'running';
    case 'cancelled': return 'cancelled';
    case 'completed':
      if (work.barrier === 'failed') return 'failed';
      if (work.barrier === 'verified') return isPullRequestDelivery(resultOutputTypes(resultOperation(projection, work))) ? 'needs-review' : 'done';
      return 'verifying';
  }
}
