/**
 * A small, complete queue for tests that read a real multi-commit ledger: a policy with two
 * equally weighted teams, a four-node DAG, a backlog imbalance (Platform 40 ready tasks,
 * Security 4) and six grants each started, bound, finished, verified and released, all
 * published through the engine's request builders and validated by replay. Every Work ends
 * ready or terminal. Deterministic: fixed clock and ids. (The demo story is lib/demo/day.ts.)
 */
import type { JsonObject } from '../../engine/json.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { dispatchBound, dispatchStarted, release, result } from '../../engine/requests/lifecycle.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';

const DEMO_REPOSITORY = 'acme/fairway-demo';
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

const admin: Actor = { role: 'administrator', principal: '1001', repository: DEMO_REPOSITORY };
const producer: Actor = { role: 'producer', principal: '1001', repository: DEMO_REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: DEMO_REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: DEMO_REPOSITORY };

export interface DemoGrant {
  request_id: string;
  node_key: string;
  fairness_key: string;
  priority: number;
  reason: string;
}

export interface DemoQueue {
  ledger: string;
  grants: DemoGrant[];
  writer: LedgerWriter;
}

export function buildSmallQueue(): DemoQueue {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: DEMO_REPOSITORY, principal: '1001', weights: { platform: 1, security: 1 }, logicalLimit: 64, nativeLimit: 64 });
  let t = T0;
  const tick = () => (t += 60_000);

  const migration: SubmitNode[] = [
    { node_key: 'inspect-sdk-usage', payload: { plan: 'Inspect current SDK usage' }, fairness_key: 'platform', priority: 2 },
    { node_key: 'propose-code-changes', payload: { plan: 'Propose code changes' }, depends_on: [{ kind: 'work', node_key: 'inspect-sdk-usage' }], fairness_key: 'platform', priority: 2 },
    { node_key: 'propose-docs-changes', payload: { plan: 'Propose documentation changes' }, depends_on: [{ kind: 'work', node_key: 'inspect-sdk-usage' }], fairness_key: 'platform', priority: 2 },
    { node_key: 'review-proposals', payload: { plan: 'Review both verified proposals' }, depends_on: [{ kind: 'work', node_key: 'propose-code-changes' }, { kind: 'work', node_key: 'propose-docs-changes' }], fairness_key: 'platform', priority: 2 },
  ];
  w.publish('demo-bootstrap', producer, tick(), bootstrapRequest(policy as JsonObject, 'demo-epoch-1', migration, { graphId: 'sdk-migration', at: t }));

  const backlog = (team: string, n: number): SubmitNode[] =>
    Array.from({ length: n }, (_, i) => ({ node_key: `${team}-task-${String(i + 1).padStart(3, '0')}`, payload: { team, task: i + 1 }, fairness_key: team }));
  w.publish('demo-platform-backlog', producer, tick(), submitRequest(w.state, backlog('platform', 40), { graphId: 'platform-backlog', at: t }));
  w.publish('demo-security-backlog', producer, tick(), submitRequest(w.state, backlog('security', 4), { graphId: 'security-backlog', at: t }));

  const grants: DemoGrant[] = [];
  for (let round = 1; round <= 6; round++) {
    const id = `demo-grant-${round}`;
    const { commit, built } = w.dispatchNext(id, dispatcher, tick(), { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
    if (commit === null) break;
    for (const e of built.plan.explanations.slice(0, built.plan.claims.length)) {
      if (e.work === null) continue;
      grants.push({ request_id: id, node_key: e.work.node_key, fairness_key: e.work.fairness_key, priority: e.work.priority, reason: e.reason });
    }
    const dispatchId = built.plan.claims[0]!.dispatch_id;
    w.publish(`${id}-start`, dispatcher, tick(), dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
    w.publish(`${id}-bind`, reconciler, tick(), dispatchBound(w.state, dispatchId, String(9000 + round), t));
    const worker: Actor = { role: 'worker', principal: '1001', repository: DEMO_REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: String(9000 + round), run_attempt: 1, dispatch_id: dispatchId, claim_handle: 'h1' };
    w.publish(`${id}-finish`, worker, tick(), finishRequest(w.state, { dispatch_id: dispatchId, claim_handle: 'h1', outcome: 'completed' }, t));
    const workId = built.plan.claims[0]!.work_id;
    w.publish(`${id}-result`, reconciler, tick(), result(w.state, workId, { summary: 'verified' }, t, `receipt-${round}`));
    w.publish(`${id}-release`, reconciler, tick(), release(w.state, dispatchId, t));
  }
  void admin;
  return { ledger: w.text(), grants, writer: w };
}
