/**
 * "A developer's day" (spec section 0) as a real queue, the one demo story (the
 * console's demo repository and `fairway demo`): every request below is
 * published through the Publisher (or into an in-memory LedgerWriter), in time
 * order, ending a few minutes before `now`, so readiness, retry delays and
 * observation freshness read naturally when the queue is evaluated at the wall clock.
 *
 * The story: an SDK-migration DAG gated by a completed design Issue and an
 * unmerged upstream PR; a shared worker carrying three SDK tasks (completed /
 * cancelled / completed, the cancelled one now retry-delayed); Platform's 500
 * ready tasks against Security's 10 with equal weights; all five priority
 * classes; a runner outage with grants paused; a delivery failure and its
 * approved replacement node; launches still running, uncertain or reserved.
 */
import type { JsonObject } from '../../engine/json.ts';
import { workerActor } from '../../engine/lifecycle/finish.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import { control, deliveryFailure, dispatchBound, dispatchStarted, dispatchUncertain, observation, release, result } from '../../engine/requests/lifecycle.ts';
import { operationsRequest } from '../../engine/requests/operations.ts';
import type { LedgerWriter } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { Publisher } from '../publisher/publisher.ts';
import { DEMO_EPOCH, DEMO_PRINCIPAL, DEMO_REPOSITORY, demoPolicy } from './policy.ts';
import { Seeder, type Grant, type GrantDecision } from './seeder.ts';
import { backlogNodes, DESIGN_ISSUE, PROBE_TEXT, sdkMigrationNodes, UPSTREAM_PR } from './nodes.ts';

export { PROBE_TEXT } from './nodes.ts';

export interface DemoOptions {
  /** The wall clock the day ends at (ms); the story runs over the six hours before it. */
  now: number;
  /** Also admit the XSS probe Work (browser tests). */
  probe?: boolean;
}

export interface DemoSummary {
  requests: number;
  tip: string;
  /** Decision time of the first and last request. */
  from: number;
  to: number;
  /** Every granted Claim in grant order, with the scheduler's reason. */
  grants: GrantDecision[];
}

