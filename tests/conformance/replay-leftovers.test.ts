/**
 * Issue 10 leftovers, each a forbidden (or legal) ledger replayed as BYTES with
 * ids and fingerprints recomputed (`forge`):
 *
 * 1. exact repeats of WorkCancellation, ClaimCancellation and Observation in a new
 *    commit. The spec makes exact duplicate COMMIT records idempotent (7.6 "Exact
 *    duplicate commit records are idempotent") and Result/DeliveryFailure
 *    "individually idempotent" (7.15), but is silent on these operations repeated
 *    in a new commit: we follow the reference (exact repeat = accepted no-op,
 *    changed cancellation = `cancellation_conflict`, changed Observation under the
 *    same id = `duplicate_observation`);
 * 2. `limits.evidence_bytes` (spec 7.17: "1 KiB per observation/control/lifecycle
 *    evidence record") bounds lifecycle evidence, Observations and Controls
 *    (`resource_limit`, details.limit `evidence_bytes`);
 * 3. an Observation is of a resource some pool may depend on (spec 7.16:
 *    "re-read the exact authorized resource", "Allowlisted metadata reads"):
 *    `observation_invalid`, as the reference answers;
 * 4. an Issue/PR edge outside the pool's allowlist is `resource_unauthorized`
 *    (the reference's code; Fairway said `repository_not_allowed`);
 * 5. admission limits answer the reference's `resource_limit` with details.limit
 *    naming the limit (Fairway said payload_too_large, too_many_predecessors,
 *    graph_limit, pending_limit).
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError, type ProtocolError } from '../../engine/errors.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import type { QueueOperation } from '../../engine/schema/index.ts';
import { checkpointOf, editCheckpoint } from '../support/checkpoints.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { cancelWork, control, dispatchBound, observation, result } from '../../engine/requests/lifecycle.ts';
import { operationsRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { admin, dispatcher, issue, nodes, policyOf, producer, reconciler, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { candidateCommitId } from '../../engine/identity/index.ts';
import { dispatchNextWithObservations } from '../../engine/lifecycle/grant.ts';
import { byteVerdict, completedClaim, forge, forgeBuilt, grantOne, start } from './forbidden.ts';
import { replayBothWays } from '../support/verified-replay.ts';

const WEIGHTS = { accounting_weights: { a: 1 } };
const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };

function queue(settings: JsonObject = {}, limits: Record<string, number> = {}, n = 1): TestQueue {
  const policy = policyOf({ ...WEIGHTS, ...settings });
  Object.assign(policy.limits as JsonObject, limits);
  return new TestQueue(policy, nodes('p', n, 'a'));
}

/** The ProtocolError that replaying `bytes` raises (undefined when accepted), alone and with every record verified ahead alike. */
function byteError(bytes: Uint8Array): ProtocolError | undefined {
  try {
    replayBothWays(bytes);
    return undefined;
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
}

const utf8 = (v: JsonObject): number => new TextEncoder().encode(canonicalize(v)).length;

/** Set `obj[field]` to a run of `x` so that `measured()` is exactly `target` canonical bytes. */
function padTo(obj: JsonObject, field: string, target: number, measured: () => number): void {
  obj[field] = 'x';
  obj[field] = 'x'.repeat(1 + target - measured());
}

describe('issue 10 leftover 1: exact repeats in a new commit are idempotent no-ops; changed ones conflict (spec 7.6 silent; reference)', () => {
  it('accepts an exact repeat of a WorkCancellation; a changed one is cancellation_conflict', () => {
    const q = queue();
    const workId = q.workId('p-1');
    q.w.publish('cancel', admin, q.tick(), cancelWork([workId], 'operator_request'));
    const repeat = (reason: string) => byteVerdict(forge(q, { id: 'cancel-again', kind: 'cancel_work', actor: admin, at: q.tick(), operations: [{ kind: 'WorkCancellation', work_id: workId, reason }] }));
    expect(repeat('operator_request')).toBe('accepted');
    expect(repeat('other_reason')).toBe('cancellation_conflict');
  });

  it('accepts an exact repeat of a ClaimCancellation; a changed retry_not_before is cancellation_conflict', () => {
    const q = queue();
    const { workId, claimId } = grantOne(q);
    const at = q.tick();
    const cancel = (rnb: number): JsonObject => ({ kind: 'ClaimCancellation', work_id: workId, claim_id: claimId, reason: 'obsolete', retry_not_before: rnb });
    q.w.publish('cc', reconciler, at, operationsRequest('cancel_claim', [cancel(at + 30_000)]));
    const repeat = (rnb: number) => byteVerdict(forge(q, { id: 'cc-again', kind: 'cancel_claim', actor: reconciler, at: q.tick(), operations: [cancel(rnb)] }));
    expect(repeat(at + 30_000)).toBe('accepted');
    expect(repeat(at + 60_000)).toBe('cancellation_conflict');
  });

  it('the exact ClaimCancellation repeat changes nothing: the Work keeps its first retry_not_before', () => {
    const q = queue();
    const { workId, claimId } = grantOne(q);
    const at = q.tick();
    const op = { kind: 'ClaimCancellation', work_id: workId, claim_id: claimId, reason: 'obsolete', retry_not_before: at + 30_000 };
    q.w.publish('cc', reconciler, at, operationsRequest('cancel_claim', [op]));
    const before = q.state.works.get(workId)!;
    const after = replayLedger(forge(q, { id: 'cc-again', kind: 'cancel_claim', actor: reconciler, at: q.tick(), operations: [op] }));
    const work = after.state.works.get(workId)!;
    expect([work.state, work.retryNotBefore, work.cancellationCommit]).toEqual([before.state, before.retryNotBefore, before.cancellationCommit]);
  });

  it('accepts an exact repeat of an Observation; a changed one under the same id is duplicate_observation', () => {
    const q = queue();
    const op = observation({ id: 'o-1', resource: issue(7), condition: 'completed', satisfied: false, observedAt: q.t, generation: 'initial' });
    q.observe(op);
    const repeat = (o: JsonObject) => byteVerdict(forge(q, { id: 'observe-again', kind: 'observe', actor: reconciler, at: q.tick(), operations: [o] }));
    expect(repeat(op)).toBe('accepted');
    expect(repeat({ ...op, observed_at: q.t })).toBe('duplicate_observation');
  });
});

describe('issue 10 leftover 2: limits.evidence_bytes bounds lifecycle evidence, Observations and Controls (spec 7.17; resource_limit)', () => {
  const LIMIT = 420;

  function atLimit(build: (q: TestQueue, size: number) => Uint8Array): [string, string | undefined] {
    const ok = build(queue({}, { evidence_bytes: LIMIT }), LIMIT);
    const over = byteError(build(queue({}, { evidence_bytes: LIMIT }), LIMIT + 1));
    return [byteVerdict(ok), over === undefined ? 'accepted' : `${over.code}:${String(over.details?.limit)}`];
  }

  it('Result evidence of exactly evidence_bytes replays; one byte more is resource_limit', () => {
    expect(atLimit((q, size) => {
      const { workId } = completedClaim(q, '202');
      const op = structuredClone(result(q.state, workId, {}, q.tick(), 'r').operations[0]) as unknown as JsonObject;
      const ev = op.evidence as JsonObject;
      padTo(ev, 'receipt', size, () => utf8(ev));
      return forge(q, { id: 'result', kind: 'result', actor: reconciler, at: q.t, operations: [op] });
    })).toEqual(['accepted', 'resource_limit:evidence_bytes']);
  });

  it('Dispatch(bound) evidence of exactly evidence_bytes replays; one byte more is resource_limit', () => {
    expect(atLimit((q, size) => {
      const { dispatchId } = grantOne(q);
      start(q, dispatchId);
      const op = structuredClone(dispatchBound(q.state, dispatchId, '202', q.tick()).operations[0]) as unknown as JsonObject;
      const ev = op.evidence as JsonObject;
      padTo(ev, 'receipt', size, () => utf8(ev));
      return forge(q, { id: 'bind', kind: 'dispatch', actor: reconciler, at: q.t, operations: [op] });
    })).toEqual(['accepted', 'resource_limit:evidence_bytes']);
  });

  it('an Observation of exactly evidence_bytes replays; one byte more is resource_limit', () => {
    expect(atLimit((q, size) => {
      const op = observation({ id: 'o', resource: issue(7), condition: 'completed', satisfied: false, observedAt: q.tick(), generation: 'initial' });
      padTo(op, 'observation_id', size, () => utf8(op));
      return forge(q, { id: 'observe', kind: 'observe', actor: reconciler, at: q.t, operations: [op] });
    })).toEqual(['accepted', 'resource_limit:evidence_bytes']);
  });

  it('an Observation riding in a dispatch_next (the grant\'s refreshed read) of exactly evidence_bytes replays; one byte more is resource_limit', () => {
    expect(atLimit((q, size) => {
      q.grant(); // p-1: the gated node below is then the fair winner
      q.submit([{ node_key: 'gated', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(7) }] }]);
      const at = q.tick();
      const op = observation({ id: 'o', resource: issue(7), condition: 'completed', satisfied: true, observedAt: at, generation: 'initial' });
      const id = 'grant-with-read';
      const built = dispatchNextWithObservations(replayLedger(new TextEncoder().encode(q.text())), GRANT, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at, [op]);
      expect(built.operations.map((o) => o.kind)).toEqual(['Observation', 'Claim']);
      // The builder refuses an oversized read (below): a hand-written grant pads it afterwards,
      // the Claim binding the padded id.
      const [read, claim] = built.operations as unknown as [JsonObject, JsonObject];
      padTo(read, 'observation_id', size, () => utf8(read));
      claim.observations = [read.observation_id!];
      return forgeBuilt(q, id, dispatcher, at, built);
    })).toEqual(['accepted', 'resource_limit:evidence_bytes']);
  });

  it('dispatchNextWithObservations refuses a refreshed read over evidence_bytes before anything is published (resource_limit, details.limit evidence_bytes); one of exactly evidence_bytes is built', () => {
    const build = (size: number) => {
      const q = queue({}, { evidence_bytes: LIMIT });
      q.grant();
      q.submit([{ node_key: 'gated', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(7) }] }]);
      const at = q.tick();
      const op = observation({ id: 'o', resource: issue(7), condition: 'completed', satisfied: true, observedAt: at, generation: 'initial' });
      padTo(op, 'observation_id', size, () => utf8(op));
      const id = 'grant-with-read';
      return () => dispatchNextWithObservations(replayLedger(new TextEncoder().encode(q.text())), GRANT, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at, [op]);
    };
    expect(build(LIMIT)().operations.map((o) => o.kind)).toEqual(['Observation', 'Claim']);
    expect(build(LIMIT + 1)).toThrow(expect.objectContaining({ code: 'resource_limit', details: expect.objectContaining({ limit: 'evidence_bytes', max: LIMIT }) }));
  });

  it('a Control of exactly evidence_bytes replays; one byte more is resource_limit', () => {
    const LOW = 300;
    const build = (size: number): Uint8Array => {
      const q = queue({}, { evidence_bytes: LOW });
      const op = structuredClone(control('credential_generation', 'g', 'operator_request').operations[0]) as unknown as JsonObject;
      padTo(op, 'value', size, () => utf8(op));
      return forge(q, { id: 'control', kind: 'control', actor: admin, at: q.tick(), operations: [op] });
    };
    expect(byteVerdict(build(LOW))).toBe('accepted');
    const over = byteError(build(LOW + 1));
    expect([over?.code, over?.details?.limit]).toEqual(['resource_limit', 'evidence_bytes']);
  });
});

