/**
 * Issue 10 §3 "Replay rejects what the spec forbids". Each case writes the
 * forbidden ledger (an honest prefix from the engine's builders plus one
 * hand-written commit whose id and fingerprint are recomputed, see
 * `forbidden.ts`), replays its BYTES and asserts the specific code; each has an
 * honest control on the same prefix that replays, so only the rule under test
 * can make the difference.
 */
import { describe, expect, it } from 'vitest';
import { candidateCommitId } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { boundTransition, rejectedTransition, uncertainTransition, unresolvedTransition } from '../../engine/lifecycle/dispatch.ts';
import { releaseRequest } from '../../engine/lifecycle/release.ts';
import { replacementRequest } from '../../engine/lifecycle/replacement.ts';
import { deliveryFailure, dispatchBound, observation, result } from '../../engine/requests/lifecycle.ts';
import { dispatchNextRequest, operationsRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import type { Actor, QueueOperation } from '../../engine/schema/index.ts';
import { dispatcher, issue, nodes, policyOf, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { bind, byteVerdict, completedClaim, evidence, forge, forgeBuilt, grantOne, start, workerOf } from './forbidden.ts';
import { checkpointOf, editCheckpoint } from '../support/checkpoints.ts';
import { canonicalize } from '../../engine/codec/index.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { buildCommit } from '../../engine/requests/build.ts';

const TWO_POOLS = { pools: { batch: {} }, accounting_weights: { a: 1, b: 1 } };

function queue(n = 1, key = 'a'): TestQueue {
  return new TestQueue(policyOf(TWO_POOLS), nodes('p', n, key));
}

const terminal = (runId: string) => ({ kind: 'terminal_run' as const, source: 'github_api' as const, runId, conclusion: 'success', completed: true });

/** The reconciler's release request (open Claims cancelled, then the Release) with `ev`, forged on the tip. */
function releaseWith(q: TestQueue, dispatchId: string, ev: JsonObject): Uint8Array {
  const at = q.tick();
  return forgeBuilt(q, `release-${dispatchId}`, reconciler, at, releaseRequest(q.state, dispatchId, ev, 'run_terminal', at));
}

/** A granted, started and bound (to `runId`) group, then a second group granted and started; returns the second. */
function secondGroupAfterBinding(q: TestQueue, runId: string): { dispatchId: string } {
  const a = grantOne(q);
  start(q, a.dispatchId);
  bind(q, a.dispatchId, runId);
  const b = grantOne(q);
  start(q, b.dispatchId);
  return b;
}

describe('§8.2 "Recovery": only definitive no-launch or exact terminal evidence releases (spec 7.8)', () => {
  it('§8.1 "Release an unbound launch using the dispatcher\'s terminal run": rejected (terminal_evidence_required); binding the actual worker run permits the release', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    const dispatcherTerminal = { ...evidence(q, dispatchId, terminal(dispatcher.run_id!), q.tick()), workflow: dispatcher.workflow! };
    expect(byteVerdict(releaseWith(q, dispatchId, dispatcherTerminal))).toBe('terminal_evidence_required');

    bind(q, dispatchId, '7001');
    expect(byteVerdict(releaseWith(q, dispatchId, evidence(q, dispatchId, terminal('7001'), q.tick())))).toBe('accepted');
  });

  it('spec 7.8 "Bind the actual worker run, not the dispatcher\'s run": binding the start marker\'s sender run is rejected (run_binding_invalid), so no release rides on its terminal evidence', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    expect(byteVerdict(forgeBuilt(q, 'bind-dispatcher', reconciler, q.tick(), dispatchBound(q.state, dispatchId, dispatcher.run_id!, q.t)))).toBe('run_binding_invalid');
    // Control: the worker's own run binds.
    expect(byteVerdict(forgeBuilt(q, 'bind-worker', reconciler, q.tick(), dispatchBound(q.state, dispatchId, '7001', q.t)))).toBe('accepted');
  });

  it('spec 7.8: one native run binds one dispatch group: binding a run already bound to another group is rejected (run_binding_conflict)', () => {
    const q = queue(2);
    const b = secondGroupAfterBinding(q, '7001');
    expect(byteVerdict(forgeBuilt(q, 'bind-again', reconciler, q.tick(), dispatchBound(q.state, b.dispatchId, '7001', q.t)))).toBe('run_binding_conflict');
    expect(byteVerdict(forgeBuilt(q, 'bind-own', reconciler, q.tick(), dispatchBound(q.state, b.dispatchId, '7002', q.t)))).toBe('accepted');
  });

  it('one native run binds one group across compaction too: a checkpoint binding one run to two groups is checkpoint_invalid, and a run bound before the checkpoint cannot bind another group after it (run_binding_conflict)', () => {
    const q = queue(2);
    const b = secondGroupAfterBinding(q, '7001');
    bind(q, b.dispatchId, '7002');
    const compacted = checkpointOf(q.text());
    expect(byteVerdict(new TextEncoder().encode(compacted))).toBe('accepted');
    const doubled = editCheckpoint(compacted, (st) => {
      (st.dispatches as Record<string, { run: { run_id: string } }>)[b.dispatchId]!.run.run_id = '7001';
    });
    expect(byteVerdict(new TextEncoder().encode(doubled))).toBe('checkpoint_invalid');
    const ownSender = editCheckpoint(compacted, (st) => {
      const group = (st.dispatches as Record<string, { run: { run_id: string }; sender: { run_id: string } }>)[b.dispatchId]!;
      group.run.run_id = group.sender.run_id;
    });
    expect(byteVerdict(new TextEncoder().encode(ownSender))).toBe('checkpoint_invalid');
    // After the checkpoint: a third group may not bind run 7001.
    const r = queue(3);
    const c2 = secondGroupAfterBinding(r, '7001');
    const restored = checkpointOf(r.text());
    const p = replayLedger(new TextEncoder().encode(restored));
    const at = r.t + 1000;
    const after = (runId: string) => {
      const built = dispatchBound(p.state, c2.dispatchId, runId, at);
      const commit = buildCommit(p.state, { id: `bind-after-${runId}`, kind: built.kind, parameters: built.parameters, actor: reconciler, at, operations: built.operations as QueueOperation[] });
      return new TextEncoder().encode(`${restored}${canonicalize(commit as unknown as JsonValue)}\n`);
    };
    expect(byteVerdict(after('7001'))).toBe('run_binding_conflict');
    expect(byteVerdict(after('7003'))).toBe('accepted');
  });

  it('rejects Release of a never-bound group on terminal_run evidence of any run, in every unbound launch state (terminal_evidence_required)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    const anyRun = () => evidence(q, dispatchId, terminal('7001'), q.tick());
    expect(byteVerdict(releaseWith(q, dispatchId, anyRun()))).toBe('terminal_evidence_required'); // started
    q.w.publish('uncertain', reconciler, q.tick(), uncertainTransition(q.state, dispatchId, 'launch_unbound'));
    expect(byteVerdict(releaseWith(q, dispatchId, anyRun()))).toBe('terminal_evidence_required'); // uncertain
    q.w.publish('unresolved', reconciler, q.tick(), unresolvedTransition(q.state, dispatchId, 'launch_unresolved',
      evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 5 })));
    expect(byteVerdict(releaseWith(q, dispatchId, anyRun()))).toBe('terminal_evidence_required'); // unresolved
  });

  it('spec 7.8: Dispatch(uncertain) records its reason code, Dispatch(unresolved) its reason and last evidence (reason_required, evidence_invalid)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    /** The builder's transition with `drop` removed from its one Dispatch operation, forged on the tip. */
    const without = (id: string, built: BuiltRequest, drop: 'reason' | 'evidence') => {
      const ops = structuredClone(built.operations) as unknown as JsonObject[];
      delete ops[0]![drop];
      return forge(q, { id, kind: built.kind, actor: reconciler, at: q.tick(), operations: ops });
    };
    const uncertain = uncertainTransition(q.state, dispatchId, 'launch_unbound');
    expect(byteVerdict(without('uncertain-bare', uncertain, 'reason'))).toBe('reason_required');
    expect(byteVerdict(forgeBuilt(q, 'uncertain-ok', reconciler, q.tick(), uncertain))).toBe('accepted');
    q.w.publish('uncertain', reconciler, q.tick(), uncertain);
    const unresolved = unresolvedTransition(q.state, dispatchId, 'launch_unresolved', evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api', attempts: 5 }));
    expect(byteVerdict(without('unresolved-no-reason', unresolved, 'reason'))).toBe('reason_required');
    expect(byteVerdict(without('unresolved-no-evidence', unresolved, 'evidence'))).toBe('evidence_invalid');
    expect(byteVerdict(forgeBuilt(q, 'unresolved-ok', reconciler, q.tick(), unresolved))).toBe('accepted');
  });

  it('rejects Release of a started group on nonlaunch evidence that was never persisted as Dispatch(rejected) (nonlaunch_evidence_required)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    const nonlaunch = () => evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }, q.tick());
    expect(byteVerdict(releaseWith(q, dispatchId, nonlaunch()))).toBe('nonlaunch_evidence_required');

    const at = q.tick();
    q.w.publish('rejected', dispatcher, at, rejectedTransition(q.state, dispatchId, 'dispatch_rejected_422', evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }, at)));
    expect(byteVerdict(releaseWith(q, dispatchId, nonlaunch()))).toBe('accepted');
  });

  it('rejects Dispatch(rejected) without definitive nonlaunch evidence from the GitHub API (nonlaunch_evidence_required)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    const rejection = (extra: JsonObject) => forge(q, { id: 'reject', kind: 'dispatch', actor: dispatcher, at: q.tick(), operations: [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'rejected', reason: 'dispatch_rejected_422', ...extra }] });
    expect(byteVerdict(rejection({}))).toBe('nonlaunch_evidence_required');
    expect(byteVerdict(rejection({ evidence: evidence(q, dispatchId, { kind: 'reconciliation', source: 'github_api' }) }))).toBe('nonlaunch_evidence_required');
    expect(byteVerdict(rejection({ evidence: evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }) }))).toBe('accepted');
  });

  it('rejects Release of a reserved group on anything but the trusted publisher\'s prelaunch cancellation (nonlaunch_evidence_required)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    expect(byteVerdict(releaseWith(q, dispatchId, evidence(q, dispatchId, { kind: 'nonlaunch', source: 'github_api' }, q.tick())))).toBe('nonlaunch_evidence_required');
    expect(byteVerdict(releaseWith(q, dispatchId, evidence(q, dispatchId, { kind: 'prelaunch', source: 'trusted_publisher' }, q.tick())))).toBe('accepted');
  });

  it('rejects Release of a bound group without exact terminal evidence of its run (terminal_evidence_required)', () => {
    const q = queue();
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    bind(q, dispatchId, '7001');
    expect(byteVerdict(releaseWith(q, dispatchId, evidence(q, dispatchId, terminal('7002'), q.tick())))).toBe('terminal_evidence_required');
    const running = evidence(q, dispatchId, { kind: 'terminal_run', source: 'github_api', runId: '7001' }, q.tick());
    expect(byteVerdict(releaseWith(q, dispatchId, running))).toBe('terminal_evidence_required');
    const foreignScope = { ...evidence(q, dispatchId, terminal('7001'), q.tick()), workflow: dispatcher.workflow! };
    expect(byteVerdict(releaseWith(q, dispatchId, foreignScope))).toBe('evidence_invalid');
  });
});

