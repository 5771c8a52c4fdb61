/**
 * Regressions found by the ledger fuzzer (tests/fuzz/ledger-fuzz.test.ts). Each edits a
 * checkpoint root's state and reseals it (state_sha256 in the operation and the parameters,
 * then the request fingerprint), so only the rule under test can fail. Before the fixes these
 * replayed, or threw a TypeError, instead of a specific ProtocolError.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { statsView } from '../../cli/views.ts';
import { replayBytes } from '../../tests/support/bytes.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { stateDigest } from './checkpoint.ts';
import { roleMayRequest } from './rules.ts';

const FIXTURE = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/checkpoint.json', import.meta.url);
const present = existsSync(FIXTURE);

type Root = JsonObject & { actor: JsonObject; request: JsonObject & { parameters: JsonObject }; operations: Array<JsonObject & { state: JsonObject }> };

function root(which: 'checkpoint' | 'genesis_checkpoint', edit: (state: JsonObject) => void): string {
  const c = structuredClone((JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, Root[]>)[which]![0]!);
  const op = c.operations[0]!;
  edit(op.state);
  op.state_sha256 = stateDigest(op.state);
  c.request.parameters.state_sha256 = op.state_sha256;
  c.request.fingerprint = requestFingerprint(c.actor, c.request.kind as string, c.request.parameters);
  return `${canonicalize(c as unknown as JsonValue)}\n`;
}

function codeOf(ledger: string): string {
  try {
    const p = replayBytes(ledger);
    statsView(p, 1_000); // the view that crashed must not throw either
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

describe.skipIf(referenceSkip(present))('fuzzer regressions: checkpoint roots', () => {
  it('control: the resealed, unedited roots replay', () => {
    expect(codeOf(root('checkpoint', () => undefined))).toBe('accepted');
    expect(codeOf(root('genesis_checkpoint', () => undefined))).toBe('accepted');
  });

  it('a restored Policy whose pool is not a PoolPolicy (pools.default = "") is checkpoint_invalid (was a TypeError in statsView)', () => {
    expect(codeOf(root('checkpoint', (s) => void ((s.policy as { pools: JsonObject }).pools.default = '')))).toBe('checkpoint_invalid');
  });

  it('a restored Policy with pools = null is checkpoint_invalid (was "Cannot convert undefined or null to object")', () => {
    expect(codeOf(root('genesis_checkpoint', (s) => void ((s.policy as JsonObject).pools = null)))).toBe('checkpoint_invalid');
  });

  it('a restored Policy whose default fairness key lost weight 1 is checkpoint_invalid (the Policy coherence rules apply to a checkpoint too)', () => {
    expect(codeOf(root('checkpoint', (s) => void ((s.policy as { accounting_weights: JsonObject }).accounting_weights[''] = 2)))).toBe('checkpoint_invalid');
  });

  it('a restored Policy whose default_profile names an inherited key ("constructor") is checkpoint_invalid', () => {
    expect(codeOf(root('checkpoint', (s) => {
      const pool = (s.policy as { pools: Record<string, JsonObject> }).pools.default!;
      pool.default_profile = 'constructor';
    }))).toBe('checkpoint_invalid');
  });

  it('a receipt whose actor role is "__proto__" is rejected with a specific code (was "kinds.includes is not a function")', () => {
    const code = codeOf(root('checkpoint', (s) => void ((s.requests as Array<{ actor: JsonObject }>)[1]!.actor.role = '__proto__')));
    expect(code).not.toBe('accepted');
    expect(code).toMatch(/^[a-z_]+$/);
  });
});

describe('role table lookups use own keys only', () => {
  it('roleMayRequest is false for __proto__, constructor and toString', () => {
    for (const role of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) expect(roleMayRequest(role, 'submit')).toBe(false);
    expect(roleMayRequest('producer', 'submit')).toBe(true);
  });
});
