/**
 * Deployment semantics in replay (spec 7.10 "Stable obligations and evolving execution";
 * issue 16 §1). Every forbidden ledger is built with the real request builders, sealed
 * (fingerprint, candidate commit id) so that only the rule under test fails, and replayed
 * as bytes through the real framing.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint, workId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { deploymentPlan } from '../lifecycle/deploy.ts';
import { buildCommit, commitOn } from '../requests/build.ts';
import { dispatchBound, dispatchStarted } from '../requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, operationsRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import { parseQueueCommit, type Actor, type QueueCommit } from '../schema/index.ts';
import { clockView } from '../scheduler/clocks.ts';
import { eligibility } from '../scheduler/eligibility.ts';
import { buildCheckpointCommit } from './checkpoint.ts';
import { replayLedger } from './index.ts';
import { AUTHORITY_FIELDS, installedContract, workerRoute } from './ops/deployment.ts';
import { currentRevision } from '../state/routes.ts';
import { expectDefinitionsOf, replayCountingDefinitionReads } from '../../tests/support/definitions.ts';

const REPOSITORY = 'acme/queue';
const T0 = 1_700_000_000_000;
const REF_A = 'a'.repeat(40);
const REF_B = 'b'.repeat(40);
const REF_C = 'c'.repeat(40);
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };
const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };

function policy(): JsonObject {
  const p = defaultPolicy({ repository: REPOSITORY, principal: '1001', maxClaims: 1 });
  const profiles = (p.pools as Record<string, JsonObject>).default!.profiles as Record<string, JsonObject>;
  profiles.default!.ref = REF_A;
  return p;
}

/** Genesis with two pending Work items (nonterminal: a Policy epoch could not be installed now). */
function queue(): LedgerWriter {
  const w = new LedgerWriter();
  w.publish('bootstrap', producer, T0, bootstrapRequest(policy(), 'epoch-1', [{ node_key: 'first', payload: { n: 1 } }, { node_key: 'second', payload: { n: 2 } }], { graphId: 'g', at: T0 }));
  return w;
}

function installed(w: LedgerWriter): JsonObject {
  return ((w.state.policy!.policy.pools as Record<string, JsonObject>).default!.profiles as Record<string, JsonObject>).default!;
}

/** A Deployment that the current route accepts (correct CAS, installed authority at `ref`), then `edit`. */
function deployment(w: LedgerWriter, ref: string, edit: (op: JsonObject & { profile: JsonObject }) => void = () => undefined): JsonObject {
  const route = workerRoute(w.state, 'default', 'default')!;
  const op = {
    kind: 'Deployment', pool: 'default', worker_profile: 'default', expected_ref: route.currentRef, expected_contract: currentRevision(route).contract,
    profile: { ...installed(w), ref }, available: true, reason: 'worker_deployed',
  } as JsonObject & { profile: JsonObject };
  edit(op);
  return op;
}

/** The sealed candidate line for `built` on `w`'s tip, without validating it. */
function line(w: LedgerWriter, id: string, actor: Actor, at: number, built: BuiltRequest): string {
  return `${canonicalize(buildCommit(w.state, { id, kind: built.kind, parameters: built.parameters, actor, at, operations: built.operations }) as unknown as JsonValue)}\n`;
}

function outcome(text: string): { code: string; details?: JsonValue } {
  try {
    replayLedger(new TextEncoder().encode(text));
  } catch (e) {
    if (isProtocolError(e)) return { code: e.code, details: (e as { details?: JsonValue }).details };
    throw e;
  }
  return { code: 'accepted' };
}

const codeOf = (text: string) => outcome(text).code;
const control = (op: JsonObject) => operationsRequest('control', [op]);