const MINUTE = 60_000;
const base = { principal: DEMO_PRINCIPAL, repository: DEMO_REPOSITORY };
const producer: Actor = { role: 'producer', ...base };
const admin: Actor = { role: 'administrator', ...base };
const reconciler: Actor = { role: 'reconciler', ...base };
const dispatcher: Actor = { role: 'dispatcher', ...base, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const POOL = 'default';

/** The worker actor of one member: the group's frozen profile principal/workflow and bound run (replay checks it). */
function worker(projection: Projection, dispatchId: string, handle: string, runId: string): Actor {
  return workerActor(projection, dispatchId, runId, handle);
}

export async function seedDemoDay(publisher: Publisher | LedgerWriter, options: DemoOptions): Promise<DemoSummary> {
  const end = Math.floor(options.now / MINUTE) * MINUTE;
  const at = (minutesBeforeNow: number) => end - minutesBeforeNow * MINUTE;
  const s = new Seeder(publisher);
  let run = 7000;

  /** Start, bind and (optionally) finish, verify and release one singleton group. */
  const lifecycle = async (g: Grant, index: number, t: number, outcome: 'result' | 'delivery_failure' | 'running' | 'uncertain'): Promise<void> => {
    const claim = g.claims[index]!;
    const id = `${g.commit.request.id}-${claim.handle}-${index + 1}`;
    const runId = String((run += 1));
    await s.publish(`${id}-start`, dispatcher, at(t), () => dispatchStarted(claim.dispatch_id, dispatcher as unknown as JsonObject));
    if (outcome === 'uncertain') {
      await s.publish(`${id}-uncertain`, reconciler, at(t - 1), () => dispatchUncertain(claim.dispatch_id, 'dispatch_ack_timeout'));
      return;
    }
    await s.publish(`${id}-bind`, reconciler, at(t - 1), (queue) => dispatchBound(queue, claim.dispatch_id, runId, at(t - 1)));
    if (outcome === 'running') return;
    const w = worker(s.current, claim.dispatch_id, claim.handle, runId);
    await s.publish(`${id}-finish`, w, at(t - 8), (queue) => finishRequest(queue, { dispatch_id: claim.dispatch_id, claim_handle: claim.handle, outcome: 'completed' }, at(t - 8)));
    if (outcome === 'result') {
      await s.publish(`${id}-result`, reconciler, at(t - 9), (queue) => result(queue, claim.work_id, { summary: 'verified outputs', files_changed: 3 }, at(t - 9), `receipt-${runId}`));
    } else {
      await s.publish(`${id}-delivery-failure`, reconciler, at(t - 9), (queue) => deliveryFailure(queue, claim.work_id, at(t - 9), 5, 'delivery_unverifiable'));
    }
    await s.publish(`${id}-release`, reconciler, at(t - 10), (queue) => release(queue, claim.dispatch_id, at(t - 10)));
  };

  // 09:00-ish: the agent plans the SDK migration; the queue bootstraps with it.
  const policy = demoPolicy();
  const sdk = sdkMigrationNodes();
  const genesis = bootstrapRequest(policy, DEMO_EPOCH, sdk, { graphId: 'sdk-migration', at: at(360) });
  await s.publish('plan-sdk-migration', producer, at(360), () => genesis, genesis);

  // Trusted reads of the two external gates: the design Issue is completed, the upstream PR is open.
  const observe = (id: string, merged: boolean, t: number) =>
    s.publish(id, reconciler, at(t), () =>
      operationsRequest('observe', [
        observation({ id: `${id}-issue-12`, resource: DESIGN_ISSUE, condition: 'completed', satisfied: true, observedAt: at(t), generation: 'initial' }),
        observation({ id: `${id}-pr-81`, resource: UPSTREAM_PR, condition: 'merged', satisfied: merged, observedAt: at(t), generation: 'initial' }),
      ]));
  await observe('observe-gates-morning', false, 358);

  // Inspection is the first ready task; its checked report makes the proposals ready.
  const inspect = await s.dispatchNext('dispatch-0900-inspect', dispatcher, at(355), { pool: POOL, max_claims: 3, max_dispatches: 1, max_bytes: 49152 });
  await lifecycle(inspect, 0, 354, 'result');

  // One setup-heavy shared worker takes the three ready SDK tasks together.
  const shared = await s.dispatchNext('dispatch-0935-sdk-shared', dispatcher, at(325), { pool: POOL, max_claims: 3, max_dispatches: 1, max_bytes: 49152 });
  const sharedRun = String((run += 1));
  const sharedGroup = shared.claims[0]!.dispatch_id;
  await s.publish('dispatch-0935-sdk-shared-start', dispatcher, at(324), () => dispatchStarted(sharedGroup, dispatcher as unknown as JsonObject));
  await s.publish('dispatch-0935-sdk-shared-bind', reconciler, at(323), (queue) => dispatchBound(queue, sharedGroup, sharedRun, at(323)));

  // Platform brings 500 ready tasks, Security 10; both registered with equal weights.
  const platform = backlogNodes('platform', 500, 3);
  await s.publish('platform-backlog-1', producer, at(320), (queue, ids) => submitRequest(queue, platform.slice(0, 256), { graphId: 'platform-migration', at: ids.at }));
  await s.publish('platform-backlog-2', producer, at(319), (queue, ids) => submitRequest(queue, platform.slice(256), { graphId: 'platform-migration', at: ids.at }));
  await s.publish('security-checks', producer, at(318), (queue, ids) => submitRequest(queue, backlogNodes('security', 10, 3), { graphId: 'security-checks', at: ids.at }));
  const mixed: SubmitNode[] = [
    { node_key: 'rollback-auth-cache', payload: { plan: 'Roll back the auth cache change behind the login incident' }, priority: 1, fairness_key: '' },
    ...[1, 2, 3].map((i) => ({ node_key: `triage-flaky-test-${i}`, payload: { plan: `Triage flaky test cluster ${i}` }, priority: 4, fairness_key: '' })),
    ...[1, 2].map((i) => ({ node_key: `polish-readme-${i}`, payload: { plan: `Polish README section ${i}` }, priority: 5, fairness_key: '' })),
  ];
  await s.publish('operations-mixed', producer, at(317), (queue, ids) => submitRequest(queue, mixed, { graphId: 'operations', at: ids.at }));

  // The code proposal finishes and is verified.
  const [code, docs, ci] = shared.claims;
  const sharedFinish = (claim: typeof code, outcome: 'completed' | 'cancelled', t: number) =>
    s.publish(`dispatch-0935-sdk-shared-finish-${claim!.handle}`, worker(s.current, sharedGroup, claim!.handle, sharedRun), at(t), (queue) =>
      finishRequest(queue, { dispatch_id: sharedGroup, claim_handle: claim!.handle, outcome }, at(t)));
  await sharedFinish(code, 'completed', 305);
  await s.publish('dispatch-0935-sdk-shared-result-h1', reconciler, at(304), (queue) => result(queue, code!.work_id, { summary: 'code proposal verified', pull_request: 'draft' }, at(304), `receipt-${sharedRun}-h1`));

  // A first round of fair grants across priority classes.
  const round1 = await s.dispatchNext('dispatch-1000', dispatcher, at(300), { pool: POOL, max_claims: 4, max_dispatches: 4, max_bytes: 49152 });
  for (let i = 0; i < round1.claims.length; i++) await lifecycle(round1, i, 298 - i * 12, 'result');

  // Runner outage: grants paused for an hour, then resumed. Running work still finishes.
  await s.publish('outage-pause-grants', admin, at(240), () => control('grants_paused', true, 'incident.runner_outage'));
  await sharedFinish(ci, 'completed', 200);
  await s.publish('dispatch-0935-sdk-shared-result-h3', reconciler, at(199), (queue) => result(queue, ci!.work_id, { summary: 'CI configuration verified' }, at(199), `receipt-${sharedRun}-h3`));
  await s.publish('outage-resume-grants', admin, at(180), () => control('grants_paused', false, 'incident.runner_recovered'));

  // After the outage: one verified, one delivery failure, one still running, one launch uncertain.
  const round2 = await s.dispatchNext('dispatch-1200', dispatcher, at(170), { pool: POOL, max_claims: 4, max_dispatches: 4, max_bytes: 49152 });
  await lifecycle(round2, 0, 168, 'result');
  await lifecycle(round2, 1, 150, 'delivery_failure');
  const failed = round2.claims[1]!;
  await s.publish('replace-after-delivery-failure', producer, at(130), (queue, ids) => {
    const old = queue.work(failed.work_id)!;
    const built = submitRequest(queue, [{
      node_key: `${old.nodeKey}-remediation`,
      payload: { plan: 'Inspect the partial delivery and re-apply only verified-idempotent writes', replaces: old.nodeKey },
      priority: old.priority, fairness_key: old.fairnessKey, pool: old.pool,
    }], { graphId: old.graphId, at: ids.at });
    (built.operations[0] as unknown as JsonObject).replacement_of = { work_id: old.workId, disposition: 'inspection', evidence: 'ops-review-2041' };
    return built;
  });
  if (round2.claims.length > 2) await lifecycle(round2, 2, 120, 'running');
  if (round2.claims.length > 3) await lifecycle(round2, 3, 110, 'uncertain');

  // The shared worker's documentation task is cancelled: it waits out the retry backoff.
  await sharedFinish(docs, 'cancelled', 60);
  await s.publish('dispatch-0935-sdk-shared-release', reconciler, at(55), (queue) => release(queue, sharedGroup, at(55)));

  // Fresh gate reads: the upstream PR is still not merged, so the review keeps waiting.
  await observe('observe-gates-afternoon', false, 20);

  // The latest grant: reserved, not yet sent.
  await s.dispatchNext('dispatch-1440', dispatcher, at(10), { pool: POOL, max_claims: 2, max_dispatches: 2, max_bytes: 49152 });

  if (options.probe === true) {
    await s.publish('xss-probe', producer, at(5), (queue, ids) => submitRequest(queue, [{
      node_key: PROBE_TEXT, payload: { note: PROBE_TEXT, html: `<script>alert(2)</script>${PROBE_TEXT}` }, priority: 4, fairness_key: '',
    }], { graphId: 'xss-probe', at: ids.at }));
  }
  return { requests: s.count, tip: s.current.tip!, from: at(360), to: options.probe === true ? at(5) : at(10), grants: s.decisions };
}
