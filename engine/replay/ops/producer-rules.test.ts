/**
 * Producer entitlements (Policy `producers`; producer-rules.ts) as replay judges them: a submit
 * whose Work lies outside its producer's pools, priorities or fairness keys, or by a principal
 * the Policy does not name, is `producer_not_authorized`, whatever wrote it; a Policy naming no
 * producer lets any producer submit; each Policy epoch is judged by its own entitlements.
 * Every ledger is replayed from bytes through the real framing.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../codec/index.ts';
import { isProtocolError } from '../../errors.ts';
import type { JsonObject, JsonValue } from '../../json.ts';
import { buildCommit } from '../../requests/build.ts';
import { bootstrapRequest, submitRequest, type SubmitNode } from '../../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../../requests/writer.ts';
import type { Actor } from '../../schema/index.ts';
import { replayLedger } from '../index.ts';
import { producerEntitlements } from './producer-rules.ts';

const REPO = 'acme/queue';
const producer = (principal: string): Actor => ({ role: 'producer', principal, repository: REPO });

/** A queue with pools `default` and `batch`, fairness keys '', `t1`, `t2`, and the given producer entitlements. */
function queue(producers: Record<string, { pools: string[]; priorities: number[]; fairness_keys: string[] }>): LedgerWriter {
  const policy = defaultPolicy({ repository: REPO, principal: '1001' }) as JsonObject & { pools: Record<string, JsonValue>; producers: JsonObject; accounting_weights: Record<string, number> };
  policy.pools.batch = policy.pools.default!;
  policy.accounting_weights = { '': 1, t1: 1, t2: 1 };
  policy.producers = producers as unknown as JsonObject;
  const w = new LedgerWriter();
  w.publish('seed', producer('2001'), 1, bootstrapRequest(policy, 'e1', [{ node_key: 'seed', payload: {}, priority: 3, fairness_key: '' }], { graphId: 'g', at: 1 }));
  return w;
}

/** The writer's ledger plus a submit of `node` by `principal` that no builder checked. */
function submitted(w: LedgerWriter, principal: string, node: SubmitNode): Uint8Array {
  const built = submitRequest(w.state, [node], { graphId: 'g', at: 2 });
  const commit = buildCommit(w.state, { id: `submit-${node.node_key}`, kind: built.kind, parameters: built.parameters, actor: producer(principal), at: 2, operations: built.operations });
  return new TextEncoder().encode(w.text() + canonicalize(commit as unknown as JsonValue) + '\n');
}

function verdict(input: Uint8Array): { code: string; message?: string } {
  try {
    replayLedger(input);
    return { code: 'accepted' };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

const ENTITLED = { 2001: { pools: ['default'], priorities: [3, 4], fairness_keys: ['', 't1'] } };

describe('producer entitlements, judged by replay', () => {
  it('accepts Work inside the producer\'s pools, priorities and fairness keys', () => {
    expect(verdict(submitted(queue(ENTITLED), '2001', { node_key: 'a', payload: {}, pool: 'default', priority: 4, fairness_key: 't1' }))).toEqual({ code: 'accepted' });
  });

  it('refuses a principal the Policy names no entitlement for', () => {
    expect(verdict(submitted(queue(ENTITLED), '2002', { node_key: 'a', payload: {}, priority: 3, fairness_key: '' }))).toEqual({ code: 'producer_not_authorized', message: expect.stringContaining('principal 2002 has no producer entitlement') });
  });

  it('refuses Work in a pool outside the entitlement', () => {
    expect(verdict(submitted(queue(ENTITLED), '2001', { node_key: 'a', graph_id: 'g2', payload: {}, pool: 'batch', priority: 3, fairness_key: '' }))).toEqual({ code: 'producer_not_authorized', message: expect.stringContaining('pool batch') });
  });

  it('refuses Work of a priority outside the entitlement', () => {
    expect(verdict(submitted(queue(ENTITLED), '2001', { node_key: 'a', payload: {}, priority: 1, fairness_key: '' }))).toEqual({ code: 'producer_not_authorized', message: expect.stringContaining('priority 1') });
  });

  it('refuses Work under a fairness key outside the entitlement (registered in the Policy)', () => {
    expect(verdict(submitted(queue(ENTITLED), '2001', { node_key: 'a', payload: {}, priority: 3, fairness_key: 't2' }))).toEqual({ code: 'producer_not_authorized', message: expect.stringContaining('"t2"') });
  });

  it('lets any producer submit when the Policy names none', () => {
    expect(verdict(submitted(queue({}), '2999', { node_key: 'a', graph_id: 'g2', payload: {}, pool: 'batch', priority: 1, fairness_key: 't2' }))).toEqual({ code: 'accepted' });
  });

  it('builds one index per Policy value, by own members only', () => {
    const producers = JSON.parse('{"__proto__":{"pools":["p"],"priorities":[2],"fairness_keys":["k"]}}') as JsonObject;
    const index = producerEntitlements(producers as never)!;
    expect(index.get('__proto__')?.pools.has('p')).toBe(true);
    expect(index.get('toString')).toBeUndefined();
    expect(producerEntitlements(producers as never)).toBe(index);
    expect(producerEntitlements({} as never)).toBeNull();
    expect(producerEntitlements(undefined)).toBeNull();
  });
});
