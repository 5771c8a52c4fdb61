/**
 * Quiescence (spec 7.10) is one function returning its blockers: the console lists them
 * (`Projection.quiescence`) and replay refuses a Policy epoch naming the first of the same
 * list (`policy_not_quiescent`).
 */
import { describe, expect, it } from 'vitest';
import { replayBytes } from '../../tests/support/bytes.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import { policyRequest } from '../requests/admin.ts';
import { bootstrapRequest, submitRequest } from '../requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { quiescenceBlockers } from './quiescence.ts';

const REPOSITORY = 'acme/app';
const T0 = 1_700_000_000_000;
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };

/** Two pools, Work admitted into `zeta` before `alpha`; one grant in `zeta`. */
function busyQueue(): { w: LedgerWriter; policy: JsonObject } {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001' });
  const pools = policy.pools as Record<string, JsonObject>;
  pools.zeta = structuredClone(pools.default!);
  pools.alpha = structuredClone(pools.default!);
  w.publish('bootstrap', producer, T0, bootstrapRequest(policy, 'epoch-1', [
    { node_key: 'z1', payload: {}, pool: 'zeta' },
    { node_key: 'z2', payload: {}, pool: 'zeta' },
  ], { graphId: 'gz', at: T0 }));
  w.publish('submit-alpha', producer, T0, submitRequest(w.projection, [{ node_key: 'a1', payload: {}, pool: 'alpha' }], { graphId: 'ga', at: T0 }));
  w.dispatchNext('grant-1', dispatcher, T0 + 1, { pool: 'zeta', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
  return { w, policy };
}

describe('quiescence: one function returning its blockers', () => {
  it('lists every blocker by kind, pools sorted within each (not in admission order)', () => {
    const p = replayBytes(busyQueue().w.text());
    expect(p.quiescence()).toEqual([
      { pool: 'alpha', what: 'pending_work', count: 1, text: 'pool alpha: 1 nonterminal or delivery-pending Work' },
      { pool: 'zeta', what: 'pending_work', count: 2, text: 'pool zeta: 2 nonterminal or delivery-pending Work' },
      { pool: 'zeta', what: 'open_claims', count: 1, text: 'pool zeta: 1 open Claims' },
      { pool: 'zeta', what: 'native_reservations', count: 1, text: 'pool zeta: 1 unreleased native reservations' },
    ]);
    expect(quiescenceBlockers(p.state)).toEqual(p.quiescence());
  });

  it('replay refuses a new epoch naming the first blocker of the same list', () => {
    const { w, policy } = busyQueue();
    let error: unknown;
    try {
      w.publish('policy-2', admin, T0 + 2, policyRequest('epoch-2', policy));
    } catch (e) {
      error = e;
    }
    expect(isProtocolError(error) && error.code).toBe('policy_not_quiescent');
    expect((error as Error).message).toContain('pool alpha has 1 nonterminal or delivery-pending Work');
  });

  it('a drained queue has none', () => {
    const w = new LedgerWriter();
    w.publish('policy-1', admin, T0, policyRequest('epoch-1', defaultPolicy({ repository: REPOSITORY, principal: '1001' })));
    expect(replayBytes(w.text()).quiescence()).toEqual([]);
  });
});
