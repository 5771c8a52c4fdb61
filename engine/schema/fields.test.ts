/**
 * identity-validation.json and reason-validation.json run through the raw helpers and through
 * the schema fields that use them, so a field wired to the wrong predicate fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeReference } from '../../tests/support/reference.ts';
import type { z } from 'zod';
import { isDecimalId, isIdentity, isReasonCode } from '../identity/validate.ts';
import {
  ActorSchema,
  ClaimCancellationOperationSchema,
  ClaimOperationSchema,
  ControlOperationSchema,
  PoolPolicySchema,
  QueuePolicySchema,
  ResourceSchema,
  RunBindingSchema,
  WorkCancellationOperationSchema,
  WorkOperationSchema,
} from './index.ts';

const FIXTURES = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const present = existsSync(fileURLToPath(new URL('identity-validation.json', FIXTURES)));
const readJson = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;

interface IdentityCase { name: string; text: string; repeat: number; expected_utf8_bytes: number; valid: boolean }
interface DecimalCase { name: string; digits: number; valid: boolean }
interface ReasonCase { name: string; reason: string; valid: boolean }

const actor = { role: 'administrator', principal: '1001', repository: 'owner/repo' };
const work = {
  kind: 'Work', work_id: 'w', graph_id: 'g', node_key: 'n', pool: 'default', priority: 3, fairness_key: '',
  worker_profile: 'default', batch_trust_domain: 'default', payload: {}, depends_on: [], enqueued: 0,
};
const resource = { kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: '2', number: '3' };
const run = { run_id: '1', run_attempt: 1, repository: 'owner/repo', workflow: 'w.yml', ref: 'a'.repeat(40), principal: '1001', event: 'workflow_dispatch' };
const profile = { workflow: 'w.yml', ref: 'a'.repeat(40), principal: '1001', trust_domain: 'd', credential_scope: 'repository', effect_scope: 'owner/repo', max_claims: 1, share_keys: false };
const pool = {
  default_profile: 'default', profiles: { default: profile }, logical_limit: 16, native_limit: 16, allowed_repositories: ['owner/repo'],
  max_observation_age_ms: 60000, retry: { max_attempts: 3, backoff_ms: 30000 }, reconciliation: { max_attempts: 5, deadline_ms: 300000 },
};
const limits = {
  ledger_bytes: 1, recovery_bytes: 1, payload_bytes: 1, graph_nodes: 1, predecessors: 1, pending_nodes: 1, operations: 1,
  assignment_bytes: 1, result_bytes: 1, evidence_bytes: 1, observation_writes: 1,
};
const policy = (producers: Record<string, unknown>) => ({
  mode: 'weighted-priority', class_weights: [8, 4, 2, 1, 1], accounting_weights: { '': 1 }, producers, pools: { default: pool }, limits,
});
const rule = { pools: ['default'], priorities: [3], fairness_keys: [''] };

/** Schema fields typed Identity in the reference schemas: values, and identity-keyed records. */
const identityFields: [string, z.ZodType, (s: string) => unknown][] = [
  ['Actor.repository', ActorSchema, (s) => ({ ...actor, repository: s })],
  ['Work.node_key', WorkOperationSchema, (s) => ({ ...work, node_key: s })],
  ['Work.worker_profile', WorkOperationSchema, (s) => ({ ...work, worker_profile: s })],
  ['Claim.observations[]', ClaimOperationSchema, (s) => ({ kind: 'Claim', work_id: 'w', claim_id: 'c', dispatch_id: 'd', handle: 'h1', observations: [s] })],
  ['Control.value (Identity branch)', ControlOperationSchema, (s) => ({ kind: 'Control', control: 'credential_generation', value: s, reason: 'rotate' })],
  ['PoolPolicy.profiles key', PoolPolicySchema, (s) => ({ ...pool, profiles: { [s]: profile } })],
];

/** Decimal fields: lossless GitHub IDs and principals. */
const decimalFields: [string, z.ZodType, (s: string) => unknown][] = [
  ['Actor.principal', ActorSchema, (s) => ({ ...actor, principal: s })],
  ['Resource.resource_id', ResourceSchema, (s) => ({ ...resource, resource_id: s })],
  ['Resource.number', ResourceSchema, (s) => ({ ...resource, number: s })],
  ['RunBinding.run_id', RunBindingSchema, (s) => ({ ...run, run_id: s })],
  ['QueuePolicy.producers key', QueuePolicySchema, (s) => policy({ [s]: rule })],
];

const reasonFields: [string, z.ZodType, (s: string) => unknown][] = [
  ['Control.reason', ControlOperationSchema, (s) => ({ kind: 'Control', control: 'grants_paused', value: true, reason: s })],
  ['WorkCancellation.reason', WorkCancellationOperationSchema, (s) => ({ kind: 'WorkCancellation', work_id: 'w', reason: s })],
  ['ClaimCancellation.reason', ClaimCancellationOperationSchema, (s) => ({ kind: 'ClaimCancellation', work_id: 'w', claim_id: 'c', reason: s, retry_not_before: 0 })],
];

describeReference(present, 'identity-validation.json (skipped: /work/shared/reference is absent)', () => {
  const fixture = readJson<{ identity: IdentityCase[]; decimal: DecimalCase[] }>('identity-validation.json');

  it.each(fixture.identity.map((c) => [c.name, c] as const))('identity: %s', (_name, c) => {
    const text = c.text.repeat(c.repeat);
    expect(new TextEncoder().encode(text).length).toBe(c.expected_utf8_bytes);
    expect(isIdentity(text)).toBe(c.valid);
    for (const [field, schema, build] of identityFields) {
      expect(schema.safeParse(build(text)).success, field).toBe(c.valid);
    }
  });

  it.each(fixture.decimal.map((c) => [c.name, c] as const))('decimal: %s', (_name, c) => {
    const digits = '1' + '0'.repeat(c.digits - 1);
    expect(isDecimalId(digits)).toBe(c.valid);
    for (const [field, schema, build] of decimalFields) {
      expect(schema.safeParse(build(digits)).success, field).toBe(c.valid);
    }
  });

  it('decimal fields reject a leading zero, zero, a sign and non-digits', () => {
    for (const bad of ['0123', '0', '+1', '-1', '1e3', '12a', '']) {
      expect(isDecimalId(bad), bad).toBe(false);
      for (const [field, schema, build] of decimalFields) expect(schema.safeParse(build(bad)).success, `${field} ${bad}`).toBe(false);
    }
  });
});

describeReference(present, 'reason-validation.json (skipped: /work/shared/reference is absent)', () => {
  const fixture = readJson<{ cases: ReasonCase[] }>('reason-validation.json');

  it.each(fixture.cases.map((c) => [c.name, c] as const))('reason: %s', (_name, c) => {
    expect(isReasonCode(c.reason)).toBe(c.valid);
    for (const [field, schema, build] of reasonFields) {
      expect(schema.safeParse(build(c.reason)).success, field).toBe(c.valid);
    }
  });
});
