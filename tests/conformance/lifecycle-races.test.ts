/**
 * Issue 20: forbidden ledgers for two GitHub lifecycle races (spec 7.8, §8.2 "Launch
 * recovery"). Each is an honest prefix written with the engine's builders plus one
 * hand-written commit (id and fingerprint recomputed, `forbidden.ts`), judged on the byte
 * path; each has an honest control on the same prefix.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { candidateTerminalRequest, conflictTransition, rejectedTransition, resolutionRequest, startMarker, uncertainTransition, unresolvedTransition } from '../../engine/lifecycle/dispatch.ts';
import { cancelClaims, releaseRequest } from '../../engine/lifecycle/release.ts';
import { dispatchBound } from '../../engine/requests/lifecycle.ts';
import { operationsRequest } from '../../engine/requests/operations.ts';
import { admin, dispatcher, nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
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

  it('a group with a recorded conflict cannot be rejected as a nonlaunch (run_binding_conflict), so no ordinary Release follows; without a conflict the same rejection is accepted', () => {
    for (const conflict of [true, false]) {
      const { q, dispatchId } = prefix(conflict);
      const at = q.tick();
      const nonlaunch = evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }, at);
      // The builder refuses what replay refuses (the launcher skips it: lib/lifecycle/launcher.ts).
      if (conflict) expect(() => rejectedTransition(q.state, dispatchId, 'dispatch_rejected_422', nonlaunch)).toThrow(expect.objectContaining({ code: 'run_binding_conflict' }));
      const rejected = { kind: 'dispatch', operations: [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'rejected', reason: 'dispatch_rejected_422', evidence: nonlaunch }] };
      expect(byteVerdict(forge(q, { id: 'rejected', actor: reconciler, at, ...rejected })), `conflict: ${conflict}`).toBe(conflict ? 'run_binding_conflict' : 'accepted');
    }
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

describe('issue 20: a recorded conflict frees its capacity only with exact terminal evidence for every candidate or an administrator\'s resolution (spec 7.8)', () => {
  function conflicted(): { q: TestQueue; dispatchId: string } {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    q.w.publish('uncertain', reconciler, q.tick(), uncertainTransition(q.state, dispatchId, 'dispatch_response_lost'));
    q.w.publish('conflict', reconciler, q.tick(), conflictTransition(q.state, dispatchId, ['7001', '7002'],
      evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 1 })));
    return { q, dispatchId };
  }
  const terminal = (q: TestQueue, dispatchId: string, runId: string) => evidence(q, dispatchId, { kind: 'terminal_run', source: 'github_api', runId, conclusion: 'success', completed: true });
  const release = (q: TestQueue, dispatchId: string, runId: string) => releaseRequest(q.state, dispatchId, terminal(q, dispatchId, runId), 'run_terminal', q.t);

  it('rejects a Release with terminal evidence of only one candidate, or of none recorded (conflict_evidence_required)', () => {
    const { q, dispatchId } = conflicted();
    expect(byteVerdict(forgeBuilt(q, 'release-none', reconciler, q.tick(), release(q, dispatchId, '7001')))).toBe('conflict_evidence_required');
    q.w.publish('terminal-7001', reconciler, q.tick(), candidateTerminalRequest(q.state, dispatchId, [terminal(q, dispatchId, '7001')]));
    expect(byteVerdict(forgeBuilt(q, 'release-one', reconciler, q.tick(), release(q, dispatchId, '7001')))).toBe('conflict_evidence_required');
    // Terminal evidence of a run that is no candidate does not stand in for one.
    expect(byteVerdict(forgeBuilt(q, 'release-other', reconciler, q.tick(), release(q, dispatchId, '7999')))).toBe('conflict_evidence_required');
  });

  it('rejects candidate terminal evidence that is not exact (not completed, not from the GitHub API, naming no run) (conflict_evidence_required)', () => {
    const { q, dispatchId } = conflicted();
    const running = evidence(q, dispatchId, { kind: 'terminal_run', source: 'github_api', runId: '7001', conclusion: 'success' });
    const fromActivation = evidence(q, dispatchId, { kind: 'terminal_run', source: 'trusted_activation', runId: '7001', conclusion: 'success', completed: true });
    for (const [id, e] of [['running', running], ['activation', fromActivation]] as const) {
      const op = { kind: 'Dispatch', dispatch_id: dispatchId, state: 'unresolved', reason: 'run_binding_conflict', evidence: e };
      expect(byteVerdict(forgeBuilt(q, id, reconciler, q.tick(), operationsRequest('dispatch', [op])))).toBe('conflict_evidence_required');
    }
    // (A later attempt is not even schema-valid evidence: run_attempt is FirstAttempt.)
    const noRun = { ...terminal(q, dispatchId, '7001') };
    delete noRun.run_id;
    delete noRun.run_attempt;
    const op = { kind: 'Dispatch', dispatch_id: dispatchId, state: 'unresolved', reason: 'run_binding_conflict', evidence: noRun };
    expect(byteVerdict(forgeBuilt(q, 'no-run', reconciler, q.tick(), operationsRequest('dispatch', [op])))).toBe('conflict_evidence_required');
  });

  it('control: with recorded exact terminal evidence of both candidates the Release replays and frees the reservation', () => {
    const { q, dispatchId } = conflicted();
    q.w.publish('terminal', reconciler, q.tick(), candidateTerminalRequest(q.state, dispatchId, [terminal(q, dispatchId, '7001'), terminal(q, dispatchId, '7002')]));
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, q.tick(), release(q, dispatchId, '7002')))).toBe('accepted');
  });

  it('rejects an operator resolution without administrator authority: a reconciler\'s or worker\'s binding of a candidate is a bind after the conflict (run_binding_conflict), a non-administrator control is role_not_allowed', () => {
    const { q, dispatchId } = conflicted();
    const at = q.tick();
    const resolution = resolutionRequest(q.state, dispatchId, '7001', { ...evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', runId: '7001' }, at) });
    expect(byteVerdict(forgeBuilt(q, 'resolve-by-reconciler', reconciler, at, resolution))).toBe('role_not_allowed');
    const asDispatch = operationsRequest('dispatch', resolution.operations);
    expect(byteVerdict(forgeBuilt(q, 'resolve-as-dispatch', reconciler, at, asDispatch))).toBe('run_binding_conflict');
    expect(byteVerdict(forgeBuilt(q, 'resolve-by-worker', workerOf(dispatchId, '7001'), at, asDispatch))).toBe('run_binding_conflict');
    expect(byteVerdict(forgeBuilt(q, 'resolve', admin, at, resolution))).toBe('accepted');
  });

  it('rejects an administrator\'s resolution naming no candidate, of a group without a conflict, or of another shape (conflict_resolution_invalid)', () => {
    const { q, dispatchId } = conflicted();
    const at = q.tick();
    const ev = (runId: string) => evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', runId }, at);
    const good = resolutionRequest(q.state, dispatchId, '7001', ev('7001'));
    const foreign = { ...(good.operations[0] as object), run: { ...((good.operations[0] as { run: object }).run), run_id: '7999' }, evidence: ev('7999') };
    expect(byteVerdict(forgeBuilt(q, 'resolve-foreign', admin, at, operationsRequest('control', [foreign])))).toBe('conflict_resolution_invalid');
    const unresolved = { kind: 'Dispatch', dispatch_id: dispatchId, state: 'unresolved', reason: 'operator_none', evidence: ev('7001') };
    expect(byteVerdict(forgeBuilt(q, 'resolve-none', admin, at, operationsRequest('control', [unresolved])))).toBe('conflict_resolution_invalid');
    const plain = queue();
    const g = grantOne(plain);
    start(plain, g.dispatchId);
    const bindPlain = operationsRequest('control', [{ ...(good.operations[0] as object), dispatch_id: g.dispatchId }]);
    expect(byteVerdict(forgeBuilt(plain, 'resolve-plain', admin, plain.tick(), bindPlain))).toBe('conflict_resolution_invalid');
  });

  it('after an administrator\'s resolution the other candidate still cannot bind, and the Release needs the chosen run\'s exact terminal evidence (terminal_evidence_required)', () => {
    const { q, dispatchId } = conflicted();
    let at = q.tick();
    q.w.publish('resolve', admin, at, resolutionRequest(q.state, dispatchId, '7001', evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', runId: '7001' }, at)));
    at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'bind-7002', reconciler, at, dispatchBound(q.state, dispatchId, '7002', at)))).toBe('run_binding_conflict');
    const nonlaunch = releaseRequest(q.state, dispatchId, evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }), 'forced', q.t);
    expect(byteVerdict(forgeBuilt(q, 'force', reconciler, q.tick(), nonlaunch))).toBe('terminal_evidence_required');
    expect(byteVerdict(forgeBuilt(q, 'release-other', reconciler, q.tick(), release(q, dispatchId, '7002')))).toBe('terminal_evidence_required');
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, q.tick(), release(q, dispatchId, '7001')))).toBe('accepted');
  });

  it('a worker may record its own group\'s conflict only naming its own run (run_binding_conflict otherwise)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    q.w.publish('uncertain', reconciler, q.tick(), uncertainTransition(q.state, dispatchId, 'dispatch_response_lost'));
    const built = conflictTransition(q.state, dispatchId, ['7001', '7002'], evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 1 }));
    expect(byteVerdict(forgeBuilt(q, 'conflict-own', workerOf(dispatchId, '7001'), q.tick(), built))).toBe('accepted');
    expect(byteVerdict(forgeBuilt(q, 'conflict-foreign', workerOf(dispatchId, '7003'), q.tick(), built))).toBe('run_binding_conflict');
    const other = { kind: 'Dispatch', dispatch_id: dispatchId, state: 'unresolved', reason: 'launch_unresolved', evidence: evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api' }) };
    expect(byteVerdict(forgeBuilt(q, 'unresolved-by-worker', workerOf(dispatchId, '7001'), q.tick(), operationsRequest('dispatch', [other])))).toBe('run_binding_conflict');
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

describe('spec 7.8: a reserved group is started or closed, never both; attempt exhaustion is a step of its closing', () => {
  /** One granted Claim on the Work's last attempt (max_attempts 1). */
  function lastAttempt(): { q: TestQueue; dispatchId: string; claimId: string; workId: string } {
    const q = new TestQueue(policyOf({ accounting_weights: { a: 1 }, retry: { max_attempts: 1, backoff_seconds: 1 } }), nodes('p', 1, 'a'));
    return { q, ...grantOne(q) };
  }
  const prelaunch = (q: TestQueue, dispatchId: string, at: number) => evidence(q, dispatchId, { kind: 'prelaunch', source: 'trusted_publisher' }, at);
  const marker = (dispatchId: string) => operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'started', sender: dispatcher as unknown as JsonObject }]);

  it('rejects a start marker after a member Claim was cancelled for attempt exhaustion in its own commit (group_closing); the builder refuses it too', () => {
    const { q, dispatchId, claimId, workId } = lastAttempt();
    q.w.publish('exhaust', reconciler, q.tick(), operationsRequest('cancel_work', [{ kind: 'WorkCancellation', work_id: workId, reason: 'attempts_exhausted', claim_id: claimId }]));
    expect(byteVerdict(forgeBuilt(q, 'start', dispatcher, q.tick(), marker(dispatchId)))).toBe('group_closing');
    expect(() => startMarker(q.state, dispatchId, dispatcher)).toThrow(expect.objectContaining({ code: 'group_closing' }));
    // The closing it began still finishes: the prelaunch Release of the reserved group replays.
    const at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, at, releaseRequest(q.state, dispatchId, prelaunch(q, dispatchId, at), 'prelaunch_cancelled', at)))).toBe('accepted');
  });

  it('control: an operator\'s cancellation of the Work (another reason) does not close the group; its start marker replays, as it does without any cancellation', () => {
    const a = lastAttempt();
    a.q.w.publish('operator', admin, a.q.tick(), operationsRequest('cancel_work', [{ kind: 'WorkCancellation', work_id: a.workId, reason: 'operator_cancelled', claim_id: a.claimId }]));
    expect(byteVerdict(forgeBuilt(a.q, 'start', dispatcher, a.q.tick(), marker(a.dispatchId)))).toBe('accepted');
    const b = lastAttempt();
    expect(byteVerdict(forgeBuilt(b.q, 'start', dispatcher, b.q.tick(), marker(b.dispatchId)))).toBe('accepted');
  });

  it('the trusted prelaunch cancellation on the last attempt is one release commit (fenced WorkCancellation, Release): accepted while reserved, refused whole after a start marker (launch_already_started)', () => {
    const { q, dispatchId, claimId, workId } = lastAttempt();
    let at = q.tick();
    const built = releaseRequest(q.state, dispatchId, prelaunch(q, dispatchId, at), 'prelaunch_cancelled', at);
    expect(built.operations.map((o) => o.kind)).toEqual(['WorkCancellation', 'Release']);
    expect(built.operations[0]).toMatchObject({ work_id: workId, claim_id: claimId, reason: 'attempts_exhausted' });
    expect(byteVerdict(forgeBuilt(q, 'cancel-reserved', reconciler, at, built))).toBe('accepted');
    start(q, dispatchId);
    at = q.tick();
    expect(byteVerdict(forgeBuilt(q, 'cancel-reserved', reconciler, at, releaseRequest(q.state, dispatchId, prelaunch(q, dispatchId, at), 'prelaunch_cancelled', at)))).toBe('launch_already_started');
  });
});