describe('§8.2 "Delivery failure": DeliveryFailure needs exact terminal evidence of the Claim\'s original run and attempt (contract delivery_verification.required_proof)', () => {
  function failing(edit: (ev: JsonObject) => void): string {
    const q = queue();
    const { workId } = completedClaim(q, '7001');
    const at = q.tick();
    const built = deliveryFailure(q.state, workId, at, 100);
    const op = structuredClone(built.operations[0]) as unknown as JsonObject;
    edit(op.evidence as JsonObject);
    return byteVerdict(forge(q, { id: 'delivery-failure', kind: 'delivery_failure', actor: reconciler, at, operations: [op] }));
  }

  it('control: the reconciler\'s DeliveryFailure with terminal evidence of run 7001 attempt 1 replays', () => {
    expect(failing(() => undefined)).toBe('accepted');
  });

  it('rejects a DeliveryFailure whose evidence names no run (terminal_evidence_required)', () => {
    expect(failing((ev) => { delete ev.run_id; delete ev.run_attempt; })).toBe('terminal_evidence_required');
  });

  it('rejects a DeliveryFailure whose evidence names another run (terminal_evidence_required)', () => {
    expect(failing((ev) => { ev.run_id = '7002'; })).toBe('terminal_evidence_required');
  });

  it('rejects a DeliveryFailure whose run is not reported completed (terminal_evidence_required)', () => {
    expect(failing((ev) => { delete ev.status; delete ev.conclusion; })).toBe('terminal_evidence_required');
  });

  it('rejects a DeliveryFailure on reconciliation rather than terminal-run evidence (terminal_evidence_required)', () => {
    expect(failing((ev) => { ev.kind = 'reconciliation'; })).toBe('terminal_evidence_required');
  });
});