describe('issue 10 leftover 3: an Observation is of a resource some pool may depend on (spec 7.16; observation_invalid)', () => {
  const foreign = { ...issue(9), repository: 'other/repo', repository_id: '2' };
  const observe = (q: TestQueue, resource: JsonObject) => byteVerdict(forge(q, {
    id: 'observe', kind: 'observe', actor: reconciler, at: q.tick(),
    operations: [observation({ id: 'o-1', resource, condition: 'completed', satisfied: false, observedAt: q.t, generation: 'initial' })],
  }));

  it('rejects a reconciler Observation of a repository no pool allows (observation_invalid); the queue repository is accepted', () => {
    const q = queue();
    expect(observe(q, foreign)).toBe('observation_invalid');
    expect(observe(q, issue(9))).toBe('accepted');
  });

  it('accepts an Observation of a repository that another pool allows', () => {
    const q = queue();
    const policy = q.state.policy!.policy as { pools: Record<string, { allowed_repositories: string[] }> };
    expect(Object.keys(policy.pools)).toEqual(['default']);
    const two = policyOf({ ...WEIGHTS, pools: { batch: {} } });
    ((two.pools as Record<string, JsonObject>).batch!).allowed_repositories = [REPOSITORY, 'other/repo'];
    expect(observe(new TestQueue(two, nodes('p', 1, 'a')), foreign)).toBe('accepted');
  });
});

