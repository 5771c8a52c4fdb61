/**
 * A queue for the surface-agreement tests (tests/acceptance/surfaces-agree.test.ts), built on the
 * lifecycle bench (tests/lifecycle/harness.ts: a real local Git queue, the checked Publisher and
 * the GitHub stand-in) with every lifecycle state the read surfaces show:
 *
 * - Claims open (E), completed (A, B, C) and cancelled by their worker (D, whose Work waits out
 *   its retry backoff), and a cancelled Work (M) with a dependant (N: dependency_failed);
 * - delivery barriers verified (A: a Result), failed (B: a DeliveryFailure) and pending (C), and
 *   dependants of each (J, K, and L behind K);
 * - dispatch groups released (A's, B's), bound with only terminal Claims (C's, D's), bound with
 *   an open Claim (E's), launch uncertain (a 502 to its POST) and reserved, never launched (grant-4's);
 * - Issue gates observed ready and fresh (G1), waiting (G2), ready but stale (#7: G3 behind
 *   Work X as well, and G4 on its own in graph `h`);
 * - fairness keys of several weights and classes, a per-account limit of 1 (E holds key "");
 * - a compaction checkpoint after the first grants (their history is at its prior Git commit);
 * - grants paused by an operator Control at the tip.
 */
import type { JsonObject } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { cancelWork, control, observation } from '../../engine/requests/lifecycle.ts';
import { operationsRequest, submitRequest, type BuiltRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { settleDelivery } from '../../lib/lifecycle/delivery.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { compact } from '../../lib/publisher/compact.ts';
import { setRunStatus } from '../fake-github/routes-actions.ts';
import { createBench, finish, launchAndActivate, PRINCIPAL, receipts, REPOSITORY, type Bench } from '../lifecycle/harness.ts';

const DESIGN = 'acme/design';
const EFFECT = { version: 1, outputs: [{ type: 'create_issue', min: 1, max: 1 }] };

function issue(number: number): JsonObject {
  return { kind: 'issue', host: 'github.com', repository: DESIGN, repository_id: '77', resource_id: String(7000 + number), number: String(number) };
}

function gate(number: number): NonNullable<SubmitNode['depends_on']>[number] {
  return { kind: 'issue', condition: 'completed', resource: issue(number) } as NonNullable<SubmitNode['depends_on']>[number];
}

const work = (key: string): NonNullable<SubmitNode['depends_on']>[number] => ({ kind: 'work', node_key: key });

export interface SurfacesQueue {
  bench: Bench;
  /** The ledger text just before compaction (every commit retained). */
  uncompacted: string;
  /** Request id of the grants, in order (grant-1 and -2, -3 are before the checkpoint). */
  grants: string[];
  /** The commit that paused grants (the tip) and the one before it. */
  pauseCommit: string;
  /** Evaluation time: shortly after the tip. */
  asOf: number;
}

async function publish(b: Bench, requestId: string, role: 'producer' | 'reconciler' | 'administrator', prepare: (p: Projection, at: number) => BuiltRequest): Promise<void> {
  b.clock.t += 1000;
  await b.publisher.publish({ requestId, actor: { role, principal: PRINCIPAL, repository: REPOSITORY }, prepare: (p, ids) => prepare(p, ids.at), now: b.now });
}

interface Member {
  dispatch: string;
  handle: string;
  claim: string;
}

function handleOf(p: Projection, workId: string): Member {
  const c = p.claim(p.work(workId)!.currentClaim!)!;
  return { dispatch: c.dispatchId, handle: c.handle, claim: c.claimId };
}

const byKey = (p: Projection, key: string): string => [...p.works()].find((w) => w.nodeKey === key)!.workId;

export async function surfacesQueue(): Promise<SurfacesQueue> {
  const bench = await createBench({
    maxClaims: 3,
    settings: (s) => {
      s.accounting_weights = { '': 1, alice: 3, bob: 1, carol: 2, dave: 1, erin: 1 };
      s.pools.default!.per_account_limit = 1;
    },
    nodes: [
      { node_key: 'A', payload: { plan: 'a', effect_contract: EFFECT }, priority: 2, fairness_key: 'alice' },
      { node_key: 'B', payload: { plan: 'b', effect_contract: EFFECT }, priority: 2, fairness_key: 'bob' },
      { node_key: 'C', payload: { plan: 'c' }, priority: 3, fairness_key: 'carol' },
    ],
  });
  bench.fake.state.createRepo('acme', 'design');
  const b = bench;
  const deps = { publisher: b.publisher, api: b.api, reconciler: b.reconciler, now: b.now };
  const submit = (id: string, nodes: SubmitNode[], graphId = 'g') => publish(b, id, 'producer', (p, at) => submitRequest(p.state, nodes, { graphId, at }));

  // grant-1: A, B and C (one group each: their keys differ); all three complete. A's Result
  // (its group released on its run's success), B's DeliveryFailure (released on failure), C pending.
  b.clock.t += 1000;
  const groups = await b.grant('grant-1', 3, 3);
  const runs = new Map<string, string>();
  for (const d of groups) runs.set(d, await launchAndActivate(b, d));
  let p = await b.projection();
  const [a, bb, c] = ['A', 'B', 'C'].map((k) => handleOf(p, byKey(p, k))) as [Member, Member, Member];
  for (const m of [a, bb, c]) await finish(b, m.dispatch, m.handle, 'completed', runs.get(m.dispatch)!);
  await settleDelivery(deps, { claimId: a.claim, receipts: receipts(a.dispatch, a.claim, runs.get(a.dispatch)!, [{ type: 'create_issue', status: 'succeeded', ref: 'acme/queue#1' }]) });
  setRunStatus(b.fake.state, runs.get(a.dispatch)!, 'completed', 'success');
  setRunStatus(b.fake.state, runs.get(bb.dispatch)!, 'completed', 'failure');
  b.clock.t += 300_000;
  await settleDelivery(deps, { claimId: bb.claim, receipts: null });
  await reconcileDispatch(b.reconcileDeps(), a.dispatch);
  await reconcileDispatch(b.reconcileDeps(), bb.dispatch);

  // grant-2: D, cancelled by its worker (retry backoff); its group stays bound, unreleased.
  await submit('submit-d', [{ node_key: 'D', payload: { plan: 'd' }, priority: 3, fairness_key: 'bob' }]);
  b.clock.t += 1000;
  const [d2] = await b.grant('grant-2');
  const run2 = await launchAndActivate(b, d2!);
  p = await b.projection();
  await finish(b, d2!, handleOf(p, byKey(p, 'D')).handle, 'cancelled', run2);
  // grant-3: E (D is in its backoff), launched and running.
  await submit('submit-e', [{ node_key: 'E', payload: { plan: 'e' }, priority: 3, fairness_key: '' }]);
  b.clock.t += 1000;
  const [d3] = await b.grant('grant-3');
  await launchAndActivate(b, d3!);
  // M is cancelled by an operator; N depended on it.
  await submit('submit-mn', [
    { node_key: 'M', payload: { plan: 'm' }, priority: 4, fairness_key: 'erin' },
    { node_key: 'N', payload: { plan: 'n' }, priority: 4, fairness_key: 'erin', depends_on: [work('M')] },
  ]);
  p = await b.projection();
  const m = byKey(p, 'M');
  await publish(b, 'cancel-m', 'administrator', () => cancelWork([m], 'operator_cancelled'));

  const uncompacted = new TextDecoder().decode((await b.store.read()).bytes!);
  b.clock.t += 1000;
  const compacted = await compact(b.publisher, actorOf('administrator', PRINCIPAL), b.now);
  if (compacted.status !== 'committed') throw new Error(`compaction did not commit: ${compacted.status}`);

  // After the checkpoint: dependants of every barrier, gates, and a ready backlog across keys and classes.
  await submit('submit-more', [
    { node_key: 'J', payload: { plan: 'j' }, fairness_key: 'dave', depends_on: [work('A'), work('C')] },
    { node_key: 'K', payload: { plan: 'k' }, fairness_key: 'dave', depends_on: [work('B')] },
    { node_key: 'L', payload: { plan: 'l' }, fairness_key: 'dave', depends_on: [work('K')] },
    { node_key: 'X', payload: { plan: 'x' }, priority: 4, fairness_key: 'alice' },
    { node_key: 'G3', payload: { plan: 'g3' }, fairness_key: 'dave', depends_on: [work('X'), gate(7)] },
    { node_key: 'G1', payload: { plan: 'g1' }, priority: 2, fairness_key: 'carol', depends_on: [gate(8)] },
    { node_key: 'G2', payload: { plan: 'g2' }, fairness_key: 'dave', depends_on: [gate(9)] },
    { node_key: 'R1', payload: { plan: 'r1' }, priority: 1, fairness_key: 'bob' },
    { node_key: 'R2', payload: { plan: 'r2' }, priority: 2, fairness_key: 'carol' },
    { node_key: 'R3', payload: { plan: 'r3' }, priority: 3, fairness_key: 'alice' },
    { node_key: 'R4', payload: { plan: 'r4' }, priority: 5, fairness_key: '' },
    { node_key: 'R5', payload: { plan: 'r5' }, priority: 3, fairness_key: 'alice' },
    { node_key: 'R6', payload: { plan: 'r6' }, priority: 2, fairness_key: 'erin' },
    { node_key: 'R7', payload: { plan: 'r7' }, priority: 4, fairness_key: 'dave' },
  ]);
  await submit('submit-h', [{ node_key: 'G4', payload: { plan: 'g4' }, fairness_key: 'dave', depends_on: [gate(7)] }], 'h');
  const observe = (id: string, number: number, satisfied: boolean) =>
    publish(b, id, 'reconciler', (_p, at) => operationsRequest('observe', [observation({ id, resource: issue(number), condition: 'completed', satisfied, observedAt: at, generation: 'initial' })]));
  await observe('obs-7', 7, true);
  b.clock.t += 120_000; // older than max_observation_age_ms: #7's observation is stale from here on
  await observe('obs-8', 8, true);
  await observe('obs-9', 9, false);
  // grant-4: two Claims in two groups: one launched into a 502 (a run may exist: launch uncertain), one never launched.
  b.clock.t += 1000;
  const [d4] = await b.grant('grant-4', 2, 2);
  b.fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', kind: 'status', status: 502, process: true, body: { message: 'Server Error', documentation_url: 'x' } });
  const launched = await launchGroup(b.launchDeps(), d4!);
  if (launched.outcome !== 'uncertain') throw new Error(`grant-4's launch is ${launched.outcome}, not uncertain`);
  await publish(b, 'pause-grants', 'administrator', () => control('grants_paused', true, 'incident'));
  const tip = await b.replayValid();
  return { bench, uncompacted, grants: ['grant-1', 'grant-2', 'grant-3', 'grant-4'], pauseCommit: tip.tip!, asOf: b.clock.t + 1000 };
}
