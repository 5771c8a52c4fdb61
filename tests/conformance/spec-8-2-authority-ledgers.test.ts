/**
 * Spec §8.2 authority and envelope rows as forbidden ledgers (Trust, Policy epochs, No-grant
 * semantics, No opt-out / Writer enforcement, Current-only protocol, Submission defaults,
 * Launch fencing/binding). Each hand-written commit sits on an honest prefix with its commit
 * id and request fingerprint computed as a writer computes them (`forbidden.ts`; `raw` below
 * for records the schema refuses, which a builder cannot even construct), its BYTES are
 * replayed, and the specific code is asserted beside an honest control.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { candidateCommitId, claimId, dispatchId, requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { cancelWorkRequest, policyRequest } from '../../engine/requests/admin.ts';
import { rejectedTransition, uncertainTransition } from '../../engine/lifecycle/dispatch.ts';
import { dispatchBound, dispatchStarted, observation } from '../../engine/requests/lifecycle.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import { bootstrapRequest, submitRequest, type BuiltRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { createState } from '../../engine/state/state.ts';
import { admin, dispatcher, issue, nodes, policyOf, producer, reconciler, T0, TestQueue } from '../acceptance/queue.ts';
import { bind, byteVerdict, completedClaim, evidence, forge, forgeBuilt, grantOne, start, workerOf } from './forbidden.ts';

const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };

/** The installed Policy object (to re-install it under another epoch). */
const installed = (q: TestQueue): JsonObject => q.state.policy!.policy as unknown as JsonObject;

/**
 * A commit on the tip written without the schema parse `buildCommit` does: id and fingerprint
 * as a writer computes them, then `edit` on the record, so replay's own schema check answers.
 */
function raw(q: TestQueue, r: { id: string; kind: string; actor: Actor; operations: JsonObject[]; parameters?: JsonObject }, edit: (c: JsonObject) => void = () => {}): Uint8Array {
  const parameters = r.parameters ?? (r.kind === 'submit' ? { nodes: r.operations } : { operations: r.operations });
  const commit: JsonObject = {
    version: 3,
    id: candidateCommitId(q.state.tip, r.id),
    previous: q.state.tip,
    request: { id: r.id, kind: r.kind, parameters, fingerprint: requestFingerprint(r.actor as unknown as JsonValue, r.kind, parameters) },
    actor: r.actor as unknown as JsonObject,
    policy_epoch: q.state.policy!.epoch,
    at: q.tick(),
    operations: r.operations,
  };
  edit(commit);
  return new TextEncoder().encode(`${q.text()}${canonicalize(commit)}\n`);
}

/** A one-record ledger: `built` as the genesis by `actor`, id and fingerprint computed as a writer computes them. */
function genesisOf(actor: Actor, built: BuiltRequest): Uint8Array {
  const commit = buildCommit(createState(), { id: 'genesis', kind: built.kind, parameters: built.parameters, actor, at: T0, operations: built.operations });
  return new TextEncoder().encode(`${canonicalize(commit as unknown as JsonValue)}\n`);
}

/** One Claim of `nodeKey`'s Work, spelled as the packer spells the first Claim of request `id`. */
const claimOf = (q: TestQueue, id: string, nodeKey: string): JsonObject => ({
  kind: 'Claim', work_id: q.workId(nodeKey), claim_id: claimId(id, 1), dispatch_id: dispatchId(id, 1), handle: 'h1', observations: [],
});

