import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import type { ResourceIdentity } from '../state/state.ts';
import { gateState, observationOperation, refreshBudget, type GateFacts } from './observations.ts';
import { referenceSkip } from '../../tests/support/reference.ts';

const FIXTURE = fileURLToPath(new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/observation-refresh-budget.json', import.meta.url));

interface BudgetCase { name: string; operations: number; ledger_bytes: number; ledger_limit: number; requested: number; grants_paused?: boolean; expected?: number; error?: string }

describe('refreshBudget (contract fixture observation-refresh-budget.json)', () => {
  const present = existsSync(FIXTURE);
  const cases: BudgetCase[] = present ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: BudgetCase[] }).cases : [];
  it.skipIf(referenceSkip(present)).each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const run = () => refreshBudget({ operations: c.operations, ledgerBytes: c.ledger_bytes, ledgerLimit: c.ledger_limit, grantsPaused: c.grants_paused, requested: c.requested });
    if (c.error !== undefined) {
      let code: string | undefined;
      try {
        run();
      } catch (e) {
        code = isProtocolError(e) ? e.code : undefined;
      }
      expect(code).toBe(c.error);
    } else expect(run()).toBe(c.expected);
  });
  it('defaults to the contract request of 128', () => {
    expect(refreshBudget({ operations: 256, ledgerBytes: 0, ledgerLimit: 10 })).toBe(128);
  });
});

const issue: ResourceIdentity = { kind: 'issue', host: 'github.com', repository: 'a/b', repository_id: '1', resource_id: '9007199254740993', number: '7' };
const pr: ResourceIdentity = { ...issue, kind: 'pull_request' };

describe('condition semantics (spec 7.16)', () => {
  const ok = (f: Partial<GateFacts>): GateFacts => ({ read_status: 'ok', ...f });
  it.each([
    ['completed', ok({ resource_state: 'closed', state_reason: 'completed' }), 'ready'],
    ['completed', ok({ resource_state: 'closed', state_reason: 'not_planned' }), 'failed'],
    ['completed', ok({ resource_state: 'closed', state_reason: 'duplicate' }), 'failed'],
    ['completed', ok({ resource_state: 'closed', state_reason: null }), 'unknown'],
    ['completed', ok({ resource_state: 'closed' }), 'unknown'],
    ['completed', ok({ resource_state: 'open', state_reason: 'reopened' }), 'waiting'],
    ['closed', ok({ resource_state: 'closed', state_reason: 'not_planned' }), 'ready'],
    ['closed', ok({}), 'unknown'],
    ['closed', { read_status: 'forbidden' } as GateFacts, 'unknown'],
  ] as const)('issue %s with %j is %s', (condition, facts, expected) => {
    expect(gateState({ kind: 'issue', condition, resource: issue }, facts)).toBe(expected);
  });
  it.each([
    [ok({ resource_state: 'closed', merged: true, merge_commit: 'c'.repeat(40) }), 'ready'],
    [ok({ resource_state: 'closed', merged: true, merge_commit: null }), 'unknown'],
    [ok({ resource_state: 'closed', merged: false }), 'failed'],
    [ok({ resource_state: 'open', merged: false }), 'waiting'],
    [ok({ resource_state: 'closed' }), 'unknown'],
    [{ read_status: 'rate_limited' } as GateFacts, 'unknown'],
  ] as const)('pull request merged with %j is %s', (facts, expected) => {
    expect(gateState({ kind: 'pull_request', condition: 'merged', resource: pr }, facts)).toBe(expected);
  });
  it('records only predicate facts, never a satisfying default, and keeps ids lossless', () => {
    const target = { gate: 'x', edge: { kind: 'issue' as const, condition: 'completed' as const, resource: issue } };
    const failed = observationOperation(target, { read_status: 'not_found', resource_state: 'closed', state_reason: 'completed' }, 5, 'gen-2');
    expect(failed).toMatchObject({ state: 'unknown', read_status: 'not_found', credential_generation: 'gen-2', observed_at: 5 });
    expect(failed).not.toHaveProperty('resource_state');
    const dup = observationOperation(target, ok({ resource_state: 'closed', state_reason: 'duplicate' }), 5, 'g');
    expect(dup).toMatchObject({ state: 'failed', resource_state: 'closed' });
    expect(dup).not.toHaveProperty('state_reason'); // outside the wire enum: omitted, not coerced
    expect((failed.resource as unknown as ResourceIdentity).resource_id).toBe('9007199254740993');
    expect(observationOperation(target, ok({ resource_state: 'open' }), 6, 'g').observation_id).not.toBe(observationOperation(target, ok({ resource_state: 'open' }), 7, 'g').observation_id);
  });
});
