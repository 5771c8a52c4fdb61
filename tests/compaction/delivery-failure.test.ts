/**
 * Compaction keeps a DeliveryFailure's outcome readable (spec 7.10: compaction preserves
 * accepted obligations and terminal barriers): the checkpoint keeps the settling operation in
 * `terminal_barriers` but not its commit id, so every reader of "how did this delivery end"
 * must take the operation from the checkpoint once its commit is gone.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import type { JsonValue } from '../../engine/json.ts';
import { settlingOperation } from '../../engine/lifecycle/barrier.ts';
import { buildCheckpointCommit, Projection, replayLedger } from '../../engine/replay/index.ts';
import { deliveryFailure } from '../../engine/requests/lifecycle.ts';
import { parseQueueCommit } from '../../engine/schema/index.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { admin, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { completedClaim } from '../conformance/forbidden.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';

function failedAndCompacted(): { live: Projection; restored: Projection; workId: string; at: number } {
  const q = new TestQueue(policyOf(), [{ node_key: 'a', payload: { plan: 'a' } }]);
  const { workId } = completedClaim(q, '4101');
  q.w.publish('failure', reconciler, q.tick(), deliveryFailure(q.state, workId, q.t, 100, 'artifact_missing'));
  const history = q.w.lines.map((l) => parseQueueCommit(JSON.parse(l)));
  const root = buildCheckpointCommit({ state: q.state, history }, { priorGitSha: 'f'.repeat(40), actor: admin, at: q.tick() });
  return { live: replayLedger(q.w.text()), restored: replayLedger(`${canonicalize(root as unknown as JsonValue)}\n`), workId, at: q.t };
}

describe('compaction keeps a DeliveryFailure readable', () => {
  it('settlingOperation answers the compacted DeliveryFailure from the checkpoint, as it does the live one', () => {
    const { live, restored, workId } = failedAndCompacted();
    expect(restored.work(workId)!.barrier).toBe('failed');
    expect(restored.work(workId)!.deliveryFailureCommit).toBeNull(); // the checkpoint keeps no commit id for it
    const before = settlingOperation(live, workId);
    expect(before).toMatchObject({ kind: 'DeliveryFailure', work_id: workId, reason: 'artifact_missing', disposition: 'unknown' });
    expect(settlingOperation(restored, workId)).toEqual(before);
  });

  it('the console\'s Work detail still shows the failure, its reason and effects, with no commit link', () => {
    const { live, restored, workId, at } = failedAndCompacted();
    const liveFailure = workDetail(live, workId, at, DOTCOM_HOST)!.deliveryFailure!;
    expect(liveFailure).toMatchObject({ reason: 'artifact_missing', disposition: 'unknown' });
    expect(liveFailure.commitId).toEqual(expect.stringMatching(/^q_/));
    expect(workDetail(restored, workId, at, DOTCOM_HOST)!.deliveryFailure).toEqual({ commitId: null, at: null, reason: 'artifact_missing', disposition: 'unknown' });
  });

  it('a Work whose delivery is pending has no settling operation, before and after compaction', () => {
    const q = new TestQueue(policyOf(), [{ node_key: 'a', payload: { plan: 'a' } }]);
    const { workId } = completedClaim(q, '4102');
    const history = q.w.lines.map((l) => parseQueueCommit(JSON.parse(l)));
    const root = buildCheckpointCommit({ state: q.state, history }, { priorGitSha: 'e'.repeat(40), actor: admin, at: q.tick() });
    const restored = replayLedger(`${canonicalize(root as unknown as JsonValue)}\n`);
    expect(settlingOperation(new Projection(q.state), workId)).toBeNull();
    expect(settlingOperation(restored, workId)).toBeNull();
    expect(workDetail(restored, workId, q.t, DOTCOM_HOST)!.deliveryFailure).toBeNull();
  });
});