describe('Deployment authorization: only an authorized operator derives one, in a control request', () => {
  it('accepts a compatible Deployment in an administrator control request (the control case)', () => {
    const w = queue();
    expect(codeOf(w.text() + line(w, 'deploy', admin, T0 + 1, control(deployment(w, REF_B))))).toBe('accepted');
  });

  it("rejects a producer's submit that carries a Deployment (deployment_not_authorized)", () => {
    const w = queue();
    const submit = submitRequest(w.state, [{ node_key: 'third', payload: { n: 3 } }], { graphId: 'g', at: T0 + 1 });
    expect(codeOf(w.text() + line(w, 'submit-2', producer, T0 + 1, submit))).toBe('accepted');
    // Parameters bind only the nodes, so the fingerprint still holds: only the Deployment rule fails.
    const widened = { ...submit, operations: [...submit.operations, deployment(w, REF_B) as never] };
    expect(codeOf(w.text() + line(w, 'submit-2', producer, T0 + 1, widened))).toBe('deployment_not_authorized');
    expect(codeOf(w.text() + line(w, 'submit-2', admin, T0 + 1, widened))).toBe('deployment_not_authorized');
  });

  it("rejects a Deployment ahead of a dispatcher's dispatch_next Claims (deployment_not_authorized)", () => {
    const w = queue();
    const grant = w.dispatchNext('probe', dispatcher, T0 + 1, GRANT).built;
    const fresh = queue();
    const plan = { kind: 'dispatch_next', parameters: { ...GRANT }, operations: [deployment(fresh, REF_B) as never, ...grant.operations] };
    expect(codeOf(fresh.text() + line(fresh, 'probe', dispatcher, T0 + 1, plan))).toBe('deployment_not_authorized');
  });

  it.each(['producer', 'dispatcher', 'worker', 'reconciler'] as const)('rejects a %s control request carrying a Deployment (role_not_allowed)', (role) => {
    const w = queue();
    const actor: Actor = role === 'worker'
      ? { role, principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: '7', run_attempt: 1 }
      : { ...admin, role };
    expect(codeOf(w.text() + line(w, 'deploy', actor, T0 + 1, control(deployment(w, REF_B))))).toBe('role_not_allowed');
  });
});

describe('Deployment compare-and-set of the current ref and contract', () => {
  it('rejects a zero expected_contract with the right expected_ref (deployment_conflict)', () => {
    const w = queue();
    const op = deployment(w, REF_B, (o) => (o.expected_contract = '0'.repeat(64)));
    const { code, details } = outcome(w.text() + line(w, 'deploy', admin, T0 + 1, control(op)));
    expect(code).toBe('deployment_conflict');
    expect(details).toMatchObject({ current_ref: REF_A, current_contract: installedContract(installed(w)) });
  });

  it('rejects the loser of two concurrent Deployments: it cannot retarget the winner (deployment_conflict)', () => {
    const w = queue();
    const toB = deployment(w, REF_B);
    const toC = deployment(w, REF_C); // built from the same route as toB
    w.publish('deploy-b', admin, T0 + 1, control(toB));
    expect(codeOf(w.text() + line(w, 'deploy-c', admin, T0 + 2, control(toC)))).toBe('deployment_conflict');
    expect(codeOf(w.text() + line(w, 'deploy-c', admin, T0 + 2, control(deployment(w, REF_C))))).toBe('accepted');
  });

  it('rejects a Deployment of a profile the Policy does not install (unknown_profile)', () => {
    const w = queue();
    const op = deployment(w, REF_B, (o) => (o.worker_profile = 'gpu'));
    expect(codeOf(w.text() + line(w, 'deploy', admin, T0 + 1, control(op)))).toBe('unknown_profile');
  });
});

