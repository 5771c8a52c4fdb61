import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { DependencyEdge } from '../state/state.ts';
import { gateIdentity, type ExternalEdge } from './eligibility.ts';
import { claimMismatch, pack, requestDigest, type DispatchNextRequest } from './pack.ts';
import { planNext } from './plan.ts';
import { buildState, commitPack, nodeKeys, policyFor, workId, type PolicySpec, type WorkSpec } from '../../tests/support/scheduler-state.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const FIXTURES = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const haveFixtures = existsSync(FIXTURES);
const AS_OF = 10_000;

function request(over: Partial<DispatchNextRequest> = {}): DispatchNextRequest {
  return { requestId: 'grant', commitId: 'q_next', pool: 'default', max_claims: 16, max_dispatches: 16, max_bytes: 49152, ...over };
}

function code(run: () => unknown): string {
  try {
    run();
    return 'none';
  } catch (e) {
    return isProtocolError(e) ? e.code : 'other';
  }
}

interface SelectionCase {
  name: string;
  mode: 'weighted-priority' | 'strict-priority';
  class_weights: number[];
  accounting_weights: Record<string, number>;
  nodes: { key: string; priority: number; account: string; profile: string; enqueued: number }[];
  max_claims: number;
  max_dispatches: number;
  profile_max: number;
  share_keys: boolean;
  expected: string[];
  reason: string;
}

describe.skipIf(referenceSkip(haveFixtures))('selection.json fixtures (reference conformance)', () => {
  const cases = haveFixtures ? (JSON.parse(readFileSync(new URL('selection.json', FIXTURES), 'utf8')) as SelectionCase[]) : [];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const profiles: PolicySpec['profiles'] = {};
    for (const n of c.nodes) profiles[n.profile] = { max_claims: c.profile_max, share_keys: c.share_keys };
    const policy = policyFor({ mode: c.mode, class_weights: c.class_weights, accounting_weights: c.accounting_weights, profiles });
    const state = buildState(
      policy,
      c.nodes.map((n) => ({ key: n.key, priority: n.priority, account: n.account, profile: n.profile, enqueued: n.enqueued })),
    );
    const result = pack(state, request({ max_claims: c.max_claims, max_dispatches: c.max_dispatches }), AS_OF);
    expect(nodeKeys(state, result)).toEqual(c.expected);
    expect(result.stopReason).toBe(c.reason);
  });
});

describe.skipIf(referenceSkip(haveFixtures))('canonical-prefix grant q3 (reference conformance)', () => {
  it('reproduces the committed Claims and the exact assignment, measured canonically', () => {
    const fixture = JSON.parse(readFileSync(new URL('canonical-prefix.json', FIXTURES), 'utf8')) as {
      commits: { id: string; at: number; operations: JsonObject[]; request: { id: string; parameters: JsonObject } }[];
      assignment: JsonObject;
    };
    const q0 = fixture.commits[0]!;
    const policy = q0.operations[0]!.policy as JsonObject;
    const q1 = fixture.commits[1]!;
    const specs: WorkSpec[] = q1.operations.map((op) => ({
      key: op.node_key as string,
      payload: op.payload as JsonObject,
      dependsOn: op.depends_on as unknown as DependencyEdge[],
    }));
    const state = buildState(policy, specs);
    const obs = fixture.commits[2]!.operations[0]!;
    const edge = specs[1]!.dependsOn![0]!;
    const gate = edge.kind === 'work' ? '' : gateIdentity(edge);
    state.observations.set('o1', {
      observationId: 'o1',
      commitId: 'q2',
      gate,
      condition: 'completed',
      state: 'ready',
      observedAt: obs.observed_at as number,
      credentialGeneration: 'initial',
      readStatus: 'ok',
      operation: obs,
    });
    state.latestObservation.set(gate, 'o1');
    const q3 = fixture.commits[3]!;
    const params = q3.request.parameters as { pool: string; max_claims: number; max_dispatches: number; max_bytes: number };
    const result = pack(state, { requestId: q3.request.id, commitId: q3.id, ...params }, q3.at);
    expect(claimMismatch(result.claims, q3.operations as JsonValue[])).toBeNull();
    expect(result.claims as unknown as JsonObject[]).toEqual(q3.operations);
    expect(result.groups).toHaveLength(1);
    expect(result.groups[0]!.assignment).toEqual(fixture.assignment);
    expect(result.groups[0]!.bytes).toBe(Buffer.byteLength(canonicalize(fixture.assignment), 'utf8'));
    expect(result.stopReason).toBe('claim_budget_reached');
    commitPack(state, result);
    const next = planNext(state, 'default', q3.at);
    expect(next.selected ? next.work.nodeKey : next.reason).toBe('no_eligible_work'); // prefix q3 of the fixture
  });
});

