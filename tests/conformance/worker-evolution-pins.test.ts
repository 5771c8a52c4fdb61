/**
 * Worker evolution (spec 7.10, 7.14, §8.2 "Worker evolution": "pins stay pinned"): a dispatch
 * group's members share one "immutable ref revision", so the packer never puts Work of two
 * revisions in one group and replay refuses a hand-written grant that does; a checkpoint cannot
 * re-freeze a Work's admission contract to un-pause it; a worker's child cannot pick a revision
 * ("caller-local proposal metadata MUST NOT select a revision"). Ledgers are replayed as bytes.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { workId } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { installedContract, workerRoute } from '../../engine/replay/ops/deployment.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import { bootstrapRequest, operationsRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../../engine/requests/writer.ts';
import type { QueueOperation } from '../../engine/schema/index.ts';
import { currentRevision } from '../../engine/state/routes.ts';
import { admin, dispatcher, nodes, policyOf, producer, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { checkpointOf, editCheckpoint } from '../support/checkpoints.ts';
import { byteVerdict, completedClaim, forgeBuilt } from './forbidden.ts';

const T0 = 1_700_000_000_000;
const REF_A = 'a'.repeat(40);
const REF_B = 'b'.repeat(40);
const INCOMPATIBLE = 'e'.repeat(64);
const GRANT = { pool: 'default', max_claims: 2, max_dispatches: 2, max_bytes: 49152 };

function queue(first: SubmitNode[]): LedgerWriter {
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001', maxClaims: 2 });
  ((policy.pools as JsonObject).default as { profiles: { default: JsonObject } }).profiles.default.ref = REF_A;
  const w = new LedgerWriter();
  w.publish('bootstrap', producer, T0, bootstrapRequest(policy, 'epoch-1', first, { graphId: 'g', at: T0 }));
  return w;
}

/** A Deployment moving (pool default, profile default) to `ref`; `contract` makes it incompatible. */
function deploy(w: { state: LedgerWriter['state'] }, ref: string, contract?: string): BuiltRequest {
  const route = workerRoute(w.state, 'default', 'default')!;
  const installed = (w.state.policy!.policy.pools as Record<string, { profiles: Record<string, JsonObject> }>).default!.profiles.default!;
  return operationsRequest('control', [{
    kind: 'Deployment', pool: 'default', worker_profile: 'default', expected_ref: route.currentRef, expected_contract: currentRevision(route).contract,
    profile: { ...installed, ref, ...(contract === undefined ? {} : { logical_contract: contract }) }, available: true, reason: 'worker_deployed',
  } as JsonObject]);
}

function verdict(text: string): string {
  try {
    replayLedger(new TextEncoder().encode(text));
    return 'accepted';
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return e.code;
  }
}

/** The group (its frozen ref) each Work of `ids` was granted into. */
function refsOf(w: LedgerWriter, ...keys: string[]): string[] {
  return keys.map((k) => {
    const work = w.state.works.get(workId('g', k))!;
    return String(w.state.dispatches.get(w.state.claims.get(work.currentClaim!)!.dispatchId)!.profile.ref);
  });
}

