/**
 * Replay is the judge of a Policy worker profile's `workflow` (engine/replay/ops/profile-workflows.ts).
 * The spec is silent and the reference's JSON Schema asks only for an identity, but the reference's
 * replay refuses a profile workflow outside `.github/workflows/` as `policy_invalid`; Fairway's rule
 * is a file directly under `.github/workflows/` ending in `.yml`/`.yaml`, no `..`. Each forbidden
 * ledger is replayed as BYTES through the real framing: a genesis whose Policy is rewritten (a
 * bootstrap submit's fingerprint binds its Work, not its Policy) and a later administrator Policy
 * forged on a drained queue, so only this rule can fail.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { policyRequest } from '../../engine/requests/admin.ts';
import { cancelWork } from '../../engine/requests/lifecycle.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { admin, policyOf, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, forge } from './forbidden.ts';

type Profiles = { pools: { default: { profiles: { default: { workflow: string } } } } };

/** Workflows the rule refuses: outside .github/workflows, deeper than it, not YAML, or with `..`. */
const REFUSED = [
  'README.md',
  'worker.lock.yml',
  '../../../etc/passwd',
  'tools/worker.lock.yml',
  '.github/workflows/../../README.md',
  '.github/workflows/sub/worker.lock.yml',
  '.github/workflows/worker.json',
  '.github/workflows/a..b.lock.yml',
  '.github/workflows/x\\y.yml',
  '.github/workflows/.yml',
];

function withWorkflow(workflow: string): JsonObject {
  const policy = structuredClone(policyOf()) as JsonObject & Profiles;
  policy.pools.default.profiles.default.workflow = workflow;
  return policy;
}

/** A one-commit genesis ledger (Policy + one Work) with its Policy's profile workflow rewritten. */
function genesisWith(workflow: string): Uint8Array {
  const q = new TestQueue(policyOf(), [{ node_key: 'n', payload: {} }]);
  const genesis = JSON.parse(q.text().split('\n')[0]!) as { operations: Array<{ policy: Profiles }> };
  genesis.operations[0]!.policy.pools.default.profiles.default.workflow = workflow;
  return new TextEncoder().encode(`${canonicalize(genesis as unknown as JsonValue)}\n`);
}

/** A drained queue plus one administrator Policy commit for epoch-2 naming `workflow` (written by hand). */
function laterPolicyWith(workflow: string): Uint8Array {
  const q = new TestQueue(policyOf(), [{ node_key: 'n', payload: {} }]);
  q.w.publish('drain', admin, q.tick(), cancelWork([q.workId('n')], 'drain'));
  return forge(q, { id: 'policy-2', kind: 'policy', actor: admin, at: q.tick(), operations: [{ kind: 'Policy', epoch: 'epoch-2', policy: withWorkflow(workflow) }] });
}

/** The builder's refusal (code and field), or 'built'. */
function built(build: () => unknown): { code: string; path?: string } | 'built' {
  try {
    build();
    return 'built';
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, ...(e.path === undefined ? {} : { path: e.path }) };
  }
}

describe('a Policy profile workflow must be a file directly under .github/workflows (policy_invalid)', () => {
  it('control: the genesis and a later Policy naming .github/workflows/worker.lock.yml replay', () => {
    expect(byteVerdict(genesisWith('.github/workflows/worker.lock.yml'))).toBe('accepted');
    expect(byteVerdict(laterPolicyWith('.github/workflows/worker.lock.yml'))).toBe('accepted');
  });

  it('a genesis Policy naming a workflow elsewhere is policy_invalid', () => {
    for (const workflow of REFUSED) expect(byteVerdict(genesisWith(workflow)), workflow).toBe('policy_invalid');
  });

  it('a later administrator Policy naming a workflow elsewhere is policy_invalid', () => {
    for (const workflow of REFUSED) expect(byteVerdict(laterPolicyWith(workflow)), workflow).toBe('policy_invalid');
  });

  it('differs from the reference: an uncompiled .yml/.yaml worker replays (the reference accepts only .lock.yml)', () => {
    for (const workflow of ['.github/workflows/worker.yml', '.github/workflows/worker.yaml']) {
      expect(byteVerdict(genesisWith(workflow)), workflow).toBe('accepted');
      expect(byteVerdict(laterPolicyWith(workflow)), workflow).toBe('accepted');
    }
  });

  it('differs from the reference: a workflow in a subdirectory of .github/workflows is refused (the reference accepts it; launch would dispatch another file)', () => {
    expect(byteVerdict(laterPolicyWith('.github/workflows/sub/worker.lock.yml'))).toBe('policy_invalid');
  });

  it('the Policy builders refuse what replay refuses, naming the field, before anything is written', () => {
    const path = 'pools.default.profiles.default.workflow';
    for (const workflow of REFUSED) {
      expect(built(() => policyRequest('epoch-2', withWorkflow(workflow))), workflow).toEqual({ code: 'policy_invalid', path });
      expect(built(() => bootstrapRequest(withWorkflow(workflow), 'epoch-1', [{ node_key: 'n', payload: {} }], { graphId: 'g', at: 1 })), workflow).toEqual({ code: 'policy_invalid', path });
    }
    expect(built(() => policyRequest('epoch-2', withWorkflow('.github/workflows/worker.yml')))).toBe('built');
  });
});