describe('Deployment never changes installed authority', () => {
  it('rejects the authority-widening Deployment of issue 16: workflow, principal, scopes, max_claims 16, share_keys (deployment_authority_changed)', () => {
    const w = queue();
    const op = deployment(w, REF_B, (o) => {
      Object.assign(o.profile, {
        workflow: '.github/workflows/admin.lock.yml', principal: '9999', credential_scope: 'organization', effect_scope: 'acme/*', max_claims: 16, share_keys: true,
      });
    });
    const { code, details } = outcome(w.text() + line(w, 'deploy', admin, T0 + 1, control(op)));
    expect(code).toBe('deployment_authority_changed');
    expect(details).toEqual({ fields: ['workflow', 'principal', 'credential_scope', 'effect_scope', 'max_claims', 'share_keys'] });
  });

  const changes: Record<(typeof AUTHORITY_FIELDS)[number], JsonValue> = {
    workflow: '.github/workflows/other.lock.yml', principal: '2002', trust_domain: 'gpu', credential_scope: 'organization',
    effect_scope: 'acme/other', max_claims: 2, share_keys: true,
  };
  it.each(AUTHORITY_FIELDS)('rejects a Deployment that changes only %s (deployment_authority_changed)', (field) => {
    const w = queue();
    const op = deployment(w, REF_B, (o) => (o.profile[field] = changes[field]));
    expect(outcome(w.text() + line(w, 'deploy', admin, T0 + 1, control(op)))).toEqual({ code: 'deployment_authority_changed', details: { fields: [field] } });
  });

  it('rejects a Deployment that omits the installed principal (deployment_authority_changed)', () => {
    const w = queue();
    const op = deployment(w, REF_B, (o) => delete o.profile.principal);
    expect(outcome(w.text() + line(w, 'deploy', admin, T0 + 1, control(op)))).toEqual({ code: 'deployment_authority_changed', details: { fields: ['principal'] } });
  });

  it('rejects re-registering an immutable revision with another logical contract (deployment_revision_immutable)', () => {
    const w = queue();
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B, (o) => (o.profile.logical_contract = 'e'.repeat(64)))));
    w.publish('deploy-c', admin, T0 + 2, control(deployment(w, REF_C)));
    const back = deployment(w, REF_B); // B again, now with the derived contract
    expect(codeOf(w.text() + line(w, 'back', admin, T0 + 3, control(back)))).toBe('deployment_revision_immutable');
    back.profile = { ...(back.profile as JsonObject), logical_contract: 'e'.repeat(64) };
    expect(codeOf(w.text() + line(w, 'back', admin, T0 + 3, control(back)))).toBe('accepted');
  });
});

describe('activate: false updates a registered historical revision only', () => {
  it('rejects activate: false naming an unregistered revision (deployment_revision_unregistered)', () => {
    const w = queue();
    const op = deployment(w, REF_C, (o) => Object.assign(o, { activate: false, available: false }));
    expect(codeOf(w.text() + line(w, 'old', admin, T0 + 1, control(op)))).toBe('deployment_revision_unregistered');
  });

  it('makes a registered historical revision unavailable without moving or pausing the current route', () => {
    const w = queue();
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B)));
    w.publish('retire-a', admin, T0 + 2, control(deployment(w, REF_A, (o) => Object.assign(o, { activate: false, available: false, reason: 'retired' }))));
    const route = workerRoute(w.state, 'default', 'default')!;
    expect(route.currentRef).toBe(REF_B);
    expect([...route.revisions].map(([ref, r]) => [ref, r.available])).toEqual([[REF_A, false], [REF_B, true]]);
    const { commit } = w.dispatchNext('grant', dispatcher, T0 + 3, GRANT);
    expect(commit).not.toBeNull();
    expect([...w.state.dispatches.values()][0]!.profile.ref).toBe(REF_B);
    expect(codeOf(w.text())).toBe('accepted');
  });

  it('rejects activate: false naming the current revision (deployment_revision_current)', () => {
    const w = queue();
    const op = deployment(w, REF_A, (o) => Object.assign(o, { activate: false, available: false }));
    expect(codeOf(w.text() + line(w, 'pause-current', admin, T0 + 1, control(op)))).toBe('deployment_revision_current');
  });
});

