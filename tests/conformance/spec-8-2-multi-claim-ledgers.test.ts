/**
 * Spec §8.2 multi-Claim rows as forbidden ledgers (Independent finish, Effect isolation,
 * Multi-Claim attribution, Accidental run cancellation): one worker run holds a two-Claim
 * assignment [h1, h2]; each hand-written commit sits on that honest prefix with its id and
 * fingerprint computed as a writer computes them (`forbidden.ts`), its BYTES are replayed and
 * the specific code is asserted beside an honest control.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { releaseRequest } from '../../engine/lifecycle/release.ts';
import { result, runEvidence } from '../../engine/requests/lifecycle.ts';
import { finishRequest, submitRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { bind, byteVerdict, evidence, forge, forgeBuilt, start, workerOf } from './forbidden.ts';

const RUN = '7001';

interface Member {
  handle: string;
  claimId: string;
  workId: string;
  worker: Actor;
}

/** One bound dispatch carrying two Claims (h1, h2) of one worker run. */
function sharedRun(): { q: TestQueue; dispatchId: string; h1: Member; h2: Member } {
  const q = new TestQueue(policyOf({}, { profile: { max_claims: 2 } }), nodes('p', 3, ''));
  const plan = q.grant({ max_claims: 2 });
  expect(plan.claims.map((c) => c.handle)).toEqual(['h1', 'h2']);
  const dispatchId = plan.claims[0]!.dispatch_id;
  expect(plan.claims[1]!.dispatch_id).toBe(dispatchId);
  start(q, dispatchId);
  bind(q, dispatchId, RUN);
  const member = (i: number): Member => {
    const c = plan.claims[i]!;
    return { handle: c.handle, claimId: c.claim_id, workId: c.work_id, worker: workerOf(dispatchId, RUN, c.handle) };
  };
  return { q, dispatchId, h1: member(0), h2: member(1) };
}

function finish(q: TestQueue, dispatchId: string, m: Member, outcome: 'completed' | 'cancelled'): void {
  const at = q.tick();
  q.w.publish(`finish-${m.handle}`, m.worker, at, finishRequest(q.state, { dispatch_id: dispatchId, claim_handle: m.handle, outcome }, at));
}

/** A hand-written Result naming `claim` for `work`, citing `completionId`, with delivery evidence of the group. */
function resultOp(q: TestQueue, dispatchId: string, work: string, claim: string, completionId: string): JsonObject {
  return { kind: 'Result', work_id: work, claim_id: claim, completion_id: completionId, descriptor: {}, evidence: runEvidence(q.state, dispatchId, 'delivery', q.t, { receipt: 'r-1' }) };
}

/** The reconciler's worker-terminal release of the group (open members cancelled, then the Release). */
function terminalRelease(q: TestQueue, dispatchId: string): { at: number; built: ReturnType<typeof releaseRequest> } {
  const at = q.tick();
  const ev = evidence(q, dispatchId, { kind: 'terminal_run', source: 'github_api', runId: RUN, conclusion: 'cancelled', completed: true }, at);
  return { at, built: releaseRequest(q.state, dispatchId, ev, 'run_terminal', at) };
}

const withOps = (built: ReturnType<typeof releaseRequest>, operations: JsonObject[]) => ({ ...built, operations: operations as never, parameters: { operations } });

describe('§8.2 "Independent finish": only c1 completes and authorizes a Result; c1 survives c2\'s failure (forbidden ledger)', () => {
  it('a Result for the cancelled c2\'s Work is work_not_completed, one naming c2 for c1\'s Work is claim_scope_invalid; c1\'s own Result replays', () => {
    const { q, dispatchId, h1, h2 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    finish(q, dispatchId, h2, 'cancelled');
    const c1Completion = q.state.works.get(h1.workId)!.completionCommit!;
    const forged = (work: string, claim: string) => forge(q, { id: 'result', kind: 'result', actor: reconciler, at: q.tick(), operations: [resultOp(q, dispatchId, work, claim, c1Completion)] });
    expect(byteVerdict(forged(h2.workId, h2.claimId))).toBe('work_not_completed');
    expect(byteVerdict(forged(h2.workId, h1.claimId))).toBe('work_not_completed');
    expect(byteVerdict(forged(h1.workId, h2.claimId))).toBe('claim_scope_invalid');
    expect(byteVerdict(forged(h1.workId, h1.claimId))).toBe('accepted');
  });

  it('a release cancelling the completed c1 is claim_terminal; the release cancelling only c2 replays and c1\'s Result is still accepted after it', () => {
    const { q, dispatchId, h1, h2 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const { at, built } = terminalRelease(q, dispatchId);
    const ops = built.operations as unknown as JsonObject[];
    expect(ops.map((o) => [o.kind, o.claim_id ?? null])).toEqual([['ClaimCancellation', h2.claimId], ['Release', null]]);
    const c1 = { ...ops[0]!, work_id: h1.workId, claim_id: h1.claimId };
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, at, withOps(built, [c1, ...ops])))).toBe('claim_terminal');
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, at, built))).toBe('accepted');
    q.w.publish('release', reconciler, at, built);
    expect(byteVerdict(forgeBuilt(q, 'result', reconciler, q.tick(), result(q.state, h1.workId, {}, q.t, 'r-1')))).toBe('accepted');
  });
});

