/**
 * "Pack after these Observations" (spec 7.16: Observations and their selected Claims share
 * one atomic commit): the dispatcher building the grant and the receipt re-deriving it run
 * the one function (replay/observed-pack.ts) on a scratch pre-state; replay verifies the
 * commit; the cached predecessor projection (`Projection.before`) is never mutated by it.
 */
import { describe, expect, it } from 'vitest';
import { replayBytes } from '../../tests/support/bytes.ts';
import type { JsonObject } from '../json.ts';
import { dispatchNextWithObservations } from '../lifecycle/grant.ts';
import { grantPlan } from '../receipts/dispatch.ts';
import { candidateCommitId } from '../identity/index.ts';
import { observation } from '../requests/lifecycle.ts';
import { bootstrapRequest } from '../requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { gateIdentity } from '../scheduler/eligibility.ts';
import { summarize } from './summary.ts';

const REPOSITORY = 'acme/app';
const T0 = 1_700_000_000_000;
const GATE = { kind: 'issue' as const, host: 'github.com', repository: REPOSITORY, repository_id: '11', resource_id: '4242', number: '7' };
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const INPUT = { pool: 'default', max_claims: 4, max_dispatches: 4, max_bytes: 49152 };

/** A queue whose one Work waits on an Issue gate nobody observed yet, and one ungated Work. */
function gatedQueue(): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', logicalLimit: 8, nativeLimit: 8 });
  w.publish('bootstrap', producer, T0, bootstrapRequest(policy, 'epoch-1', [
    { node_key: 'gated', payload: { n: 1 }, depends_on: [{ kind: 'issue', condition: 'closed', resource: GATE }] },
    { node_key: 'free', payload: { n: 2 } },
  ], { graphId: 'g', at: T0 }));
  return w;
}

describe('pack after these Observations', () => {
  const at = T0 + 60_000;
  const w = gatedQueue();
  const fresh = observation({ id: 'obs-1', resource: GATE, condition: 'closed', satisfied: true, observedAt: at, generation: 'initial' });
  const live = replayBytes(w.text());
  const ids = { requestId: 'grant-1', commitId: candidateCommitId(live.tip, 'grant-1') };
  const built = dispatchNextWithObservations(live, INPUT, ids, at, [fresh]);

  it('grants the gated Work behind its fresh Observation, and leaves the caller\'s projection untouched', () => {
    expect(built.operations.map((op) => op.kind)).toEqual(['Observation', 'Claim', 'Claim']);
    expect(built.plan.claims.map((c) => live.work(c.work_id)!.nodeKey).sort()).toEqual(['free', 'gated']);
    expect(live.observation(gateIdentity({ kind: 'issue', condition: 'closed', resource: GATE }))).toBeUndefined();
  });

  it('replay verifies the commit; the receipt re-derives the same Claims without touching the cached predecessor', () => {
    w.publish('grant-1', dispatcher, at, built);
    const p = replayBytes(w.text());
    const grant = p.request('grant-1')!;
    const before = p.before(grant.commitId);
    const untouched = summarize(before);
    const again = grantPlan(p, 'grant-1');
    expect(again.claims).toEqual(built.plan.claims as unknown as JsonObject[]);
    expect(again.stopReason).toBe(built.plan.stopReason);
    // The Observations were applied to a scratch replay, never to the cached `before`.
    expect(p.before(grant.commitId)).toBe(before);
    expect(summarize(before)).toEqual(untouched);
    expect(before.observation(gateIdentity({ kind: 'issue', condition: 'closed', resource: GATE }))).toBeUndefined();
    expect(grantPlan(p, 'grant-1').claims).toEqual(again.claims);
  });
});
