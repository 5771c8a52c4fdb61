import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeReference } from '../../tests/support/reference.ts';
import type { JsonObject } from '../json.ts';
import { effectContract, verifyDelivery } from './effects.ts';

const FIXTURE = fileURLToPath(new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/effect-contract.json', import.meta.url));

describeReference(existsSync(FIXTURE), 'effect contracts (fixture effect-contract.json, runtime validity)', () => {
  const cases = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Array<{ name: string; contract: unknown; valid: boolean }> }).cases;
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    expect(effectContract({ effect_contract: c.contract as JsonObject }) !== 'invalid').toBe(c.valid);
  });
});

describe('verifyDelivery (spec 7.15)', () => {
  const scope = { dispatchId: 'd', claimId: 'c', runId: '9007199254740993' };
  const r = (outputs: unknown[], complete = true, over: Record<string, unknown> = {}) => ({ schema: 'fairway.delivery/1', dispatch_id: 'd', claim_id: 'c', run_id: '9007199254740993', complete, outputs, ...over });
  const contract = { effect_contract: { version: 1, outputs: [{ type: 'create_issue', min: 1, max: 1 }] } } as unknown as JsonObject;
  it('verifies declared outputs within their cardinality', () => {
    expect(verifyDelivery(scope, contract, r([{ type: 'create_issue', status: 'succeeded', ref: 'a/b#1' }]))).toMatchObject({ verified: true, outputs: [{ type: 'create_issue', ref: 'a/b#1' }] });
  });
  it('a missing receipt is unknown, not proof of no effects', () => {
    expect(verifyDelivery(scope, contract, null)).toEqual({ verified: false, reason: 'receipts_missing', effects: 'unknown' });
  });
  it('any succeeded output of an unverified delivery is partial, with the receipt as evidence', () => {
    expect(verifyDelivery(scope, contract, r([{ type: 'create_issue', status: 'succeeded' }, { type: 'create_issue', status: 'failed' }]))).toMatchObject({ verified: false, effects: 'partial', receipt: expect.stringMatching(/^r_/) });
  });
  it('only a complete receipt with nothing written is none', () => {
    expect(verifyDelivery(scope, contract, r([{ type: 'create_issue', status: 'failed' }]))).toMatchObject({ verified: false, effects: 'none', reason: 'output_failed' });
    expect(verifyDelivery(scope, contract, r([], false))).toMatchObject({ verified: false, effects: 'unknown', reason: 'receipts_incomplete' });
  });
  it('cardinality, undeclared effects and foreign scopes do not verify', () => {
    expect(verifyDelivery(scope, contract, r([]))).toMatchObject({ verified: false, reason: 'output_cardinality' });
    expect(verifyDelivery(scope, contract, r([{ type: 'push', status: 'succeeded' }, { type: 'create_issue', status: 'succeeded' }]))).toMatchObject({ reason: 'undeclared_effects' });
    expect(verifyDelivery(scope, { effect_contract: { kind: 'none' } } as unknown as JsonObject, r([{ type: 'push', status: 'succeeded' }]))).toMatchObject({ reason: 'undeclared_effects' });
    expect(verifyDelivery(scope, contract, r([], true, { run_id: '9007199254740992' }))).toMatchObject({ reason: 'receipts_scope_mismatch' });
  });
  it('a no-write task verifies with an empty complete receipt', () => {
    expect(verifyDelivery(scope, { effect_contract: { kind: 'none' } } as unknown as JsonObject, r([]))).toMatchObject({ verified: true, outputs: [] });
    expect(verifyDelivery(scope, {}, r([]))).toMatchObject({ verified: true });
  });
});
