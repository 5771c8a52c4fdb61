/**
 * Issue 20: forbidden ledgers for two GitHub lifecycle races (spec 7.8, §8.2 "Launch
 * recovery"). Each is an honest prefix written with the engine's builders plus one
 * hand-written commit (id and fingerprint recomputed, `forbidden.ts`), judged on the byte
 * path; each has an honest control on the same prefix.
 */
import { describe, expect, it } from 'vitest';
import { conflictTransition, uncertainTransition, unresolvedTransition } from '../../engine/lifecycle/dispatch.ts';
import { cancelClaims, releaseRequest } from '../../engine/lifecycle/release.ts';
import { dispatchBound } from '../../engine/requests/lifecycle.ts';
import { operationsRequest } from '../../engine/requests/operations.ts';
import { nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, evidence, forge, forgeBuilt, grantOne, start, workerOf } from './forbidden.ts';

function queue(): TestQueue {
  return new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 1, 'a'));
}

describe('§8.2 "Launch recovery": duplicate or conflicting runs retain capacity; neither run may bind (spec 7.8)', () => {
  /** Grant, start, uncertain (response lost); with `conflict`, the reconciler's recorded conflict of runs 7001 and 7002. */
  function prefix(conflict: boolean): { q: TestQueue; dispatchId: string } {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    q.w.publish('uncertain', reconciler, q.tick(), uncertainTransition(q.state, dispatchId, 'dispatch_response_lost'));
    if (conflict) {
      q.w.publish('conflict', reconciler, q.tick(), conflictTransition(q.state, dispatchId, ['7001', '7002'],
        evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 1 })));
    }
    return { q, dispatchId };
  }

  it('rejects a Dispatch(bound) of either run after a recorded run binding conflict, by the reconciler or the run\'s own activation (run_binding_conflict)', () => {
    const { q, dispatchId } = prefix(true);
    expect(q.state.dispatches.get(dispatchId)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict' });
    for (const runId of ['7001', '7002']) {
      const at = q.tick();
      expect(byteVerdict(forgeBuilt(q, `bind-${runId}`, reconciler, at, dispatchBound(q.state, dispatchId, runId, at)))).toBe('run_binding_conflict');
      expect(byteVerdict(forgeBuilt(q, `activate-${runId}`, workerOf(dispatchId, runId), at, dispatchBound(q.state, dispatchId, runId, at)))).toBe('run_binding_conflict');
    }
  });

  it('control: without the recorded conflict the same binding replays', () => {
    const { q, dispatchId } = prefix(false);
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'bind-7001', reconciler, at, dispatchBound(q.state, dispatchId, '7001', at)))).toBe('accepted');
  });

  it('a conflict discovered after launch_unresolved is recorded on the unresolved group, then no run binds (run_binding_conflict)', () => {
    const { q, dispatchId } = prefix(false);
    q.w.publish('unresolved', reconciler, q.tick(), unresolvedTransition(q.state, dispatchId, 'launch_unresolved', evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 5 })));
    const built = conflictTransition(q.state, dispatchId, ['7001', '7002'], evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 1 }));
    expect(byteVerdict(forgeBuilt(q, 'conflict', reconciler, q.tick(), built))).toBe('accepted');
    q.w.publish('conflict', reconciler, q.tick(), built);
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'bind-7002', reconciler, at, dispatchBound(q.state, dispatchId, '7002', at)))).toBe('run_binding_conflict');
    // Recording the same conflict twice is not a transition (dispatch_transition_invalid).
    expect(byteVerdict(forgeBuilt(q, 'conflict-again', reconciler, q.tick(), built))).toBe('dispatch_transition_invalid');
  });

  it('the recorded conflict names both runs in its evidence, within the 256-byte evidence Identity bound', () => {
    const { q, dispatchId } = prefix(true);
    const many = Array.from({ length: 40 }, (_, i) => String(9_007_199_254_740_993n + BigInt(i)));
    const built = conflictTransition(prefix(false).q.state, dispatchId, many, evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api' }));
    const receipt = String((built.operations[0] as { evidence: { receipt: string } }).evidence.receipt);
    expect(new TextEncoder().encode(receipt).length).toBeLessThanOrEqual(256);
    expect(receipt).toMatch(/^run_binding_conflict:9007199254740993,9007199254740994,.*,\+\d+$/);
  });
});

describe('spec 7.8: once a start marker is committed, prelaunch cancellation is no longer definitive nonlaunch evidence', () => {
  function started(): { q: TestQueue; dispatchId: string; claimId: string; workId: string } {
    const q = queue();
    const g = grantOne(q);
    start(q, g.dispatchId);
    return { q, ...g };
  }
  const prelaunch = (q: TestQueue, dispatchId: string, at: number) => evidence(q, dispatchId, { kind: 'prelaunch', source: 'trusted_publisher' }, at);

  it('rejects the prelaunch-cancellation release (ClaimCancellation + Release) after a start marker (launch_already_started)', () => {
    const { q, dispatchId } = started();
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'cancel-reserved', reconciler, at, releaseRequest(q.state, dispatchId, prelaunch(q, dispatchId, at), 'prelaunch_cancelled', at)))).toBe('launch_already_started');
  });

  it('rejects a ClaimCancellation or fenced WorkCancellation given as prelaunch cancellation after a start marker (launch_already_started)', () => {
    const { q, claimId, workId } = started();
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'cancel-claim', reconciler, at, cancelClaims(q.state, [claimId], 'prelaunch_cancelled', at)))).toBe('launch_already_started');
    const work = operationsRequest('cancel_work', [{ kind: 'WorkCancellation', work_id: workId, reason: 'prelaunch_cancelled', claim_id: claimId }]);
    expect(byteVerdict(forgeBuilt(q, 'cancel-work', reconciler, at, work))).toBe('launch_already_started');
  });

  it('rejects a Release of a started group on prelaunch evidence alone (nonlaunch_evidence_required)', () => {
    const { q, dispatchId } = started();
    const at = q.tick();
    expect(byteVerdict(forge(q, { id: 'release-only', kind: 'release', actor: reconciler, at, operations: [{ kind: 'Release', dispatch_id: dispatchId, evidence: prelaunch(q, dispatchId, at) }] })))
      .toBe('nonlaunch_evidence_required');
  });

  it('control: the same prelaunch cancellation of the reserved group replays; after the start marker an ordinary Claim cancellation (reservation kept) replays', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'cancel-reserved', reconciler, at, releaseRequest(q.state, dispatchId, prelaunch(q, dispatchId, at), 'prelaunch_cancelled', at)))).toBe('accepted');
    const s = started();
    const later = s.q.tick();
    expect(byteVerdict(forgeBuilt(s.q, 'cancel-claim', reconciler, later, cancelClaims(s.q.state, [s.claimId], 'operator_cancelled', later)))).toBe('accepted');
  });
});