describe('§8.2 "Trust": an agent cannot alter the policy (forbidden ledger)', () => {
  it.each([
    ['producer', producer], ['dispatcher', dispatcher], ['reconciler', reconciler],
  ] as const)('a policy request from a %s is role_not_allowed; the administrator\'s replays', (_role, actor) => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    q.w.publish('drain', admin, q.tick(), cancelWorkRequest(q.state, [q.workId('p-1')], 'operator_request'));
    expect(byteVerdict(forgeBuilt(q, 'policy', actor, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('role_not_allowed');
    expect(byteVerdict(forgeBuilt(q, 'policy', admin, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('accepted');
  });

  it('a worker\'s policy request (a completed Claim\'s bound run) is role_not_allowed', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const { worker } = completedClaim(q, '7001');
    expect(byteVerdict(forgeBuilt(q, 'policy', worker, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('role_not_allowed');
  });

  it('spec 7.7 "Only the first compiler-approved producer/dispatcher submit may install Policy as part of genesis": an administrator\'s or a worker\'s bootstrap submit is policy_not_authorized; the producer\'s and the dispatcher\'s replay, as does the administrator\'s Policy-only genesis', () => {
    const bootstrap = () => bootstrapRequest(policyOf(), 'epoch-1', nodes('p', 1, ''), { graphId: 'g', at: T0 });
    for (const actor of [admin, workerOf('d_none', '7001')]) expect(byteVerdict(genesisOf(actor, bootstrap()))).toBe('policy_not_authorized');
    for (const actor of [producer, dispatcher]) expect(byteVerdict(genesisOf(actor, bootstrap()))).toBe('accepted');
    expect(byteVerdict(genesisOf(admin, policyRequest('epoch-1', policyOf())))).toBe('accepted');
  });

  it('a Policy riding in a submit after the genesis is policy_not_authorized, whoever submits; the same Work alone replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const work = submitRequest(q.state, [{ node_key: 'n', payload: {} }], { graphId: 'g', at: q.t }).operations as unknown as JsonObject[];
    const policy = { kind: 'Policy', epoch: 'epoch-2', policy: installed(q) };
    for (const actor of [producer, admin]) {
      expect(byteVerdict(forge(q, { id: 'smuggle', kind: 'submit', actor, at: q.tick(), operations: [policy, ...work], parameters: { nodes: work } }))).toBe('policy_not_authorized');
    }
    expect(byteVerdict(forge(q, { id: 'plain', kind: 'submit', actor: producer, at: q.tick(), operations: work }))).toBe('accepted');
  });
});

describe('§8.2 "Policy epochs": economic changes wait for a drained queue; epochs are never reused (forbidden ledger)', () => {
  it('a new epoch while Work is still available (nonterminal, unclaimed) is policy_not_quiescent; once cancelled it replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(forgeBuilt(q, 'epoch-2', admin, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('policy_not_quiescent');
    q.w.publish('drain', admin, q.tick(), cancelWorkRequest(q.state, [q.workId('p-1')], 'operator_request'));
    expect(byteVerdict(forgeBuilt(q, 'epoch-2', admin, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('accepted');
  });

  it('a new epoch while a completed Work\'s delivery barrier is unresolved (and its reservation held) is policy_not_quiescent', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    completedClaim(q, '7001');
    expect(byteVerdict(forgeBuilt(q, 'epoch-2', admin, q.tick(), policyRequest('epoch-2', installed(q))))).toBe('policy_not_quiescent');
  });

  it('re-installing an epoch already installed is policy_epoch_reused, even on a drained queue; a fresh epoch replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    q.w.publish('drain', admin, q.tick(), cancelWorkRequest(q.state, [q.workId('p-1')], 'operator_request'));
    expect(byteVerdict(forgeBuilt(q, 'again', admin, q.tick(), policyRequest('epoch-1', installed(q))))).toBe('policy_epoch_reused');
    q.w.publish('epoch-2', admin, q.tick(), policyRequest('epoch-2', installed(q)));
    expect(byteVerdict(forgeBuilt(q, 'back', admin, q.tick(), policyRequest('epoch-1', installed(q))))).toBe('policy_epoch_reused');
    expect(byteVerdict(forgeBuilt(q, 'epoch-3', admin, q.tick(), policyRequest('epoch-3', installed(q))))).toBe('accepted');
  });
});

describe('§8.2 "No-grant semantics": a no-op evaluation writes no commit (forbidden ledger)', () => {
  it('a dispatch_next carrying only an Observation and no Claim is grant_empty; with the fair Claim it replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const seen = observation({ id: 'o1', resource: issue(7), condition: 'completed', satisfied: true, observedAt: q.t, generation: 'initial' });
    expect(byteVerdict(forge(q, { id: 'noop', kind: 'dispatch_next', actor: dispatcher, at: q.tick(), operations: [seen], parameters: GRANT }))).toBe('grant_empty');
    expect(byteVerdict(forge(q, { id: 'grant', kind: 'dispatch_next', actor: dispatcher, at: q.tick(), operations: [seen, claimOf(q, 'grant', 'p-1')], parameters: GRANT }))).toBe('accepted');
  });

  it('a dispatch_next with no operations at all is schema_invalid', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(raw(q, { id: 'noop', kind: 'dispatch_next', actor: dispatcher, operations: [], parameters: GRANT }))).toBe('schema_invalid');
  });
});

describe('§8.2 "No opt-out" / "Writer enforcement": direct-claim, administrative grant-bypass and unscheduled modes fail (forbidden ledger)', () => {
  it('a Claim outside a dispatch_next (an observe, a control) is operation_not_allowed', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(forge(q, { id: 'direct', kind: 'observe', actor: reconciler, at: q.tick(), operations: [claimOf(q, 'direct', 'p-1')] }))).toBe('operation_not_allowed');
    expect(byteVerdict(forge(q, { id: 'direct', kind: 'control', actor: admin, at: q.tick(), operations: [claimOf(q, 'direct', 'p-1')] }))).toBe('operation_not_allowed');
  });

  it('an administrator\'s dispatch_next is checked like any other: a Claim that is not the fair winner is claim_not_fair', () => {
    const q = new TestQueue(policyOf(), nodes('p', 2, ''));
    expect(byteVerdict(forge(q, { id: 'bypass', kind: 'dispatch_next', actor: admin, at: q.tick(), operations: [claimOf(q, 'bypass', 'p-2')], parameters: GRANT }))).toBe('claim_not_fair');
    expect(byteVerdict(forge(q, { id: 'fair', kind: 'dispatch_next', actor: admin, at: q.tick(), operations: [claimOf(q, 'fair', 'p-1')], parameters: GRANT }))).toBe('accepted');
  });

  it.each(['unscheduled', 'fifo', 'advisory', 'disabled', null])('a Policy whose scheduling mode is %s is schema_invalid', (mode) => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    q.w.publish('drain', admin, q.tick(), cancelWorkRequest(q.state, [q.workId('p-1')], 'operator_request'));
    const policy = { ...installed(q) };
    if (mode === null) delete policy.mode;
    else policy.mode = mode;
    expect(byteVerdict(raw(q, { id: 'opt-out', kind: 'policy', actor: admin, operations: [{ kind: 'Policy', epoch: 'epoch-2', policy }] }, (c) => { c.policy_epoch = 'epoch-2'; }))).toBe('schema_invalid');
  });
});

