/**
 * The one module of contract defaults and limits is the contract: every value of
 * contract.json `defaults` and `limits` it carries, and every Policy builder of the
 * project (engine writer, aw.json settings, demo, simulation) installs exactly these.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { demoPolicy } from '../../lib/demo/policy.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { describeReference, REFERENCE_ROOT } from '../support/reference.ts';
import {
  CONTRACT_LIMITS, DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_CLAIMS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_POOL_LIMIT,
  DEFAULT_PRIORITY, DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits,
} from '../../engine/schema/defaults.ts';

const CONTRACT = new URL('gh-aw/specs/work-queue/fixtures/contract.json', REFERENCE_ROOT);

describeReference(existsSync(CONTRACT), 'contract defaults and limits', () => {
  const contract = JSON.parse(readFileSync(CONTRACT, 'utf8')) as { defaults: Record<string, unknown>; limits: Record<string, number> };

  it('carry every value of contract.json defaults and limits, limits in the table order', () => {
    const { observation_writes_per_gate_epoch, ...limits } = contract.limits;
    expect(Object.entries(CONTRACT_LIMITS)).toEqual(Object.entries({ ...limits, observation_writes: observation_writes_per_gate_epoch }));
    const d = contract.defaults;
    expect({ mode: DEFAULT_MODE, class_weights: [...DEFAULT_CLASS_WEIGHTS], priority: DEFAULT_PRIORITY, max_claims: DEFAULT_MAX_CLAIMS })
      .toEqual({ mode: d.mode, class_weights: d.class_weights, priority: d.priority, max_claims: d.max_claims_per_profile });
    expect([DEFAULT_POOL_LIMIT, DEFAULT_POOL_LIMIT]).toEqual([d.logical_limit, d.native_limit]);
    expect(DEFAULT_RETRY).toEqual({ max_attempts: d.retry_max_attempts, backoff_ms: d.retry_backoff_ms });
    expect(DEFAULT_RECONCILIATION).toEqual({ max_attempts: d.reconciliation_max_attempts, deadline_ms: d.reconciliation_deadline_ms });
    expect(DEFAULT_MAX_OBSERVATION_AGE_MS).toBe(d.max_observation_age_ms);
  });
});

describe('every Policy builder installs the contract defaults', () => {
  const ctx = { repository: 'owner/repo', principal: '1001' };

  it('a fresh limits object per call, in canonical member order', () => {
    const a = defaultLimits();
    expect(Object.keys(a)).toEqual(Object.keys(a).sort());
    a.operations = 1;
    expect(defaultLimits().operations).toBe(256);
  });

  it('the engine writer, aw.json settings and the demo Policy agree with the module', () => {
    const writer = defaultPolicy(ctx) as any;
    const settings = policyFromSettings(defaultWorkQueueSettings(), { ...ctx, profile: { ref: '1'.repeat(40) } }) as any;
    const demo = demoPolicy() as any;
    for (const policy of [writer, settings, demo]) {
      expect(policy.limits).toEqual(defaultLimits());
      expect(policy.class_weights).toEqual([...DEFAULT_CLASS_WEIGHTS]);
      expect(policy.mode).toBe(DEFAULT_MODE);
      expect(policy.pools.default.reconciliation).toEqual(DEFAULT_RECONCILIATION);
      expect(policy.pools.default.retry.max_attempts).toBe(DEFAULT_RETRY.max_attempts);
    }
    for (const policy of [writer, settings]) {
      expect(policy.pools.default).toMatchObject({ logical_limit: DEFAULT_POOL_LIMIT, native_limit: DEFAULT_POOL_LIMIT, max_observation_age_ms: DEFAULT_MAX_OBSERVATION_AGE_MS, retry: DEFAULT_RETRY });
    }
  });

  it('a submission without a priority is admitted at the default priority', () => {
    const w = new LedgerWriter();
    w.publish('genesis', { role: 'producer', ...ctx }, 1000, bootstrapRequest(defaultPolicy(ctx), 'e1', [{ node_key: 'a', payload: {} }], { graphId: 'g', at: 1000 }));
    expect([...w.state.works.values()][0]!.priority).toBe(DEFAULT_PRIORITY);
  });
});