describe('issue 10 leftover 4: an Issue/PR edge outside the pool\'s allowlist is resource_unauthorized (the reference\'s code)', () => {
  function gated(resource: JsonObject): string {
    const q = queue();
    const node: SubmitNode = { node_key: 'gated', payload: {}, fairness_key: 'a', depends_on: [{ kind: 'issue', condition: 'completed', resource }] };
    return byteVerdict(forge(q, { id: 'gated', kind: 'submit', actor: producer, at: q.tick(), operations: submitRequest(q.state, [node], { graphId: 'g', at: q.t }).operations as unknown as JsonObject[] }));
  }

  it('rejects an Issue dependency in a repository the pool does not allow (resource_unauthorized); the queue repository is accepted', () => {
    expect(gated({ ...issue(3), repository: 'other/repo', repository_id: '2' })).toBe('resource_unauthorized');
    expect(gated(issue(3))).toBe('accepted');
  });
});

describe('issue 10 leftover 5: admission limits answer resource_limit with details.limit naming the limit (reference)', () => {
  function submitVerdict(q: TestQueue, ns: SubmitNode[]): string {
    const built = submitRequest(q.state, ns, { graphId: 'g', at: q.tick() });
    const e = byteError(forge(q, { id: 'submit-x', kind: 'submit', actor: producer, at: q.t, operations: built.operations as unknown as JsonObject[] }));
    return e === undefined ? 'accepted' : `${e.code}:${String(e.details?.limit)}`;
  }

  it('a payload over payload_bytes is resource_limit (payload_bytes), not payload_too_large', () => {
    const q = queue({}, { payload_bytes: 64 });
    expect(submitVerdict(q, [{ node_key: 'big', payload: { s: 'x'.repeat(100) }, fairness_key: 'a' }])).toBe('resource_limit:payload_bytes');
    expect(submitVerdict(q, [{ node_key: 'small', payload: { s: 'x' }, fairness_key: 'a' }])).toBe('accepted');
  });

  it('more predecessors than predecessors is resource_limit (predecessors), not too_many_predecessors', () => {
    const q = queue({}, { predecessors: 1 }, 2);
    const after = (keys: string[]): SubmitNode => ({ node_key: 'join', payload: {}, fairness_key: 'a', depends_on: keys.map((k) => ({ kind: 'work' as const, node_key: k })) as never });
    expect(submitVerdict(q, [after(['p-1', 'p-2'])])).toBe('resource_limit:predecessors');
    expect(submitVerdict(q, [after(['p-1'])])).toBe('accepted');
  });

  it('a graph past graph_nodes is resource_limit (graph_nodes), not graph_limit', () => {
    const q = queue({}, { graph_nodes: 1 });
    expect(submitVerdict(q, nodes('more', 1, 'a'))).toBe('resource_limit:graph_nodes');
  });

  it('a pool past pending_nodes is resource_limit (pending_nodes), not pending_limit', () => {
    const q = queue({ pending_limit: 1 });
    const ns = nodes('more', 1, 'a');
    const built = submitRequest(q.state, ns, { graphId: 'h', at: q.tick() });
    const e = byteError(forge(q, { id: 'submit-h', kind: 'submit', actor: producer, at: q.t, operations: built.operations as unknown as JsonObject[] }));
    expect([e?.code, e?.details?.limit]).toEqual(['resource_limit', 'pending_nodes']);
  });
});