describe('compatible deployment: prospective, drain-free, frozen groups keep their profile', () => {
  it('moves future Work to the new revision without draining while the running group keeps its frozen profile (DispatchRecord.profile)', () => {
    const w = queue();
    const first = w.dispatchNext('grant-1', dispatcher, T0 + 1, GRANT);
    const g1 = first.built.plan.groups[0]!.dispatch_id;
    w.publish('start-1', dispatcher, T0 + 2, dispatchStarted(g1, dispatcher as unknown as JsonObject));
    w.publish('bind-1', reconciler, T0 + 3, dispatchBound(w.state, g1, '9001', T0 + 3));
    const passes = JSON.stringify(clockView(w.state.fairness, 'default'));
    const epoch = w.state.policy!.epoch;

    // Nonterminal Work and an open reservation: a Policy epoch would be policy_not_quiescent here.
    w.publish('deploy-b', admin, T0 + 4, control(deployment(w, REF_B)));
    expect(w.state.policy!.epoch).toBe(epoch);
    expect(JSON.stringify(clockView(w.state.fairness, 'default'))).toBe(passes);
    expect(installed(w).ref).toBe(REF_A); // the installed Policy is not rewritten

    // The running group still completes under its frozen binding at REF_A.
    const claim = w.state.claims.get(w.state.dispatches.get(g1)!.claimIds[0]!)!;
    const worker: Actor = { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: '9001', run_attempt: 1, dispatch_id: g1, claim_handle: claim.handle };
    w.publish('finish-1', worker, T0 + 5, finishRequest(w.state, { dispatch_id: g1, claim_handle: claim.handle, outcome: 'completed' }, T0 + 5));

    const second = w.dispatchNext('grant-2', dispatcher, T0 + 6, GRANT);
    const g2 = second.built.plan.groups[0]!.dispatch_id;
    const replayed = replayLedger(new TextEncoder().encode(w.text())).state;
    expect(replayed.dispatches.get(g1)!.profile).toEqual({ ...installed(w), ref: REF_A });
    expect(replayed.dispatches.get(g2)!.profile).toEqual({ ...installed(w), ref: REF_B });
    expect(replayed.works.get(claim.workId)!.state).toBe('completed');
  });

  it('an unavailable current revision pauses its Work (deployment_unavailable) without consuming a Claim or attempt', () => {
    const w = queue();
    w.publish('drain-b', admin, T0 + 1, control(deployment(w, REF_B, (o) => Object.assign(o, { available: false, reason: 'workflow_missing' }))));
    const work = [...w.state.works.values()][0]!;
    expect(eligibility(w.state, work, T0 + 2)).toMatchObject({ eligible: false, reason: 'deployment_unavailable' });
    expect(w.dispatchNext('grant', dispatcher, T0 + 2, GRANT).commit).toBeNull();
    expect(work.attempts).toBe(0);
    w.publish('restore-b', admin, T0 + 3, control(deployment(w, REF_B)));
    expect(w.dispatchNext('grant', dispatcher, T0 + 4, GRANT).commit).not.toBeNull();
  });

  it('the `fairway deploy` writer builds Deployments replay accepts, across successive revisions', () => {
    const w = queue();
    for (const [i, ref] of [REF_B, REF_C, REF_A].entries()) {
      const plan = deploymentPlan(w.state, { pool: 'default', workerProfile: 'default', ref, available: true, reason: 'worker_deployed' });
      expect(plan.changed).toBe(true);
      if (plan.changed) w.publish(`deploy-${i}`, admin, T0 + 1 + i, plan.request);
      expect(workerRoute(w.state, 'default', 'default')!.currentRef).toBe(ref);
    }
    expect(deploymentPlan(w.state, { pool: 'default', workerProfile: 'default', ref: REF_A, available: true, reason: 'worker_deployed' }).changed).toBe(false);
    expect(codeOf(w.text())).toBe('accepted');
  });
});

describe('a drained Policy epoch is where authority changes', () => {
  it('a new Policy epoch installs fresh routes: the widened authority a Deployment could not carry, at the epoch\'s own ref', () => {
    const w = new LedgerWriter();
    w.publish('genesis', admin, T0, operationsRequest('policy', [{ kind: 'Policy', epoch: 'epoch-1', policy: policy() }]));
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B)));
    const widened = deployment(w, REF_C, (o) => (o.profile.max_claims = 4));
    expect(codeOf(w.text() + line(w, 'widen', admin, T0 + 2, control(widened)))).toBe('deployment_authority_changed');
    const next = policy();
    Object.assign(((next.pools as Record<string, JsonObject>).default!.profiles as Record<string, JsonObject>).default!, { max_claims: 4, ref: REF_C });
    w.publish('epoch-2', admin, T0 + 2, operationsRequest('policy', [{ kind: 'Policy', epoch: 'epoch-2', policy: next }]));
    expect(w.state.deployments.size).toBe(0);
    const route = workerRoute(w.state, 'default', 'default')!;
    expect([route.currentRef, [...route.revisions.keys()]]).toEqual([REF_C, [REF_C]]);
    expect(codeOf(w.text())).toBe('accepted');
  });
});

