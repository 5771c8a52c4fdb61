/**
 * `replay --json` keeps the decision times compaction keeps: a Work's `admitted_at` and a Claim's
 * `granted_at` / `terminal_at` come from the checkpoint receipt of a commit the checkpoint
 * replaced (docs/projection-json.md), the same values as on the uncompacted ledger.
 */
import { describe, expect, it } from 'vitest';
import { replayLedger, type Projection } from '../engine/replay/index.ts';
import { finishRequest } from '../engine/requests/operations.ts';
import { nodes, policyOf, TestQueue } from '../tests/acceptance/queue.ts';
import { bind, grantOne, start, workerOf } from '../tests/conformance/forbidden.ts';
import { checkpointOf } from '../tests/support/checkpoints.ts';
import { projectionDocument } from './projection-json.ts';

const replay = (text: string): Projection => replayLedger(new TextEncoder().encode(text));

describe('projection JSON after compaction', () => {
  it('admitted_at, granted_at and terminal_at equal the uncompacted ledger\'s', () => {
    const q = new TestQueue(policyOf(), nodes('p', 3, ''));
    const g = grantOne(q);
    start(q, g.dispatchId);
    bind(q, g.dispatchId, '7001');
    const at = q.tick();
    q.w.publish('finish', workerOf(g.dispatchId, '7001'), at, finishRequest(q.state, { dispatch_id: g.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at));
    const full = replay(q.text());
    const compacted = replay(checkpointOf(q.text()));
    const asOf = at + 1000;
    const times = (p: Projection) => {
      const doc = projectionDocument(p, asOf) as unknown as { works: Array<{ work_id: string; admitted_at: number | null }>; claims: Array<{ claim_id: string; granted_at: number | null; terminal_at: number | null }> };
      return { works: doc.works.map((w) => [w.work_id, w.admitted_at]), claims: doc.claims.map((c) => [c.claim_id, c.granted_at, c.terminal_at]) };
    };
    const before = times(full);
    expect(before.works.every(([, t]) => typeof t === 'number')).toBe(true);
    expect(before.claims).toEqual([[g.claimId, expect.any(Number), at]]);
    expect(times(compacted)).toEqual(before);
  });
});