describe('spec 7.16 "after a cutover, acquire a fresh authorized observation": a credential generation is never returned to (credential_generation_reused)', () => {
  const controlTo = (q: TestQueue, id: string, value: string) => forge(q, { id, kind: 'control', actor: admin, at: q.tick(), operations: control('credential_generation', value, 'operator_request').operations as unknown as JsonObject[] });

  it('initial -> gen-2 -> initial, and gen-2 -> gen-3 -> gen-2, are refused; a new generation and setting the current one again are accepted; a checkpoint remembers the generations seen', () => {
    const q = new TestQueue(policyOf(), nodes('p', 1, ''));
    q.w.publish('to-gen-2', admin, q.tick(), control('credential_generation', 'gen-2', 'operator_request'));
    expect(byteVerdict(controlTo(q, 'back', 'initial'))).toBe('credential_generation_reused');
    expect(byteVerdict(controlTo(q, 'same', 'gen-2'))).toBe('accepted');
    q.w.publish('to-gen-3', admin, q.tick(), control('credential_generation', 'gen-3', 'operator_request'));
    expect(byteVerdict(controlTo(q, 'back-2', 'gen-2'))).toBe('credential_generation_reused');
    expect(byteVerdict(controlTo(q, 'ahead', 'gen-4'))).toBe('accepted');
    // After compaction the generations seen before the checkpoint stay seen.
    const compacted = checkpointOf(q.text());
    const p = replayLedger(new TextEncoder().encode(compacted));
    const built = control('credential_generation', 'gen-2', 'operator_request');
    const commit = buildCommit(p.state, { id: 'after', kind: built.kind, parameters: built.parameters, actor: admin, at: q.tick(), operations: built.operations as QueueOperation[] });
    expect(byteVerdict(new TextEncoder().encode(`${compacted}${canonicalize(commit as unknown as JsonValue)}\n`))).toBe('credential_generation_reused');
    // A checkpoint whose seen_generations leaves out `initial` still cannot return to it.
    const forgetful = editCheckpoint(compacted, (st) => {
      st.seen_generations = Object.fromEntries(Object.keys(st.seen_generations as JsonObject).filter((g) => g !== 'initial').map((g) => [g, true]));
    });
    const p2 = replayLedger(new TextEncoder().encode(forgetful));
    const back = control('credential_generation', 'initial', 'operator_request');
    const commit2 = buildCommit(p2.state, { id: 'after-2', kind: back.kind, parameters: back.parameters, actor: admin, at: q.tick(), operations: back.operations as QueueOperation[] });
    expect(byteVerdict(new TextEncoder().encode(`${forgetful}${canonicalize(commit2 as unknown as JsonValue)}\n`))).toBe('credential_generation_reused');
  });
});