describe('Deployment routes survive checkpoints (spec 7.10)', () => {
  function compacted(w: LedgerWriter): { text: string; root: QueueCommit } {
    const history = w.lines.map((l) => parseQueueCommit(JSON.parse(l)));
    const root = buildCheckpointCommit({ state: w.state, history }, { priorGitSha: 'f'.repeat(40), actor: admin, at: T0 + 10 });
    return { root, text: `${canonicalize(root as unknown as JsonValue)}\n` };
  }

  it('a checkpointed ledger keeps the deployed route, its registered revisions and the CAS', () => {
    const w = queue();
    const stale = deployment(w, REF_C);
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B)));
    w.publish('retire-a', admin, T0 + 2, control(deployment(w, REF_A, (o) => Object.assign(o, { activate: false, available: false }))));
    const { text } = compacted(w);
    const restored = new LedgerWriter();
    restored.lines.push(commitOn(restored.state, parseQueueCommit(JSON.parse(text))));
    expect(restored.state.deployments).toEqual(w.state.deployments);
    // The restored ledger grants at the deployed revision and still rejects the stale CAS and the unregistered revision.
    restored.dispatchNext('grant', dispatcher, T0 + 11, GRANT);
    expect([...restored.state.dispatches.values()][0]!.profile.ref).toBe(REF_B);
    expect(codeOf(restored.text() + line(restored, 'stale', admin, T0 + 12, control(stale)))).toBe('deployment_conflict');
    const unregistered = deployment(restored, REF_C, (o) => Object.assign(o, { activate: false, available: false }));
    expect(codeOf(restored.text() + line(restored, 'old', admin, T0 + 12, control(unregistered)))).toBe('deployment_revision_unregistered');
    expect(codeOf(restored.text())).toBe('accepted');
  });

  it('rejects a checkpoint that drops the revision a pending Work is pinned to (checkpoint_invalid)', () => {
    const w = queue();
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B)));
    w.publish('pin', producer, T0 + 2, submitRequest(w.state, [{ node_key: 'pinned', payload: {}, execution_ref: REF_A }], { graphId: 'g', at: T0 + 2 }));
    const { root } = compacted(w);
    const forged = structuredClone(root) as unknown as JsonObject & { operations: JsonObject[]; request: JsonObject; actor: JsonObject };
    const op = forged.operations[0]! as JsonObject & { state: JsonObject };
    delete ((((op.state.deployments as JsonObject).default as JsonObject).default as JsonObject).revisions as JsonObject)[REF_A];
    op.state_sha256 = sha256Hex(canonicalize(op.state));
    (forged.request.parameters as JsonObject).state_sha256 = op.state_sha256;
    forged.request.fingerprint = requestFingerprint(forged.actor, 'checkpoint', forged.request.parameters as JsonValue);
    expect(codeOf(`${canonicalize(forged)}\n`)).toBe('checkpoint_invalid');
    expect(codeOf(`${canonicalize(root as unknown as JsonValue)}\n`)).toBe('accepted');
  });

  it('rejects a checkpoint whose deployments extension widens a revision\'s authority (checkpoint_invalid)', () => {
    const w = queue();
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B)));
    const { root } = compacted(w);
    const forged = structuredClone(root) as unknown as JsonObject & { operations: JsonObject[]; request: JsonObject; actor: JsonObject };
    const op = forged.operations[0]! as JsonObject & { state: JsonObject };
    const revisions = ((op.state.deployments as JsonObject).default as JsonObject).default as JsonObject;
    (((revisions.revisions as JsonObject)[REF_B] as JsonObject).profile as JsonObject).max_claims = 16;
    op.state_sha256 = sha256Hex(canonicalize(op.state));
    (forged.request.parameters as JsonObject).state_sha256 = op.state_sha256;
    forged.request.fingerprint = requestFingerprint(forged.actor, 'checkpoint', forged.request.parameters as JsonValue);
    expect(codeOf(`${canonicalize(forged)}\n`)).toBe('checkpoint_invalid');
    expect(codeOf(`${canonicalize(root as unknown as JsonValue)}\n`)).toBe('accepted');
  });
});