describe('§8.2 "Replacement": replacement Work inherits the failed Work\'s pool, priority and fairness key (spec 7.15)', () => {
  function failedNode(): { q: TestQueue; workId: string } {
    const q = new TestQueue(policyOf(TWO_POOLS), nodes('p', 1, 'a', 3));
    const { workId } = completedClaim(q, '7001');
    q.w.publish('failure', reconciler, q.tick(), deliveryFailure(q.state, workId, q.t, 100));
    return { q, workId };
  }

  function replacement(edit: (op: JsonObject) => void, graphId?: string): string {
    const { q, workId } = failedNode();
    const at = q.tick();
    const built = replacementRequest(q.state, { failedWorkId: workId, node_key: 'p-fix', payload: { plan: 'inspect' }, disposition: 'inspection', evidence: 'review-1', ...(graphId === undefined ? {} : { graph_id: graphId }) }, at);
    const op = structuredClone(built.operations[0]) as unknown as JsonObject;
    edit(op);
    return byteVerdict(forge(q, { id: 'replacement', kind: 'submit', actor: producer, at, operations: [op] }));
  }

  it('control: the replacement builder\'s node replays', () => {
    expect(replacement(() => undefined)).toBe('accepted');
  });

  it('rejects a replacement submitted by a worker or a dispatcher: only an operator or producer admits one (replacement_invalid)', () => {
    for (const role of ['worker', 'dispatcher'] as const) {
      const q = new TestQueue(policyOf(TWO_POOLS), nodes('p', 2, 'a', 3));
      const { workId } = completedClaim(q, '7001');
      q.w.publish('failure', reconciler, q.tick(), deliveryFailure(q.state, workId, q.t, 100));
      // A worker holding the other node's Claim (its own delivery still pending), or the dispatcher.
      const held = role === 'worker' ? completedClaim(q, '7002').worker : dispatcher;
      const at = q.tick();
      const built = replacementRequest(q.state, { failedWorkId: workId, node_key: 'p-fix', payload: { plan: 'repeat the writes' }, disposition: 'idempotent', evidence: 'agent-says-so' }, at);
      expect(byteVerdict(forgeBuilt(q, `replacement-by-${role}`, held, at, built)), role).toBe('replacement_invalid');
    }
  });

  it('rejects a replacement with a more urgent priority (replacement_invalid)', () => {
    expect(replacement((op) => { op.priority = 1; })).toBe('replacement_invalid');
  });

  it('rejects a replacement with another fairness key (replacement_invalid)', () => {
    expect(replacement((op) => { op.fairness_key = 'b'; })).toBe('replacement_invalid');
  });

  it('rejects a replacement in another pool (replacement_invalid)', () => {
    // A graph of its own in pool batch, so only the inheritance rule can fail.
    expect(replacement((op) => { op.pool = 'batch'; }, 'fix-batch')).toBe('replacement_invalid');
  });
});

