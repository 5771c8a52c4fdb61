/**
 * Historical views replay the exact predecessor prefix of a commit (spec 7.13:
 * "QueueCommit.previous, its operations, its request, and its decision time are
 * sufficient to reproduce the explanation offline"): `Projection.at` / `before`,
 * the one cached prefix replay, with a compacted commit told apart.
 */
import type { Projection } from '../replay/index.ts';
import { compactedReceipt, historyCompacted } from './committed.ts';

/** The projection as of commit `commitId` inclusive (`inclusive: false`: just before it). */
export function projectionAt(projection: Projection, commitId: string, inclusive = true): Projection {
  if (projection.commitPosition(commitId) === undefined && compactedReceipt(projection, commitId) !== undefined) {
    historyCompacted(projection, commitId, `the ledger as of commit ${commitId}`);
  }
  return inclusive ? projection.at(commitId) : projection.before(commitId);
}