describe('fair-prefix packing (spec 7.3, 7.14)', () => {
  it('identities: c_/d_ + sha256(request id) + 1-based indexes, handles per group', () => {
    const state = buildState(policyFor({ profiles: { default: { max_claims: 2 } } }), [{ key: 'a' }, { key: 'b' }, { key: 'c' }]);
    const result = pack(state, request({ requestId: 'r-1' }), AS_OF);
    const h = requestDigest('r-1');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(result.claims.map((c) => [c.claim_id, c.dispatch_id, c.handle])).toEqual([
      [`c_${h}_1`, `d_${h}_1`, 'h1'],
      [`c_${h}_2`, `d_${h}_1`, 'h2'],
      [`c_${h}_3`, `d_${h}_2`, 'h1'],
    ]);
    expect(result.stopReason).toBe('prefix_complete');
    expect(result.transitions).toHaveLength(3);
  });

  it('X/Y/X under a one-dispatch budget admits only the first X; Y stays the next winner and nothing of Y is charged', () => {
    const state = buildState(policyFor({ profiles: { x: { max_claims: 16 }, y: { max_claims: 16 } } }), [
      { key: 'x1', profile: 'x' },
      { key: 'y1', profile: 'y' },
      { key: 'x2', profile: 'x' },
    ]);
    const result = pack(state, request({ max_dispatches: 1 }), AS_OF);
    expect(nodeKeys(state, result)).toEqual(['x1']);
    expect(result.stopReason).toBe('dispatch_budget_blocked');
    expect(result.next.selected && result.next.work.nodeKey).toBe('y1');
    commitPack(state, result);
    expect(state.outstandingClaims.get('default')).toBe(1);
    expect(state.fairness.pools.get('default')!.keys.get(3)!.v).toBe(1n); // one charge only
    const again = planNext(state, 'default', AS_OF);
    expect(again.selected && again.work.nodeKey).toBe('y1');
  });

  it('different fairness keys share a group only when the profile allows share_keys', () => {
    const works: WorkSpec[] = [{ key: 'a1', account: 'a' }, { key: 'b1', account: 'b' }, { key: 'a2', account: 'a' }];
    const weights = { '': 1, a: 1, b: 1 };
    const separate = buildState(policyFor({ accounting_weights: weights, profiles: { default: { max_claims: 8 } } }), works);
    const r1 = pack(separate, request(), AS_OF);
    expect(r1.groups.map((g) => g.claim_ids.length)).toEqual([2, 1]);
    expect(r1.groups.map((g) => g.fairness_key)).toEqual(['a', 'b']);
    const shared = buildState(policyFor({ accounting_weights: weights, profiles: { default: { max_claims: 8, share_keys: true } } }), works);
    expect(pack(shared, request(), AS_OF).groups.map((g) => g.claim_ids.length)).toEqual([3]);
  });

  it('a Work outside its profile trust domain never joins a group', () => {
    const state = buildState(policyFor({ profiles: { default: { max_claims: 8 } } }), [
      { key: 'a' },
      { key: 'odd', trustDomain: 'other' },
      { key: 'b' },
    ]);
    const result = pack(state, request(), AS_OF);
    expect(result.groups.map((g) => g.claim_ids.map((id) => result.claims.find((c) => c.claim_id === id)!.work_id))).toEqual([
      [workId('a'), workId('b')],
      [workId('odd')],
    ]);
  });

  it('the earliest compatible group includes the byte fit', () => {
    const big = { blob: 'x'.repeat(600) };
    const state = buildState(policyFor({ profiles: { default: { max_claims: 8 } } }), [
      { key: 'a', payload: big },
      { key: 'b', payload: big },
      { key: 'c', payload: { small: 1 } },
    ]);
    const one = pack(state, request({ max_claims: 1 }), AS_OF).groups[0]!.bytes;
    expect(one).toBeGreaterThan(700);
    const result = pack(state, request({ max_bytes: one + 260 }), AS_OF);
    // b does not fit after a, so it opens group 2; c still fits in group 1, the earliest.
    expect(result.groups.map((g) => g.claim_ids.length)).toEqual([2, 1]);
    expect(result.claims.map((c) => [c.dispatch_id.slice(-2), c.handle])).toEqual([['_1', 'h1'], ['_2', 'h1'], ['_1', 'h2']]);
    for (const g of result.groups) expect(g.bytes).toBe(Buffer.byteLength(canonicalize(g.assignment), 'utf8'));
    expect(result.groups.every((g) => g.bytes <= one + 260)).toBe(true);
  });

  it('assignment_bytes_blocked when the winner cannot fit even alone', () => {
    const state = buildState(policyFor(), [{ key: 'a', payload: { blob: 'x'.repeat(800) } }, { key: 'b' }]);
    const result = pack(state, request({ max_bytes: 500 }), AS_OF);
    expect(result.claims).toEqual([]);
    expect(result.stopReason).toBe('assignment_bytes_blocked');
    expect(pack(state, request({ max_bytes: 500 }), AS_OF).transitions).toEqual([]);
  });

  it('native_capacity_blocked when no native reservation remains for a new group', () => {
    const state = buildState(policyFor({ native_limit: 3 }), [{ key: 'a' }, { key: 'b' }, { key: 'c' }]);
    state.outstandingNative.set('default', 2);
    const result = pack(state, request(), AS_OF);
    expect(nodeKeys(state, result)).toEqual(['a']);
    expect(result.stopReason).toBe('native_capacity_blocked');
  });

  it('capacity_blocked mid-prefix at the logical limit; per-account limits cut only their key', () => {
    const capped = buildState(policyFor({ logical_limit: 2 }), [{ key: 'a' }, { key: 'b' }, { key: 'c' }]);
    const r = pack(capped, request(), AS_OF);
    expect(nodeKeys(capped, r)).toEqual(['a', 'b']);
    expect(r.stopReason).toBe('capacity_blocked');
    const account = buildState(policyFor({ per_account_limit: 1, accounting_weights: { '': 1, t: 1 } }), [
      { key: 't1', account: 't' },
      { key: 't2', account: 't' },
      { key: 'd1' },
    ]);
    const r2 = pack(account, request(), AS_OF);
    expect(nodeKeys(account, r2)).toEqual(['d1', 't1']); // '' sorts before 't'
    expect(r2.stopReason).toBe('no_eligible_work');
  });

  it('preceding Observations count against the operation budget', () => {
    const state = buildState(policyFor({ operations: 10 }), Array.from({ length: 12 }, (_, i) => ({ key: `w${i}` })));
    const r = pack(state, request({ precedingOperations: 7 }), AS_OF);
    expect(r.claims).toHaveLength(3);
    expect(r.stopReason).toBe('operation_budget_reached');
    const full = pack(state, request({ precedingOperations: 10 }), AS_OF);
    expect(full.claims).toHaveLength(0);
    expect(full.stopReason).toBe('operation_budget_blocked');
    expect(pack(state, request({ max_claims: 2 }), AS_OF).stopReason).toBe('claim_budget_reached');
  });

  it('no-grant outcomes pass through: no_work, no_eligible_work, grants_paused', () => {
    expect(pack(buildState(policyFor()), request(), AS_OF).stopReason).toBe('no_work');
    const waiting = buildState(policyFor(), [{ key: 'a', retryNotBefore: AS_OF + 1 }]);
    expect(pack(waiting, request(), AS_OF).stopReason).toBe('no_eligible_work');
    waiting.controls.grants_paused = true;
    expect(pack(waiting, request(), AS_OF).stopReason).toBe('grants_paused');
  });

  it('carries verified Result inputs as result_refs and the bound observations on the Claim', () => {
    const edge: ExternalEdge = {
      kind: 'issue',
      condition: 'closed',
      resource: { kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: '5', number: '5' },
    };
    const state = buildState(policyFor(), [
      { key: 'p', state: 'completed', barrier: 'verified' },
      { key: 'c', dependsOn: [{ kind: 'work', work_id: workId('p') }, edge] },
    ]);
    const gate = gateIdentity(edge);
    state.observations.set('o9', {
      observationId: 'o9',
      commitId: 'q5',
      gate,
      condition: 'closed',
      state: 'ready',
      observedAt: AS_OF,
      credentialGeneration: 'initial',
      readStatus: 'ok',
      operation: { resource_state: 'closed' },
    });
    state.latestObservation.set(gate, 'o9');
    const r = pack(state, request(), AS_OF);
    expect(r.claims[0]!.observations).toEqual(['o9']);
    const member = (r.groups[0]!.assignment.claims as JsonObject[])[0]!;
    expect(member.result_refs).toEqual([{ work_id: workId('p'), result_commit_id: 'r_p', descriptor: { ok: true } }]);
  });

  it('validates request parameters', () => {
    const state = buildState(policyFor(), [{ key: 'a' }]);
    expect(code(() => pack(state, request({ max_claims: 0 }), AS_OF))).toBe('request_invalid');
    expect(code(() => pack(state, request({ max_dispatches: 257 }), AS_OF))).toBe('request_invalid');
    expect(code(() => pack(state, request({ max_bytes: 49153 }), AS_OF))).toBe('request_invalid');
    expect(code(() => pack(state, request({ precedingOperations: 257 }), AS_OF))).toBe('request_invalid');
    expect(code(() => pack(state, request({ pool: 'nope' }), AS_OF))).toBe('pool_invalid');
  });

  it('claimMismatch locates the first differing Claim field', () => {
    const state = buildState(policyFor(), [{ key: 'a' }, { key: 'b' }]);
    const r = pack(state, request(), AS_OF);
    const committed = r.claims.map((c) => ({ ...c, observations: [...c.observations] })) as unknown as JsonValue[];
    expect(claimMismatch(r.claims, committed)).toBeNull();
    (committed[1] as JsonObject).work_id = workId('a');
    expect(claimMismatch(r.claims, committed)).toEqual({ index: 1, field: 'work_id' });
    expect(claimMismatch(r.claims, committed.slice(0, 1))).toEqual({ index: 1, field: 'count' });
  });
});
