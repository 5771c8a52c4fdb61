/**
 * The writer side of issue 10 §3 "Release of a never-bound group" (spec 7.8): the
 * reconciler never releases a group whose only evidence is the terminal state of a run
 * it could not bind. Before this rule, a terminated response-named run that did not match
 * the approved profile released the unbound group; replay now rejects that ledger
 * (`terminal_evidence_required`), so the reconciler keeps the reservation instead.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { countOps, createBench, type Bench } from './harness.ts';

let bench: Bench;
afterEach(async () => bench?.close());

describe('reconcile never releases on an unbound run\'s terminal state', () => {
  it('a terminated response-named run that does not match the approved revision keeps the reservation (run_identity_invalid)', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.repo.refs.set('refs/heads/moved', 'f'.repeat(40));
    const launched = await launchGroup(bench.launchDeps({ ref: 'moved' }), d!);
    expect(launched).toMatchObject({ outcome: 'uncertain', reason: 'run_ref_mismatch' });
    setRunStatus(bench.fake.state, launched.run_id!, 'completed', 'failure');
    const r = await reconcileDispatch(bench.reconcileDeps({ maxPolls: 1 }), d!);
    expect(r).toMatchObject({ outcome: 'run_identity_invalid', state: 'uncertain' });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(0);
    expect(p.state.outstandingNative.get('default')).toBe(1);
  });
});
