/**
 * The operating envelope on the byte path (spec 7.17, issue 11 §1 and §3), as forbidden and
 * legal ledgers replayed as BYTES:
 *
 * - a new grant (dispatch_next) is new admission: it may end exactly at the watermark, one byte
 *   past it is `ledger_limit` with the remaining budget in the details;
 * - closure past the watermark (Dispatch lifecycle, finish/Completion, Result, DeliveryFailure,
 *   Release, ClaimCancellation, WorkCancellation, Control) stays accepted inside the reserve, while a new
 *   submit or grant after it is `ledger_limit`;
 * - new admission is held to the watermark and the all-writes bound, not to the contract's
 *   `new_admission` "remaining reserve must not exceed recovery_bytes" (documented divergence);
 * - every write, closure included, keeps ledger + owed reserve ≤ watermark + reserve
 *   (contract `all_writes`);
 * - the per-graph node limit counts Work and distinct Issue/PR gates, a shared gate once per
 *   resource identity and condition, `completed` and `closed` apart (spec 7.16): `resource_limit`
 *   naming `graph_nodes`, the value and the node key.
 *
 * Each ledger is built under placeholder limits with the digit count of the value under test;
 * only the genesis (a bootstrap submit, whose fingerprint binds its Work, not its Policy) is
 * then rewritten, so every record keeps its length and only the rule decides.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { candidateCommitId } from '../../engine/identity/index.ts';
import { isProtocolError, type ProtocolError } from '../../engine/errors.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { ledgerBudget } from '../../engine/replay/ledger-budget.ts';
import { cancelWork, control, deliveryFailure, release, result } from '../../engine/requests/lifecycle.ts';
import { dispatchNextRequest, finishRequest, operationsRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { admin, dispatcher, issue, nodes, policyOf, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { bind, forge, forgeBuilt, grantOne, start, workerOf } from './forbidden.ts';

const encoder = new TextEncoder();
const size = (text: string): number => encoder.encode(text).length;

/** Placeholders: 5-digit watermark, 6-digit reserve, 1-digit graph limit. */
const PLACEHOLDERS = { ledger_bytes: 99999, recovery_bytes: 999999 };

function queue(limits: Record<string, number> = PLACEHOLDERS, bootstrap: SubmitNode[] = nodes('p', 2, 'a', 3, { payload: { pad: 'x'.repeat(3000) } })): TestQueue {
  const policy = policyOf({ accounting_weights: { a: 1 } });
  Object.assign(policy.limits as JsonObject, limits);
  return new TestQueue(policy, bootstrap);
}

/** `text` with the genesis Policy's limits replaced (each new value keeps its placeholder's digit count). */
function withLimits(text: string, limits: Record<string, number>): Uint8Array {
  const lines = text.split('\n');
  const genesis = JSON.parse(lines[0]!) as { operations: Array<{ policy: { limits: Record<string, number> } }> };
  const installed = genesis.operations[0]!.policy.limits;
  for (const [field, value] of Object.entries(limits)) {
    expect(String(value).length, `${field} ${value} keeps the length of ${installed[field]}`).toBe(String(installed[field]).length);
    installed[field] = value;
  }
  lines[0] = canonicalize(genesis as unknown as JsonValue);
  return encoder.encode(lines.join('\n'));
}