describe('admission contracts and execution pins (spec 7.10; issue 16 §2)', () => {
  const WIDE = { pool: 'default', max_claims: 8, max_dispatches: 8, max_bytes: 49152 };
  const node = (key: string, extra: Partial<SubmitNode> = {}): SubmitNode => ({ node_key: key, payload: { key }, ...extra });
  const submit = (w: LedgerWriter, id: string, at: number, nodes: SubmitNode[]) => w.publish(id, producer, at, submitRequest(w.state, nodes, { graphId: 'g', at }));
  const reason = (w: LedgerWriter, key: string, at: number) => {
    const e = eligibility(w.state, w.state.works.get(workId('g', key))!, at);
    return e.eligible ? 'eligible' : e.reason;
  };
  const refOf = (w: LedgerWriter, key: string) => {
    const work = w.state.works.get(workId('g', key))!;
    return w.state.dispatches.get(w.state.claims.get(work.currentClaim!)!.dispatchId)!.profile.ref;
  };

  it('rejects a pin to a revision the route never registered (execution_ref_unregistered)', () => {
    const w = queue();
    const pinned = submitRequest(w.state, [node('pinned', { execution_ref: REF_C })], { graphId: 'g', at: T0 + 1 });
    expect(codeOf(w.text() + line(w, 'pin', producer, T0 + 1, pinned))).toBe('execution_ref_unregistered');
    const installedPin = submitRequest(w.state, [node('pinned', { execution_ref: REF_A })], { graphId: 'g', at: T0 + 1 });
    expect(codeOf(w.text() + line(w, 'pin', producer, T0 + 1, installedPin))).toBe('accepted');
  });

  it('rejects an explicit admission_contract that is not the contract of the revision the Work would run (contract_incompatible)', () => {
    const w = queue();
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B, (o) => (o.profile.logical_contract = 'e'.repeat(64)))));
    const derived = installedContract(installed(w));
    for (const [extra, expected] of [
      [{ admission_contract: derived }, 'contract_incompatible'], // the current route (B) has contract e…
      [{ admission_contract: 'e'.repeat(64) }, 'accepted'],
      [{ execution_ref: REF_A, admission_contract: 'e'.repeat(64) }, 'contract_incompatible'], // the pin (A) has the derived one
      [{ execution_ref: REF_A, admission_contract: derived }, 'accepted'],
    ] as const) {
      const built = submitRequest(w.state, [node('explicit', extra)], { graphId: 'g', at: T0 + 2 });
      expect(codeOf(w.text() + line(w, 'explicit', producer, T0 + 2, built)), JSON.stringify(extra)).toBe(expected);
    }
  });

  it('admission freezes the approved contract when omitted: the installed one, then the deployed one', () => {
    const w = queue();
    expect(w.state.admissions.get(workId('g', 'first'))).toBe(installedContract(installed(w)));
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B, (o) => (o.profile.logical_contract = 'e'.repeat(64)))));
    submit(w, 'later', T0 + 2, [node('later')]);
    expect(w.state.admissions.get(workId('g', 'later'))).toBe('e'.repeat(64));
    expect(w.state.works.get(workId('g', 'later'))!.definition.admission_contract).toBeUndefined(); // frozen by replay, not rewritten on the wire
  });

  it('pinned Work keeps its revision across deployments; unpinned Work follows a compatible one; an incompatible one pauses only the unpinned Work admitted before it and its successors', () => {
    const w = new LedgerWriter();
    w.publish('bootstrap', producer, T0, bootstrapRequest(policy(), 'epoch-1', [
      node('pinned', { execution_ref: REF_A }), node('old'), node('successor', { depends_on: [{ kind: 'work', node_key: 'old' }] }), node('pinned-2', { execution_ref: REF_A }),
    ], { graphId: 'g', at: T0 }));
    w.publish('deploy-b', admin, T0 + 1, control(deployment(w, REF_B))); // compatible: same derived contract
    w.dispatchNext('grant-1', dispatcher, T0 + 2, { ...WIDE, max_claims: 2, max_dispatches: 2 });
    expect([refOf(w, 'pinned'), refOf(w, 'old')]).toEqual([REF_A, REF_B]);

    submit(w, 'pending', T0 + 3, [node('pending')]);
    const service = JSON.stringify(clockView(w.state.fairness, 'default'));
    w.publish('deploy-c', admin, T0 + 4, control(deployment(w, REF_C, (o) => (o.profile.logical_contract = 'e'.repeat(64))))); // incompatible
    submit(w, 'fresh', T0 + 5, [node('fresh'), node('after-pending', { depends_on: [{ kind: 'work', node_key: 'pending' }] })]);
    expect(reason(w, 'pending', T0 + 6)).toBe('contract_incompatible');
    expect(reason(w, 'successor', T0 + 6)).toBe('contract_incompatible'); // also admitted under the old contract
    expect(reason(w, 'after-pending', T0 + 6)).toBe('dependency_wait'); // a dependent successor waits on the paused Work
    expect(reason(w, 'pinned-2', T0 + 6)).toBe('eligible');
    expect(reason(w, 'fresh', T0 + 6)).toBe('eligible');

    w.dispatchNext('grant-2', dispatcher, T0 + 6, WIDE);
    expect([refOf(w, 'pinned-2'), refOf(w, 'fresh')]).toEqual([REF_A, REF_C]);
    const paused = w.state.works.get(workId('g', 'pending'))!;
    expect([paused.state, paused.attempts, paused.claims.length]).toEqual(['available', 0, 0]); // no Claim, no attempt
    expect(JSON.stringify(clockView(w.state.fairness, 'default'))).not.toBe(service); // the others were served…
    expect(w.state.claims.size).toBe(4); // …and nothing was charged for the paused Work
    expect(codeOf(w.text())).toBe('accepted');
    // Replay schedules pinned Work by the record's executionRef: it reads no definition back (state/definitions.ts).
    const { projection, reads } = replayCountingDefinitionReads(w.text());
    expect(reads).toBe(0);
    expect(expectDefinitionsOf(projection, w.text())).toBe(7);
    expect(projection.work(workId('g', 'pinned'))!.executionRef).toBe(REF_A);
  });

  it('activate: false on a pinned historical revision pauses only the Work pinned to it (deployment_unavailable)', () => {
    const w = queue();
    submit(w, 'pin', T0 + 1, [node('pinned', { execution_ref: REF_A })]);
    w.publish('deploy-b', admin, T0 + 2, control(deployment(w, REF_B)));
    w.publish('retire-a', admin, T0 + 3, control(deployment(w, REF_A, (o) => Object.assign(o, { activate: false, available: false, reason: 'retired' }))));
    expect(reason(w, 'pinned', T0 + 4)).toBe('deployment_unavailable');
    expect(reason(w, 'first', T0 + 4)).toBe('eligible');
    w.dispatchNext('grant', dispatcher, T0 + 4, WIDE);
    expect([refOf(w, 'first'), refOf(w, 'second')]).toEqual([REF_B, REF_B]);
    expect(w.state.works.get(workId('g', 'pinned'))!.attempts).toBe(0);
  });

  it('admission contracts and pins survive a checkpoint: the restored ledger pauses and routes the same Work', () => {
    const w = queue();
    submit(w, 'pin', T0 + 1, [node('pinned', { execution_ref: REF_A })]);
    w.publish('deploy-c', admin, T0 + 2, control(deployment(w, REF_C, (o) => (o.profile.logical_contract = 'e'.repeat(64)))));
    submit(w, 'fresh', T0 + 3, [node('fresh')]);
    const history = w.lines.map((l) => parseQueueCommit(JSON.parse(l)));
    const root = buildCheckpointCommit({ state: w.state, history }, { priorGitSha: 'f'.repeat(40), actor: admin, at: T0 + 10 });
    const state = (root.operations[0] as unknown as { state: JsonObject }).state;
    expect(state.admission_contracts).toEqual({ [workId('g', 'fresh')]: 'e'.repeat(64) }); // only what restoration cannot derive
    const restored = new LedgerWriter();
    restored.lines.push(commitOn(restored.state, parseQueueCommit(JSON.parse(canonicalize(root as unknown as JsonValue)))));
    expect(restored.state.admissions).toEqual(w.state.admissions);
    for (const key of ['first', 'second', 'pinned', 'fresh']) expect(reason(restored, key, T0 + 11)).toBe(reason(w, key, T0 + 11));
    expect(reason(restored, 'first', T0 + 11)).toBe('contract_incompatible');
    restored.dispatchNext('grant', dispatcher, T0 + 11, WIDE);
    expect([refOf(restored, 'pinned'), refOf(restored, 'fresh')]).toEqual([REF_A, REF_C]);
  });
});