describe('§8.2 "Trust" / "Worker safety": a worker\'s submit and dispatch_next stay inside its Claim scope (spec 7.14)', () => {
  const child = (q: TestQueue, extra: Partial<SubmitNode> = {}, graphId = 'g') => submitRequest(q.state, [{ node_key: 'child', payload: { plan: 'child' }, fairness_key: 'a', priority: 3, ...extra }], { graphId, at: q.t });

  function afterCompletion(): { q: TestQueue; worker: Actor; workId: string; dispatchId: string } {
    const q = queue(2);
    const done = completedClaim(q, '7001');
    return { q, ...done };
  }

  it('control: the completed Claim\'s worker admits an inheriting child before its Result', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q)))).toBe('accepted');
  });

  it('rejects a worker child with another fairness key (child_entitlement)', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q, { fairness_key: 'b' })))).toBe('child_entitlement');
  });

  it('rejects a worker child more urgent than its parent (child_entitlement)', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q, { priority: 2 })))).toBe('child_entitlement');
  });

  it('rejects a worker child in another pool (child_entitlement)', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q, { pool: 'batch' }, 'batch')))).toBe('child_entitlement');
  });

  it('accepts a worker child that lowers its urgency: spec 7.2 "MUST NOT gain a better priority" (the reference requires equality; the spec wins)', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q, { priority: 4 })))).toBe('accepted');
  });

  it('rejects a worker submit whose actor names no existing dispatch or a foreign handle (claim_scope_invalid)', () => {
    const { q, worker } = afterCompletion();
    const built = child(q);
    expect(byteVerdict(forgeBuilt(q, 'child', { ...worker, dispatch_id: 'd_nope_1' }, q.tick(), built))).toBe('claim_scope_invalid');
    expect(byteVerdict(forgeBuilt(q, 'child', { ...worker, claim_handle: 'h9' }, q.tick(), built))).toBe('claim_scope_invalid');
  });

  it('rejects a worker submit naming no handle of its one-Claim dispatch (claim_scope_required): a record carries the normalized handle, replay attaches none (the reference answers alike)', () => {
    const { q, worker } = afterCompletion();
    const { claim_handle: _omitted, ...unscoped } = worker;
    expect(byteVerdict(forgeBuilt(q, 'child', unscoped, q.tick(), child(q)))).toBe('claim_scope_required');
  });

  it('rejects a worker submit from a run other than the dispatch\'s bound run (run_binding_conflict)', () => {
    const { q, worker } = afterCompletion();
    expect(byteVerdict(forgeBuilt(q, 'child', { ...worker, run_id: '7002' }, q.tick(), child(q)))).toBe('run_binding_conflict');
  });

  it('rejects a worker child admitted before its Claim\'s Completion (claim_effects_unauthorized)', () => {
    const q = queue(2);
    const { dispatchId } = grantOne(q);
    start(q, dispatchId);
    bind(q, dispatchId, '7001');
    expect(byteVerdict(forgeBuilt(q, 'child', workerOf(dispatchId, '7001'), q.tick(), child(q)))).toBe('claim_effects_unauthorized');
  });

  it('rejects a worker child after the parent\'s Result closed fresh controls (claim_effects_unauthorized)', () => {
    const { q, worker, workId } = afterCompletion();
    q.w.publish('result', reconciler, q.tick(), result(q.state, workId, {}, q.t, 'receipt-1'));
    expect(byteVerdict(forgeBuilt(q, 'child', worker, q.tick(), child(q)))).toBe('claim_effects_unauthorized');
  });

  it('rejects a worker dispatch_next outside its parent\'s pool (claim_scope_invalid); inside it is accepted', () => {
    const q = new TestQueue(policyOf(TWO_POOLS), [...nodes('p', 2, 'a'), ...nodes('q', 1, 'a').map((n) => ({ ...n, pool: 'batch', graph_id: 'batch' }))]);
    const { worker } = completedClaim(q, '7001');
    const grant = (pool: string) => {
      const at = q.tick();
      const id = `worker-grant-${pool}`;
      const built = dispatchNextRequest(q.state, { pool, max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at);
      expect(built.operations.length).toBeGreaterThan(0);
      return byteVerdict(forgeBuilt(q, id, worker, at, built));
    };
    expect(grant('batch')).toBe('claim_scope_invalid');
    expect(grant('default')).toBe('accepted');
  });

  it('rejects a worker observation outside its parent pool\'s allowed repositories (resource_unauthorized)', () => {
    const { q, worker } = afterCompletion();
    const observe = (resource: JsonObject) => byteVerdict(forgeBuilt(q, 'worker-observe', worker, q.tick(),
      operationsRequest('observe', [observation({ id: 'o-1', resource, condition: 'completed', satisfied: false, observedAt: q.t, generation: 'initial' })])));
    expect(observe({ ...issue(9), repository: 'other/repo', repository_id: '2' })).toBe('resource_unauthorized');
    expect(observe(issue(9))).toBe('accepted');
  });

  it('rejects a worker activation that binds another dispatch (run_binding_conflict)', () => {
    const q = queue(2);
    const a = grantOne(q);
    const b = grantOne(q);
    start(q, a.dispatchId);
    start(q, b.dispatchId);
    const { claim_handle: _none, ...activation } = workerOf(a.dispatchId, '7001');
    const bindOwn = (dispatchId: string) => boundTransition(q.state, dispatchId, '7001', evidence(q, dispatchId, { kind: 'reconciliation', source: 'trusted_activation', runId: '7001' }));
    expect(byteVerdict(forgeBuilt(q, 'activate', activation, q.tick(), bindOwn(b.dispatchId)))).toBe('run_binding_conflict');
    expect(byteVerdict(forgeBuilt(q, 'activate', activation, q.tick(), bindOwn(a.dispatchId)))).toBe('accepted');
  });
});

