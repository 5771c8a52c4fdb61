/**
 * Historical views replay the exact predecessor prefix of a commit (spec 7.13:
 * "QueueCommit.previous, its operations, its request, and its decision time are
 * sufficient to reproduce the explanation offline").
 */
import { fail } from '../errors.ts';
import { emptyProjection, replayLedger, type Projection } from '../replay/index.ts';
import { compactedReceipt, historyCompacted } from './committed.ts';

/** The projection as of commit `commitId` inclusive (`inclusive: false`: just before it). */
export function projectionAt(projection: Projection, commitId: string, inclusive = true): Projection {
  const ordinal = projection.state.commitIndex.get(commitId);
  if (ordinal === undefined && compactedReceipt(projection, commitId) !== undefined) historyCompacted(projection, commitId, `the ledger as of commit ${commitId}`);
  if (ordinal === undefined) fail('unknown_commit', `commit ${commitId} is not in the validated ledger`);
  const end = inclusive ? ordinal + 1 : ordinal;
  if (end === projection.state.commits.length) return projection;
  const lines: string[] = [];
  for (let i = 0; i < end; i++) lines.push(projection.commitText(projection.state.commits[i]!.id)!);
  return lines.length === 0 ? emptyProjection() : replayLedger(`${lines.join('\n')}\n`);
}