describe('one revision per dispatch group', () => {
  it('Work pinned to A and fresh Work on an incompatible B are granted in two groups, each frozen at its own revision', () => {
    const w = queue([{ node_key: 'pinned', payload: {}, execution_ref: REF_A }]);
    w.publish('deploy-b', admin, T0 + 1, deploy(w, REF_B, INCOMPATIBLE));
    w.publish('fresh', producer, T0 + 2, submitRequest(w.state, [{ node_key: 'fresh', payload: {} }], { graphId: 'g', at: T0 + 2 }));
    w.dispatchNext('grant', dispatcher, T0 + 3, GRANT);
    expect(w.state.dispatches.size).toBe(2);
    expect(refsOf(w, 'pinned', 'fresh')).toEqual([REF_A, REF_B]);
    expect(verdict(w.text())).toBe('accepted');
  });

  it('an unpinned Work on the current B does not carry Work pinned to A into its group', () => {
    const w = queue([{ node_key: 'first', payload: {} }]);
    w.publish('pin', producer, T0 + 1, submitRequest(w.state, [{ node_key: 'pinned', payload: {}, execution_ref: REF_A }], { graphId: 'g', at: T0 + 1 }));
    w.publish('deploy-b', admin, T0 + 2, deploy(w, REF_B));
    w.dispatchNext('grant', dispatcher, T0 + 3, GRANT);
    expect(refsOf(w, 'first', 'pinned')).toEqual([REF_B, REF_A]);
    expect(verdict(w.text())).toBe('accepted');
  });

  it('a hand-written grant putting both revisions in one group is not the fair prefix (claim_not_fair); the packer\'s own grant replays', () => {
    const w = queue([{ node_key: 'first', payload: {} }]);
    w.publish('pin', producer, T0 + 1, submitRequest(w.state, [{ node_key: 'pinned', payload: {}, execution_ref: REF_A }], { graphId: 'g', at: T0 + 1 }));
    w.publish('deploy-b', admin, T0 + 2, deploy(w, REF_B));
    const prefix = w.text();
    w.dispatchNext('grant', dispatcher, T0 + 3, GRANT);
    const granted = JSON.parse(w.text().split('\n').filter(Boolean).at(-1)!) as { request: { id: string; parameters: JsonObject }; operations: JsonObject[] };
    const [first, second] = granted.operations as Array<JsonObject & { dispatch_id: string; handle: string }>;
    expect(first!.dispatch_id).not.toBe(second!.dispatch_id);
    const mixed = [first!, { ...second!, dispatch_id: first!.dispatch_id, handle: 'h2' }];
    const state = replayLedger(new TextEncoder().encode(prefix)).state;
    const commit = buildCommit(state, { id: granted.request.id, kind: 'dispatch_next', parameters: granted.request.parameters, actor: dispatcher, at: T0 + 3, operations: mixed as unknown as QueueOperation[] });
    expect(verdict(`${prefix}${canonicalize(commit as unknown as JsonValue)}\n`)).toBe('claim_not_fair');
    expect(verdict(w.text())).toBe('accepted');
  });
});

describe('a checkpoint keeps each Work\'s frozen admission contract', () => {
  function paused(first: SubmitNode) {
    const w = queue([first]);
    w.publish('deploy-c', admin, T0 + 1, deploy(w, 'c'.repeat(40), INCOMPATIBLE));
    return { checkpoint: checkpointOf(w.text()), id: workId('g', first.node_key!) };
  }

  it('control: the honest checkpoint of a Work paused by an incompatible Deployment replays', () => {
    expect(verdict(paused({ node_key: 'old', payload: {} }).checkpoint)).toBe('accepted');
  });

  // Re-freezing it to another registered revision's contract is not detectable without the
  // compacted history (which revision was current at its admission); a contract no revision has is.
  it('re-freezing it to a contract no revision of its route has is checkpoint_invalid', () => {
    const { checkpoint, id } = paused({ node_key: 'old', payload: {} });
    const invented = editCheckpoint(checkpoint, (s) => { s.admission_contracts = { [id]: '1'.repeat(64) }; });
    expect(verdict(invented)).toBe('checkpoint_invalid');
  });

  it('overriding the contract a Work\'s own definition names is checkpoint_invalid', () => {
    const w = queue([{ node_key: 'probe', payload: {} }]);
    const installed = (w.state.policy!.policy.pools as Record<string, { profiles: Record<string, JsonObject> }>).default!.profiles.default!;
    const { checkpoint, id } = paused({ node_key: 'explicit', payload: {}, admission_contract: installedContract(installed) });
    expect(verdict(checkpoint)).toBe('accepted');
    expect(verdict(editCheckpoint(checkpoint, (s) => { s.admission_contracts = { [id]: INCOMPATIBLE }; }))).toBe('checkpoint_invalid');
  });
});

describe('a worker\'s child cannot select a revision', () => {
  it('a child pinned to a revision its parent does not run is child_entitlement; an unpinned child is accepted', () => {
    const q = new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 1, 'a'));
    const oldRef = workerRoute(q.state, 'default', 'default')!.currentRef;
    q.w.publish('deploy-b', admin, q.tick(), deploy(q.w, REF_B));
    const done = completedClaim(q, '7001');
    const child = (extra: Partial<SubmitNode>) => submitRequest(q.state, [{ node_key: 'child', payload: {}, fairness_key: 'a', priority: 3, ...extra }], { graphId: 'g', at: q.t });
    expect(byteVerdict(forgeBuilt(q, 'child-pinned', done.worker, q.tick(), child({ execution_ref: oldRef })))).toBe('child_entitlement');
    expect(byteVerdict(forgeBuilt(q, 'child', done.worker, q.tick(), child({})))).toBe('accepted');
  });
});