describe('§8.2 "Effect isolation": c2 effects cannot use c1\'s Completion authorization (forbidden ledger)', () => {
  it('after c1 completes, a child submitted under the open h2 is claim_effects_unauthorized; under h1 it replays', () => {
    const { q, dispatchId, h1, h2 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const child = submitRequest(q.state, [{ node_key: 'child', payload: {} }], { graphId: 'g', at: q.t });
    expect(byteVerdict(forgeBuilt(q, 'child', h2.worker, q.tick(), child))).toBe('claim_effects_unauthorized');
    expect(byteVerdict(forgeBuilt(q, 'child', h1.worker, q.tick(), child))).toBe('accepted');
  });
});

describe('§8.2 "Multi-Claim attribution": missing/foreign selectors fail; settling all but one member never enables automatic attribution (forbidden ledger)', () => {
  it('with h1 settled, h2\'s finish from an actor naming no handle is claim_scope_required (spec 7.14 "Several Claims, selector omitted", even with one Claim left open); h1\'s handle or an unknown one is claim_scope_invalid; h2\'s own replays', () => {
    const { q, dispatchId, h1, h2 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const at = q.tick();
    const built = finishRequest(q.state, { dispatch_id: dispatchId, claim_handle: 'h2', outcome: 'completed' }, at);
    const { claim_handle: _sole, ...unscoped } = h2.worker;
    expect(byteVerdict(forgeBuilt(q, 'finish-h2', unscoped, at, built))).toBe('claim_scope_required');
    for (const actor of [h1.worker, { ...h2.worker, claim_handle: 'h9' }]) {
      expect(byteVerdict(forgeBuilt(q, 'finish-h2', actor, at, built))).toBe('claim_scope_invalid');
    }
    expect(byteVerdict(forgeBuilt(q, 'finish-h2', h2.worker, at, built))).toBe('accepted');
  });

  it('a worker control (submit) naming no handle of the several-Claim dispatch is claim_scope_required as well, even from the completed member\'s run', () => {
    const { q, dispatchId, h1 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const child = submitRequest(q.state, [{ node_key: 'child', payload: {} }], { graphId: 'g', at: q.t });
    const { claim_handle: _omitted, ...unscoped } = h1.worker;
    expect(byteVerdict(forgeBuilt(q, 'child', unscoped, q.tick(), child))).toBe('claim_scope_required');
    expect(byteVerdict(forgeBuilt(q, 'child', h1.worker, q.tick(), child))).toBe('accepted');
  });
});

describe('§8.2 "Accidental run cancellation": worker-terminal recovery cancels only open Claims and grants no rerun authority (forbidden ledger)', () => {
  it('a release leaving the open c2 uncancelled is claims_open', () => {
    const { q, dispatchId, h1 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const { at, built } = terminalRelease(q, dispatchId);
    const releaseOnly = (built.operations as unknown as JsonObject[]).filter((o) => o.kind === 'Release');
    expect(byteVerdict(forgeBuilt(q, 'release', reconciler, at, withOps(built, releaseOnly)))).toBe('claims_open');
  });

  it('a rerun (run attempt 2) finishing h2 is claim_scope_invalid; after the release, the original run\'s Completion of c2 is dispatch_released', () => {
    const { q, dispatchId, h1, h2 } = sharedRun();
    finish(q, dispatchId, h1, 'completed');
    const at = q.tick();
    const built = finishRequest(q.state, { dispatch_id: dispatchId, claim_handle: 'h2', outcome: 'completed' }, at);
    expect(byteVerdict(forgeBuilt(q, 'rerun', { ...h2.worker, run_attempt: 2 }, at, built))).toBe('claim_scope_invalid');
    const release = terminalRelease(q, dispatchId);
    q.w.publish('release', reconciler, release.at, release.built);
    expect(byteVerdict(forgeBuilt(q, 'late', h2.worker, q.tick(), built))).toBe('dispatch_released');
  });
});