describe('§8.2 "Current-only protocol": old, unversioned and incomplete records fail (forbidden ledger)', () => {
  const cancel = (q: TestQueue) => ({ id: 'cancel', kind: 'cancel_work', actor: admin, operations: cancelWorkRequest(q.state, [q.workId('p-1')], 'operator_request').operations as unknown as JsonObject[] });

  it('control: the record as written replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(raw(q, cancel(q)))).toBe('accepted');
  });

  it('a version-2 record is unsupported_protocol; a record without a version is unsupported_protocol too', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(raw(q, cancel(q), (c) => { c.version = 2; }))).toBe('unsupported_protocol');
    expect(byteVerdict(raw(q, cancel(q), (c) => { delete c.version; }))).toBe('unsupported_protocol');
  });

  it('an incomplete record (no policy_epoch, no actor) is schema_invalid', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(byteVerdict(raw(q, cancel(q), (c) => { delete c.policy_epoch; }))).toBe('schema_invalid');
    expect(byteVerdict(raw(q, cancel(q), (c) => { delete c.actor; }))).toBe('schema_invalid');
  });
});

describe('§8.2 "Submission defaults": persisted Work carries every scheduling field; replay fabricates none (forbidden ledger)', () => {
  it.each(['pool', 'priority', 'fairness_key', 'worker_profile'])('a Work record without %s is schema_invalid; the builder\'s complete record replays', (field) => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const work = submitRequest(q.state, [{ node_key: 'n', payload: {} }], { graphId: 'g', at: q.t }).operations as unknown as JsonObject[];
    expect(Object.keys(work[0]!)).toContain(field);
    const bare = structuredClone(work);
    delete bare[0]![field];
    expect(byteVerdict(raw(q, { id: 'submit', kind: 'submit', actor: producer, operations: bare }))).toBe('schema_invalid');
    expect(byteVerdict(raw(q, { id: 'submit', kind: 'submit', actor: producer, operations: work }))).toBe('accepted');
  });
});