function errorOf(bytes: Uint8Array): ProtocolError | null {
  try {
    replayLedger(bytes);
    return null;
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
}

const verdict = (bytes: Uint8Array): string => errorOf(bytes)?.code ?? 'accepted';
const lineCount = (text: string): number => text.split('\n').length - 1;

describe('a new grant is admission: the watermark bounds dispatch_next (ledger_limit)', () => {
  const q = queue();
  const before = size(q.text());
  grantOne(q);
  const text = q.text();
  const after = size(text);

  it('accepts a grant that ends exactly at the watermark and one byte under it', () => {
    expect(after).toBeGreaterThan(9999);
    expect(verdict(withLimits(text, { ledger_bytes: after }))).toBe('accepted');
    expect(verdict(withLimits(text, { ledger_bytes: after + 1 }))).toBe('accepted');
  });

  it('rejects the grant one byte past the watermark, with the remaining budget in the details', () => {
    const e = errorOf(withLimits(text, { ledger_bytes: after - 1 }));
    expect(e?.code).toBe('ledger_limit');
    expect(e?.line).toBe(lineCount(text));
    expect(e?.details).toMatchObject({ limit: 'ledger_bytes', ledger_bytes: after, watermark: after - 1, commit_bytes: after - before, admission_remaining: after - 1 - before });
  });
});

describe('closure uses the reserve past the watermark; new admission does not', () => {
  // Three Claims at the watermark (a fourth Work stays available); then only closure: the first
  // runs start → bind → finish → Result → Release, the second is cancelled and its Work cancelled,
  // the third finishes and gets a DeliveryFailure after exhausted reconciliation, and a Control is
  // recorded.
  const q = queue(PLACEHOLDERS, nodes('p', 4, 'a', 3, { payload: { pad: 'x'.repeat(3000) } }));
  const first = grantOne(q);
  const second = grantOne(q);
  const third = grantOne(q);
  const watermark = size(q.text());
  start(q, first.dispatchId);
  bind(q, first.dispatchId, '777001');
  const at = q.tick();
  q.w.publish('finish-1', workerOf(first.dispatchId, '777001'), at, finishRequest(q.state, { dispatch_id: first.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at));
  q.w.publish('result-1', reconciler, q.tick(), result(q.state, first.workId, { ok: true }, q.t, 'receipt-1'));
  q.w.publish('release-1', reconciler, q.tick(), release(q.state, first.dispatchId, q.t));
  const cancelAt = q.tick();
  q.w.publish('cancel-claim-2', reconciler, cancelAt, operationsRequest('cancel_claim', [{ kind: 'ClaimCancellation', work_id: second.workId, claim_id: second.claimId, reason: 'operator_cancelled', retry_not_before: cancelAt + 30_000 }]));
  q.w.publish('cancel-work-2', admin, q.tick(), cancelWork([second.workId], 'operator_cancelled'));
  start(q, third.dispatchId);
  bind(q, third.dispatchId, '777003');
  const at3 = q.tick();
  q.w.publish('finish-3', workerOf(third.dispatchId, '777003'), at3, finishRequest(q.state, { dispatch_id: third.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at3));
  q.w.publish('failure-3', reconciler, q.tick(), deliveryFailure(q.state, third.workId, q.t, 5));
  q.w.publish('pause', admin, q.tick(), control('grants_paused', false, 'operator_check'));
  const closed = q.text();

  it('accepts Dispatch started/bound, finish, Result, DeliveryFailure, Release, ClaimCancellation, WorkCancellation and a Control past the watermark', () => {
    expect(q.state.works.get(third.workId)!.barrier).toBe('failed');
    expect(size(closed)).toBeGreaterThan(watermark);
    expect(verdict(withLimits(closed, { ledger_bytes: watermark }))).toBe('accepted');
    const budget = ledgerBudget(replayLedger(withLimits(closed, { ledger_bytes: watermark })).state);
    expect(budget.admission_remaining).toBe(0);
    expect(budget.bytes).toBe(size(closed));
  });

  it('refuses a new submit and a new grant after them (ledger_limit), and admits both under a larger watermark', () => {
    const submit = forgeBuilt(q, 'late-submit', producer, q.tick(), submitRequest(q.state, [{ node_key: 'late', payload: {}, fairness_key: 'a' }], { graphId: 'g', at: q.t }));
    const late = new TextDecoder().decode(submit);
    expect(verdict(withLimits(late, { ledger_bytes: watermark }))).toBe('ledger_limit');
    expect(verdict(withLimits(late, { ledger_bytes: 99999 }))).toBe('accepted');

    const grantAt = q.tick();
    const grant = dispatchNextRequest(q.state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: 'late-grant', commitId: candidateCommitId(q.state.tip, 'late-grant') }, grantAt);
    expect(grant.operations.length, 'a Work is still available to grant').toBeGreaterThan(0);
    const granted = new TextDecoder().decode(forgeBuilt(q, 'late-grant', dispatcher, grantAt, grant));
    const e = errorOf(withLimits(granted, { ledger_bytes: watermark }));
    expect(e?.code).toBe('ledger_limit');
    expect(e?.details).toMatchObject({ limit: 'ledger_bytes', admission_remaining: 0 });
    expect(verdict(withLimits(granted, { ledger_bytes: 99999 }))).toBe('accepted');
  });
});

describe('new admission is held to the all-writes bound, not to reserve ≤ recovery_bytes (contract new_admission, second half not enforced)', () => {
  // One bootstrap Work and one submitted Work owe 2 · 55296 = 110592 bytes with the default budgets.
  const q = queue(PLACEHOLDERS, nodes('p', 1, 'a'));
  q.submit(nodes('s', 1, 'a'));
  const text = q.text();
  const owed = ledgerBudget(q.state).reserve;

  it('owes 110592 bytes for two available Works', () => {
    expect(owed).toBe(110592);
  });

  it('admits the Work whose owed reserve is one byte more than recovery_bytes while ledger + reserve fit watermark + reserve (docs/operating-envelope.md)', () => {
    expect(verdict(withLimits(text, { recovery_bytes: owed - 1 }))).toBe('accepted');
    expect(ledgerBudget(replayLedger(withLimits(text, { recovery_bytes: owed - 1 })).state)).toMatchObject({ reserve: owed, reserve_remaining: 0 });
  });
});

describe('every write keeps ledger + owed reserve within watermark + reserve (contract all_writes)', () => {
  // At the watermark, a Control (closure never discharges anything) must still fit the reserve.
  const q = queue(PLACEHOLDERS, nodes('p', 1, 'a', 3, { payload: { pad: 'x'.repeat(9000) } }));
  q.submit(nodes('s', 1, 'a'));
  const watermark = size(q.text());
  q.w.publish('pause', admin, q.tick(), control('admission_paused', true, 'operator_check'));
  const text = q.text();
  const owed = ledgerBudget(q.state).reserve;
  const needed = size(text) + owed - watermark; // the smallest recovery_bytes the Control fits

  it('accepts the Control when bytes + owed reserve equal watermark + reserve exactly, or one byte under', () => {
    expect(watermark).toBeGreaterThan(9999);
    expect(verdict(withLimits(text, { ledger_bytes: watermark, recovery_bytes: needed }))).toBe('accepted');
    expect(verdict(withLimits(text, { ledger_bytes: watermark, recovery_bytes: needed + 1 }))).toBe('accepted');
  });

  it('rejects it when they exceed watermark + reserve by one byte (ledger_limit)', () => {
    const e = errorOf(withLimits(text, { ledger_bytes: watermark, recovery_bytes: needed - 1 }));
    expect(e?.code).toBe('ledger_limit');
    expect(e?.line).toBe(lineCount(text));
  });
});

describe('the per-graph node limit counts Work and distinct Issue/PR gates (spec 7.16, 7.17)', () => {
  const closedIssue = (n: number) => ({ kind: 'issue' as const, condition: 'closed', resource: issue(n) });
  const completedIssue = (n: number) => ({ kind: 'issue' as const, condition: 'completed', resource: issue(n) });
  // Graph h: a → issue 7 completed; b → issue 7 completed (shared), issue 7 closed (distinct
  // condition), issue 8 completed. 2 Work + 3 gates = 5 nodes.
  const graph: SubmitNode[] = [
    { node_key: 'a', payload: {}, fairness_key: 'a', depends_on: [completedIssue(7)] as never },
    { node_key: 'b', payload: {}, fairness_key: 'a', depends_on: [completedIssue(7), closedIssue(7), completedIssue(8)] as never },
  ];
  const q = queue({ ...PLACEHOLDERS, graph_nodes: 9 });
  const submitted = new TextDecoder().decode(forgeBuilt(q, 'gated', producer, q.tick(), submitRequest(q.state, graph, { graphId: 'h', at: q.t })));

  it('admits the graph at exactly 5 nodes and one under the limit', () => {
    expect(verdict(withLimits(submitted, { graph_nodes: 5 }))).toBe('accepted');
    expect(verdict(withLimits(submitted, { graph_nodes: 6 }))).toBe('accepted');
    const state = replayLedger(withLimits(submitted, { graph_nodes: 5 })).state;
    expect(state.graphGates.get('h')?.size).toBe(3);
  });

  it('rejects it one node over, naming graph_nodes, the value and the node key (resource_limit)', () => {
    const e = errorOf(withLimits(submitted, { graph_nodes: 4 }));
    expect(e?.code).toBe('resource_limit');
    expect(e?.details).toMatchObject({ limit: 'graph_nodes', max: 4, value: 5, node_key: 'b', graph_id: 'h', work_nodes: 2, gate_nodes: 3 });
    expect(e?.message).toContain('node b');
    expect(e?.message).toContain('graph_nodes');
  });

  it('counts gates already in the graph: a later node adding one more gate is the one over', () => {
    const q2 = queue({ ...PLACEHOLDERS, graph_nodes: 9 });
    q2.submit(graph, { graphId: 'h' });
    const more = new TextDecoder().decode(forge(q2, {
      id: 'gated-2', kind: 'submit', actor: producer, at: q2.tick(),
      operations: submitRequest(q2.state, [{ node_key: 'c', payload: {}, fairness_key: 'a', depends_on: [closedIssue(7), closedIssue(9)] as never }], { graphId: 'h', at: q2.t }).operations as unknown as JsonObject[],
    }));
    // c adds one Work and one new gate (issue 9 closed; issue 7 closed is shared): 3 + 4 = 7.
    expect(verdict(withLimits(more, { graph_nodes: 7 }))).toBe('accepted');
    const e = errorOf(withLimits(more, { graph_nodes: 6 }));
    expect(e?.details).toMatchObject({ limit: 'graph_nodes', value: 7, node_key: 'c' });
  });

  it('a gate in another graph is counted in that graph only', () => {
    const q3 = queue({ ...PLACEHOLDERS, graph_nodes: 9 });
    q3.submit(graph, { graphId: 'h' });
    q3.submit([{ node_key: 'z', payload: {}, fairness_key: 'a', depends_on: [completedIssue(7)] as never }], { graphId: 'other' });
    expect(q3.state.graphGates.get('other')?.size).toBe(1);
    expect(q3.state.graphGates.get('h')?.size).toBe(3);
  });
});

describe('admission limits name the limit, the value and the node key (spec 7.17 "Validate graph/node/edge/byte limits before a write")', () => {
  function refusal(limits: Record<string, number>, ns: SubmitNode[]): ProtocolError | null {
    const q = queue({ ...PLACEHOLDERS, ...limits }, nodes('p', 1, 'a'));
    return errorOf(forgeBuilt(q, 'over', producer, q.tick(), submitRequest(q.state, ns, { graphId: 'h', at: q.t })));
  }

  it('payload_bytes: one byte over is refused with the value and node key; exactly at the limit is admitted', () => {
    const payload = { s: 'x'.repeat(100) }; // canonical {"s":"xxx…"} = 108 bytes
    expect(refusal({ payload_bytes: 108 }, [{ node_key: 'fat', payload, fairness_key: 'a' }])).toBeNull();
    const e = refusal({ payload_bytes: 107 }, [{ node_key: 'fat', payload, fairness_key: 'a' }]);
    expect(e?.details).toMatchObject({ limit: 'payload_bytes', max: 107, value: 108, node_key: 'fat', graph_id: 'h' });
    expect(e?.message).toContain('node fat');
  });

  it('predecessors: one over is refused with the value and node key; exactly at the limit is admitted', () => {
    const join = (keys: string[]): SubmitNode => ({ node_key: 'join', payload: {}, fairness_key: 'a', depends_on: keys.map((k) => ({ kind: 'work' as const, node_key: k })) as never });
    const parents: SubmitNode[] = [{ node_key: 'x', payload: {}, fairness_key: 'a' }, { node_key: 'y', payload: {}, fairness_key: 'a' }];
    expect(refusal({ predecessors: 2 }, [...parents, join(['x', 'y'])])).toBeNull();
    expect(refusal({ predecessors: 1 }, [...parents, join(['x', 'y'])])?.details).toMatchObject({ limit: 'predecessors', max: 1, value: 2, node_key: 'join' });
  });

  it('pending_nodes: the node one over the pool bound is named', () => {
    const two: SubmitNode[] = [{ node_key: 'n1', payload: {}, fairness_key: 'a' }, { node_key: 'n2', payload: {}, fairness_key: 'a' }];
    expect(refusal({ pending_nodes: 3 }, two)).toBeNull();
    expect(refusal({ pending_nodes: 2 }, two)?.details).toMatchObject({ limit: 'pending_nodes', max: 2, value: 3, node_key: 'n2' });
  });
});
