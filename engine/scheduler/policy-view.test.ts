/**
 * One pool lookup (scheduler/policy-view.ts `configuredPool`): an unconfigured pool is
 * `unknown_pool` on every path (replay, submit, deploy, observations, release, the CLI and
 * MCP reads) except the planner and packer, whose `pool_invalid` is fixed by their tests
 * and the `explain --pool` acceptance test. Typed reads of the installed Policy need no cast.
 */
import { describe, expect, it } from 'vitest';
import { buildSmallQueue } from '../../tests/support/small-queue.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { isProtocolError, type ProtocolError } from '../errors.ts';
import { candidateGates } from '../lifecycle/observations.ts';
import { installedProfile } from '../lifecycle/deploy.ts';
import { emptyProjection } from '../replay/index.ts';
import { configuredPool, installedPolicy, poolPolicy, policyOrNull } from './policy-view.ts';
import { pack } from './pack.ts';
import { planNext } from './plan.ts';

function errorOf(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
  throw new Error('expected a ProtocolError');
}

describe('the one pool lookup', () => {
  const p = replayBytes(buildSmallQueue().ledger);

  it('answers the typed settings of a configured pool', () => {
    const pool = configuredPool(p.policy, 'default');
    expect(pool.retry.max_attempts).toBeGreaterThan(0);
    expect(pool).toBe(installedPolicy(p).pools.default);
    expect(poolPolicy(p, 'default')).toBe(pool);
  });

  it('names an unconfigured pool unknown_pool, with the caller\'s context and location', () => {
    const e = errorOf(() => configuredPool(p.policy, 'gpu', { context: 'node n1', at: () => ({ commit: 'q1', operation: 0 }) }));
    expect(e.code).toBe('unknown_pool');
    expect(e.message).toBe('node n1: pool gpu is not configured');
    expect([e.commit, e.operation]).toEqual(['q1', 0]);
    // Object.prototype names are ordinary, unconfigured pool names.
    expect(errorOf(() => configuredPool(p.policy, 'constructor')).code).toBe('unknown_pool');
    // No Policy yet: nothing is configured.
    expect(errorOf(() => configuredPool(policyOrNull(emptyProjection()), 'default')).code).toBe('unknown_pool');
  });

  it('the lifecycle builders answer through it (unknown_pool), the planner and packer keep pool_invalid', () => {
    expect(errorOf(() => candidateGates(p, 'gpu', 0)).code).toBe('unknown_pool');
    expect(errorOf(() => installedProfile(p, 'gpu', 'default')).code).toBe('unknown_pool');
    expect(errorOf(() => planNext(p, 'gpu', 0)).code).toBe('pool_invalid');
    expect(errorOf(() => pack(p.state, { requestId: 'r', commitId: 'c', pool: 'gpu', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, 0)).code).toBe('pool_invalid');
  });
});
