/**
 * Spec §8.2 scheduling rows as forbidden ledgers: replay re-derives every Claim with the one
 * packer (engine/replay/grant.ts), so a hand-written dispatch_next granting Work the rule says
 * must wait is `claim_not_fair` on the byte path, whatever a builder would have done. Each case
 * writes its honest control on the same prefix; the forged Claim is spelled exactly as the
 * packer spells one (ids from the request id), so only the row's rule can make the difference.
 */
import { describe, expect, it } from 'vitest';
import { claimId, dispatchId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { result } from '../../engine/requests/lifecycle.ts';
import { finishRequest, type BuiltRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { dispatcher, nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { cancelClaims } from '../../engine/lifecycle/release.ts';
import { bind, byteVerdict, completedClaim, evidence, forge, forgeBuilt, grantOne, start, workerOf } from './forbidden.ts';

const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };

/** A one-Claim dispatch_next for `nodeKey`'s Work, spelled as the packer spells its first Claim, forged on the tip. */
function grantOf(q: TestQueue, id: string, nodeKey: string, params: JsonObject = GRANT): Uint8Array {
  const claim = { kind: 'Claim', work_id: q.workId(nodeKey), claim_id: claimId(id, 1), dispatch_id: dispatchId(id, 1), handle: 'h1', observations: [] };
  return forge(q, { id, kind: 'dispatch_next', actor: dispatcher, at: q.tick(), operations: [claim], parameters: params });
}

const dep = (nodeKey: string) => ({ kind: 'work' as const, node_key: nodeKey });
const node = (nodeKey: string, extra: Partial<SubmitNode> = {}): SubmitNode => ({ node_key: nodeKey, payload: { task: nodeKey }, ...extra });

/** Complete the Claim of `nodeKey` (granted, started, bound to `runId`, finished completed). */
function complete(q: TestQueue, runId: string): { workId: string } {
  return completedClaim(q, runId);
}

/** Record the verified Result of `workId` (the reconciler's delivery check). */
function deliver(q: TestQueue, workId: string, receipt: string): void {
  q.w.publish(`result-${receipt}`, reconciler, q.tick(), result(q.state, workId, {}, q.t, receipt));
}

describe('§8.2 "Strict priority": no lower-class grant while a higher class is eligible (forbidden ledger)', () => {
  // Weighted mode (8:4:2:1:1) gives class 5 a turn after class 1's first eight grants; strict never does.
  const queue = (mode: string) => {
    const q = new TestQueue(policyOf({ mode }), [...nodes('hot', 12, '', 1), ...nodes('cold', 1, '', 5)]);
    expect(q.grants(8)).toEqual(nodes('hot', 8, '').map((n) => n.node_key));
    return q;
  };

  it('control: under weighted priority the hand-written class-5 grant after eight class-1 grants is the fair one', () => {
    expect(byteVerdict(grantOf(queue('weighted-priority'), 'lower', 'cold-1'))).toBe('accepted');
  });

  it('under strict priority the same class-5 grant is claim_not_fair while class 1 stays eligible; class 1\'s grant replays', () => {
    const q = queue('strict-priority');
    expect(byteVerdict(grantOf(q, 'lower', 'cold-1'))).toBe('claim_not_fair');
    expect(byteVerdict(grantOf(q, 'higher', 'hot-9'))).toBe('accepted');
  });
});

describe('§8.2 "Default concurrency": claimed Work is skipped (forbidden ledger)', () => {
  it('a second grant of already-claimed Work is claim_not_fair; the next unclaimed Work replays', () => {
    const q = new TestQueue(policyOf(), [node('A'), node('B')]);
    grantOne(q);
    expect(byteVerdict(grantOf(q, 'again', 'A'))).toBe('claim_not_fair');
    expect(byteVerdict(grantOf(q, 'next', 'B'))).toBe('accepted');
  });
});

describe('§8.2 "Capacity": logical open-Claim and native reservation limits hold independently on replay (forbidden ledger)', () => {
  /** A default pool with the given logical and native limits (aw.json sets both from `concurrency`). */
  function limited(logical: number, native: number): TestQueue {
    const policy = policyOf();
    const pool = (policy.pools as Record<string, JsonObject>).default!;
    pool.logical_limit = logical;
    pool.native_limit = native;
    return new TestQueue(policy, [node('A'), node('B')]);
  }

  /** Grant A, start and bind it, and complete its Claim: the logical slot closes, the reservation stays. */
  function completeFirst(q: TestQueue): void {
    const a = grantOne(q);
    start(q, a.dispatchId);
    bind(q, a.dispatchId, '7001');
    const at = q.tick();
    q.w.publish('finish-a', workerOf(a.dispatchId, '7001'), at, finishRequest(q.state, { dispatch_id: a.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at));
  }

  it('logical limit 1 (native 2): a grant beside an open Claim is claim_not_fair; once that Claim completes it replays', () => {
    const q = limited(1, 2);
    grantOne(q);
    expect(byteVerdict(grantOf(q, 'over-logical', 'B'))).toBe('claim_not_fair');
    const r = limited(1, 2);
    completeFirst(r);
    expect(byteVerdict(grantOf(r, 'after-finish', 'B'))).toBe('accepted');
  });

  it('native limit 1 (logical 2): partial finish frees no live worker slot, a grant before Release is claim_not_fair', () => {
    const q = limited(2, 1);
    completeFirst(q);
    expect(byteVerdict(grantOf(q, 'over-native', 'B'))).toBe('claim_not_fair');
  });
});

describe('§8.2 "Ready frontier" / "Result barrier": a dependent receives no Claim before its predecessor\'s verified Result (forbidden ledger)', () => {
  it('granting B after A completed but before A\'s Result is claim_not_fair; after the Result it replays', () => {
    const q = new TestQueue(policyOf(), [node('A'), node('B', { depends_on: [dep('A')] })]);
    const a = complete(q, '7001');
    expect(byteVerdict(grantOf(q, 'early', 'B'))).toBe('claim_not_fair');
    deliver(q, a.workId, 'receipt-a');
    expect(byteVerdict(grantOf(q, 'ready', 'B'))).toBe('accepted');
  });
});

describe('§8.2 "Fork/join": a join waits for every sibling (forbidden ledger)', () => {
  it('granting the join after one of two siblings\' Results is claim_not_fair; after both it replays', () => {
    const q = new TestQueue(policyOf(), [node('L'), node('R'), node('J', { depends_on: [dep('L'), dep('R')] })]);
    const l = complete(q, '7001');
    deliver(q, l.workId, 'receipt-l');
    const r = complete(q, '7002');
    expect(byteVerdict(grantOf(q, 'half', 'J'))).toBe('claim_not_fair');
    deliver(q, r.workId, 'receipt-r');
    expect(byteVerdict(grantOf(q, 'joined', 'J'))).toBe('accepted');
  });
});

describe('§8.2 "Mixed terminal outcomes": a node depending on a cancelled member waits for a future successful attempt (forbidden ledger)', () => {
  it('granting the dependent of a cancelled Claim\'s Work is claim_not_fair; a sibling depending on the completed member replays', () => {
    const q = new TestQueue(policyOf(), [node('C1'), node('C2'), node('N2', { depends_on: [dep('C2')] }), node('N1', { depends_on: [dep('C1')] })]);
    const c1 = complete(q, '7001');
    deliver(q, c1.workId, 'receipt-c1');
    const c2 = grantOne(q);
    start(q, c2.dispatchId);
    bind(q, c2.dispatchId, '7002');
    const at = q.tick();
    q.w.publish('cancel-c2', workerOf(c2.dispatchId, '7002'), at, finishRequest(q.state, { dispatch_id: c2.dispatchId, claim_handle: 'h1', outcome: 'cancelled' }, at));
    expect(byteVerdict(grantOf(q, 'n2', 'N2'))).toBe('claim_not_fair');
    expect(byteVerdict(grantOf(q, 'n1', 'N1'))).toBe('accepted');
  });
});

describe('§8.2 "Agent fault classification": transient failures retry within a finite budget; exhaustion needs WorkCancellation (forbidden ledger)', () => {
  /** A one-Work queue whose only Claim is bound and open; `finish` is the worker's cancelled finish for it. */
  function openClaim(maxAttempts: number): { q: TestQueue; finish: () => { worker: ReturnType<typeof workerOf>; at: number; built: BuiltRequest } } {
    const q = new TestQueue(policyOf({ retry: { max_attempts: maxAttempts, backoff_seconds: 10 } }), [node('A')]);
    const a = grantOne(q);
    start(q, a.dispatchId);
    bind(q, a.dispatchId, '7001');
    const finish = () => {
      const at = q.tick();
      return { worker: workerOf(a.dispatchId, '7001'), at, built: finishRequest(q.state, { dispatch_id: a.dispatchId, claim_handle: 'h1', outcome: 'cancelled' }, at) };
    };
    return { q, finish };
  }

  it('a cancelled finish spending the last attempt without WorkCancellation is retry_exhausted; the builder\'s finish with it replays', () => {
    const { q, finish } = openClaim(1);
    const { worker, at, built } = finish();
    expect(built.operations.map((op) => op.kind)).toEqual(['ClaimCancellation', 'WorkCancellation']);
    const bare = { ...built, operations: built.operations.slice(0, 1) };
    expect(byteVerdict(forgeBuilt(q, 'finish-bare', worker, at, bare))).toBe('retry_exhausted');
    expect(byteVerdict(forgeBuilt(q, 'finish-full', worker, at, built))).toBe('accepted');
  });

  // Spec 7.4: "At exhaustion, publish WorkCancellation rather than leave an immediately retryable
  // poison head"; 7.15: "Permanent attempt exhaustion must use an explicit trusted WorkCancellation".
  // The reference replayer refuses the commit without it ("exhausted Claim must be followed by
  // explicit WorkCancellation", retry_exhausted), whichever request carries the ClaimCancellation.
  it('a reconciler cancel_claim or release spending the last attempt without WorkCancellation in the same commit is retry_exhausted; with it, it replays', () => {
    const { q } = openClaim(1);
    const claim = [...q.state.claims.values()][0]!;
    const at = q.tick();
    const cancel = { kind: 'ClaimCancellation', work_id: claim.workId, claim_id: claim.claimId, reason: 'obsolete', retry_not_before: at + 10_000 };
    const exhaust = { kind: 'WorkCancellation', work_id: claim.workId, reason: 'attempts_exhausted' };
    expect(byteVerdict(forge(q, { id: 'cc-bare', kind: 'cancel_claim', actor: reconciler, at, operations: [cancel] }))).toBe('retry_exhausted');
    expect(byteVerdict(forge(q, { id: 'cc-full', kind: 'cancel_claim', actor: reconciler, at, operations: [cancel, exhaust] }))).toBe('accepted');
    const release = { kind: 'Release', dispatch_id: claim.dispatchId, evidence: evidence(q, claim.dispatchId, { kind: 'terminal_run', source: 'github_api', runId: '7001', conclusion: 'failure', completed: true }, at) };
    expect(byteVerdict(forge(q, { id: 'rel-bare', kind: 'release', actor: reconciler, at, operations: [cancel, release] }))).toBe('retry_exhausted');
    expect(byteVerdict(forge(q, { id: 'rel-full', kind: 'release', actor: reconciler, at, operations: [cancel, exhaust, release] }))).toBe('accepted');
  });

  it('control: a cancel_claim with attempts left needs no WorkCancellation (the Work waits out its backoff)', () => {
    const { q } = openClaim(2);
    const claim = [...q.state.claims.values()][0]!;
    const at = q.tick();
    const cancel = { kind: 'ClaimCancellation', work_id: claim.workId, claim_id: claim.claimId, reason: 'obsolete', retry_not_before: at + 10_000 };
    expect(byteVerdict(forge(q, { id: 'cc', kind: 'cancel_claim', actor: reconciler, at, operations: [cancel] }))).toBe('accepted');
  });

  it('the reconciler\'s cancel_claim builder writes the WorkCancellation on the last attempt, and only then', () => {
    for (const maxAttempts of [1, 2]) {
      const { q } = openClaim(maxAttempts);
      const claim = [...q.state.claims.values()][0]!;
      const at = q.tick();
      const built = cancelClaims(q.state, [claim.claimId], 'obsolete', at);
      expect(built.operations.map((op) => op.kind), `max_attempts ${maxAttempts}`).toEqual(maxAttempts === 1 ? ['ClaimCancellation', 'WorkCancellation'] : ['ClaimCancellation']);
      expect(byteVerdict(forgeBuilt(q, 'cc', reconciler, at, built)), `max_attempts ${maxAttempts}`).toBe('accepted');
    }
  });

  it('after the last attempt no further grant: claim_not_fair; with one attempt left the retry grant replays after the backoff', () => {
    const spent = openClaim(1);
    const s = spent.finish();
    spent.q.w.publish('finish', s.worker, s.at, s.built);
    spent.q.tick(15_000);
    expect(byteVerdict(grantOf(spent.q, 'exhausted', 'A'))).toBe('claim_not_fair');
    const left = openClaim(2);
    const l = left.finish();
    left.q.w.publish('finish', l.worker, l.at, l.built);
    expect(byteVerdict(grantOf(left.q, 'too-early', 'A'))).toBe('claim_not_fair'); // inside the backoff
    left.q.tick(15_000);
    expect(byteVerdict(grantOf(left.q, 'retry', 'A'))).toBe('accepted');
  });
});