describe('one graph stays in one pool (spec 7.15)', () => {
  it('rejects Work joining a graph from another pool (graph_invalid); its own graph is accepted', () => {
    const q = queue();
    const batch = (graphId: string) => forgeBuilt(q, 'batch-submit', producer, q.tick(), submitRequest(q.state, [{ node_key: 'b-1', payload: {}, pool: 'batch', fairness_key: 'a' }], { graphId, at: q.t }));
    expect(byteVerdict(batch('g'))).toBe('graph_invalid');
    expect(byteVerdict(batch('batch'))).toBe('accepted');
  });

  it('rejects one submission whose graph spans two pools (graph_invalid)', () => {
    const q = queue();
    const built = submitRequest(q.state, [{ node_key: 'x', payload: {} }, { node_key: 'y', payload: {}, pool: 'batch' }], { graphId: 'mixed', at: q.tick() });
    expect(byteVerdict(forgeBuilt(q, 'mixed', producer, q.t, built))).toBe('graph_invalid');
  });
});

describe('§8.2 "DAG node kinds": Issue/PR gates are deduplicated by resolved identity and condition (spec 7.16)', () => {
  const gate = (resource: JsonObject, condition = 'completed') => ({ kind: 'issue' as const, condition, resource });
  function gated(depends: SubmitNode['depends_on']): string {
    const q = queue();
    return byteVerdict(forgeBuilt(q, 'gated', producer, q.tick(), submitRequest(q.state, [{ node_key: 'gated', payload: {}, depends_on: depends }], { graphId: 'g', at: q.t })));
  }

  it('rejects the same Issue gate twice, written with another display number (dependency_invalid)', () => {
    expect(gated([gate(issue(7)), gate({ ...issue(7), number: '8' })])).toBe('dependency_invalid');
  });

  it('rejects the same Issue gate twice, written identically (dependency_invalid)', () => {
    expect(gated([gate(issue(7)), gate(issue(7))])).toBe('dependency_invalid');
  });

  it('control: one Issue under two conditions is two gates', () => {
    expect(gated([gate(issue(7)), gate(issue(7), 'closed')])).toBe('accepted');
  });

  it('rejects an Issue gate naming a pull request, written past the builder (dependency_invalid: it could never be satisfied)', () => {
    const q = queue();
    const at = q.tick();
    const op = structuredClone(submitRequest(q.state, [{ node_key: 'gated', payload: {}, depends_on: [gate(issue(7))] }], { graphId: 'g', at }).operations[0]) as unknown as { depends_on: Array<{ resource: JsonObject }> };
    op.depends_on[0]!.resource.kind = 'pull_request';
    expect(byteVerdict(forge(q, { id: 'gated', kind: 'submit', actor: producer, at, operations: [op as unknown as JsonObject] }))).toBe('dependency_invalid');
  });
});

describe('§8.2 "Typed foreign resources": a Work subject stays inside the pool\'s allowed repositories (spec 7.16)', () => {
  function withSubject(subject: JsonObject): string {
    const q = queue();
    const at = q.tick();
    const op = structuredClone(submitRequest(q.state, [{ node_key: 'subject', payload: {} }], { graphId: 'g', at }).operations[0]) as unknown as JsonObject;
    op.subject = subject;
    return byteVerdict(forge(q, { id: 'subject', kind: 'submit', actor: producer, at, operations: [op] }));
  }

  it('rejects a subject in a repository the pool does not allow (resource_unauthorized)', () => {
    expect(withSubject({ ...issue(3), repository: 'other/repo', repository_id: '2' })).toBe('resource_unauthorized');
  });

  it('control: a subject in the queue repository is accepted', () => {
    expect(withSubject(issue(3))).toBe('accepted');
  });
});