describe('§8.2 "Launch fencing/binding": no binding without a start marker, no effects without a binding (forbidden ledger)', () => {
  it('binding a run to a reserved group that recorded no start marker is dispatch_transition_invalid; after the marker it replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const { dispatchId: d } = grantOne(q);
    const marked = new TestQueue(policyOf(), nodes('p', 1, ''));
    const m = grantOne(marked);
    start(marked, m.dispatchId);
    const bound = dispatchBound(marked.state, m.dispatchId, '7001', marked.t);
    expect(d).toBe(m.dispatchId);
    expect(byteVerdict(forge(q, { id: 'bind', kind: 'dispatch', actor: reconciler, at: q.tick(), operations: bound.operations as unknown as JsonObject[] }))).toBe('dispatch_transition_invalid');
    expect(byteVerdict(forgeBuilt(marked, 'bind', reconciler, marked.tick(), bound))).toBe('accepted');
  });

  it('spec 7.8 "Record Dispatch(started) once for that group before the single API call": a start marker and the send\'s outcome (bound, uncertain, rejected) in one commit are dispatch_transition_invalid; each after the durable marker replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const { dispatchId: d } = grantOne(q);
    const marker = dispatchStarted(d, dispatcher as unknown as JsonObject).operations as unknown as JsonObject[];
    // The same group, started in an honest sibling ledger: the builders spell each outcome there.
    const marked = new TestQueue(policyOf(), nodes('p', 1, ''));
    expect(grantOne(marked).dispatchId).toBe(d);
    start(marked, d);
    const at = q.tick();
    const outcomes: Record<string, BuiltRequest> = {
      bound: dispatchBound(marked.state, d, '7001', at),
      uncertain: uncertainTransition(marked.state, d, 'dispatch_timeout'),
      rejected: rejectedTransition(marked.state, d, 'dispatch_refused', evidence(marked, d, { kind: 'nonlaunch', source: 'github_api' }, at)),
    };
    for (const [state, outcome] of Object.entries(outcomes)) {
      const both = [...marker, ...(outcome.operations as unknown as JsonObject[])];
      expect(byteVerdict(forge(q, { id: `send-${state}`, kind: 'dispatch', actor: dispatcher, at, operations: both })), state).toBe('dispatch_transition_invalid');
      expect(byteVerdict(forgeBuilt(marked, `send-${state}`, dispatcher, at, outcome)), state).toBe('accepted');
    }
  });

  it('a worker Completion from a started but unbound group is run_binding_missing; after the binding it replays', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    const g = grantOne(q);
    start(q, g.dispatchId);
    const completion = () => forge(q, {
      id: 'finish', kind: 'finish', actor: workerOf(g.dispatchId, '7001'), at: q.tick(),
      operations: [{ kind: 'Completion', work_id: g.workId, claim_id: g.claimId, dispatch_id: g.dispatchId, claim_handle: 'h1', run_id: '7001', run_attempt: 1 }],
      parameters: { dispatch_id: g.dispatchId, claim_handle: 'h1', outcome: 'completed' },
    });
    expect(byteVerdict(completion())).toBe('run_binding_missing');
    bind(q, g.dispatchId, '7001');
    expect(byteVerdict(completion())).toBe('accepted');
  });
});
