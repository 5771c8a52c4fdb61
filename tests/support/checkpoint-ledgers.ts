/**
 * Test support for checkpoint tests: an implementation-neutral view of a replay state and a
 * deterministic request driver that decides only from the state it runs on (so two equivalent
 * states produce the same requests).
 */
import { canonicalize } from '../../engine/codec/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { dispatchBound, dispatchStarted, deliveryFailure, observation, release, result } from '../../engine/requests/lifecycle.ts';
import { finishRequest, operationsRequest, submitRequest, type SubmitNode } from '../../engine/requests/operations.ts';
import type { LedgerWriter } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { clockView } from '../../engine/scheduler/clocks.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import { Projection } from '../../engine/replay/projection.ts';
import type { ReplayState } from '../../engine/state/state.ts';
import { summarize } from '../../engine/replay/summary.ts';

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
const sorted = <T>(m: ReadonlyMap<string, T>): Array<[string, T]> => [...m.entries()].sort(byKey);

/** The summary without what a checkpoint root itself changes (tip, ledger commit count, request count). */
export function comparableSummary(p: Projection): JsonObject {
  const s = summarize(p) as unknown as JsonObject;
  const copy: JsonObject = { ...s };
  delete copy.tip;
  delete copy.commits;
  delete copy.requests;
  return copy;
}

export function nextSelection(state: ReplayState, at: number, pool = 'default'): JsonValue {
  const plan = planNext(state, pool, at);
  return plan.selected ? { work: plan.work.workId, observations: plan.observations } : { reason: plan.reason };
}

/**
 * Everything replay derives, with commit ids and ordinals named by the request that made the
 * commit (so a rebased or compacted ledger compares equal). Left out: what a checkpoint does not
 * keep (which commits touched a Work, release / delivery-failure / observation commit ids, the
 * operation index of a Claim behind its grant's Observations, old epochs' Policies).
 */
export function semantic(state: ReplayState): JsonValue {
  const byCommit = new Map<string, string>();
  const byOrdinal = new Map<number, string>();
  for (const r of state.requests.values()) {
    byCommit.set(r.commitId, r.requestId);
    byOrdinal.set(r.ordinal, r.requestId);
  }
  const c = (id: string | null) => (id === null ? null : byCommit.get(id) ?? `unknown:${id}`);
  const available = [...state.works.values()].filter((w) => w.state === 'available').sort((a, b) => a.fifo - b.fifo);
  const view = {
    repository: state.repository,
    works: sorted(state.works).map(([id, w]) => ({
      id, definition: w.definition, position: [byOrdinal.get(w.position.ordinal) ?? null, w.position.operation], epoch: w.policyEpoch,
      admitted: c(w.admittedCommit), state: w.state, barrier: w.barrier, attempts: w.attempts, current: w.currentClaim, claims: w.claims,
      retry: w.retryNotBefore, priority: w.effectivePriority, completion: c(w.completionCommit), completedAt: w.completionAt,
      result: c(w.resultCommit), cancelled: c(w.cancellationCommit), reason: w.cancellationReason,
    })),
    claims: sorted(state.claims).map(([id, x]) => ({
      id, work: x.workId, dispatch: x.dispatchId, handle: x.handle, request: x.requestId, commit: c(x.commitId), ordinal: byOrdinal.get(x.position.ordinal) ?? null,
      key: x.fairnessKey, observations: x.observations, state: x.state, terminal: c(x.terminalCommitId), retry: x.retryNotBefore, reason: x.cancelReason,
    })),
    dispatches: sorted(state.dispatches).map(([id, g]) => ({
      id, pool: g.pool, profileName: g.workerProfile, profile: g.profile, domain: g.batchTrustDomain, claims: g.claimIds, commit: c(g.commitId),
      request: g.requestId, epoch: g.policyEpoch, state: g.state, sender: g.sender, run: g.run, released: g.released, writes: g.lifecycleWrites, reason: g.reason,
    })),
    observations: sorted(state.observations).map(([id, o]) => [id, o.gate, o.condition, o.state, o.observedAt, o.credentialGeneration, o.readStatus, o.operation]),
    latest: sorted(state.latestObservation),
    observationWrites: sorted(state.observationWrites),
    requests: [...state.requests.values()].filter((r) => r.kind !== 'checkpoint')
      .map((r) => [r.requestId, r.kind, c(r.commitId), r.at, r.actor, r.claimIds, r.workIds]),
    policy: state.policy === null ? null : [state.policy.epoch, state.policy.policy, c(state.policy.commitId)],
    epochs: state.policyHistory.map((p) => p.epoch),
    controls: state.controls,
    clocks: [...state.fairness.pools.keys()].sort().map((pool) => [pool, clockView(state.fairness, pool)]),
    fairness: [state.fairness.epoch, state.fairness.mode],
    ready: available.map((w) => [w.workId, state.ready.located.get(w.workId)?.key ?? null, state.ready.located.get(w.workId)?.priority ?? null]),
    indexed: state.ready.located.size,
    results: sorted(state.ready.results).map(([id, r]) => [id, c(r.result_commit_id), r.descriptor]),
    counters: [state.outstandingClaims, state.outstandingByKey, state.outstandingNative, state.pendingByPool].map(sorted),
    graphs: sorted(state.graphs),
    successors: sorted(state.successors),
    deployments: sorted(state.deployments).map(([key, route]) => [key, route.currentRef, [...route.revisions].sort(byKey)]),
    admissions: sorted(state.admissions),
    links: sorted(state.issueLinks),
    linkedIssues: sorted(state.linkedIssues),
    backingIssues: sorted(state.backingIssues),
  };
  return JSON.parse(JSON.stringify(view)) as JsonValue;
}

export const REPOSITORY = 'acme/queue';
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPOSITORY };
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };
export const T0 = 1_700_000_000_000;
export const KEYS = ['', 'alpha', 'beta', 'gamma'];
const GATE = { kind: 'issue', host: 'github.com', repository: REPOSITORY, repository_id: '11', resource_id: '4242', number: '7' };

function mix(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * One deterministic step `i` of a busy queue: submissions (DAGs, priorities, keys, an Issue
 * gate), a reprioritization, a fresh gate observation, one dispatch_next, then the full
 * lifecycle of its groups (completions, retried cancellations, Results, Releases) and delivery
 * failures of long-pending barriers. Returns the step's Claim operations.
 */
export function step(w: LedgerWriter, i: number): JsonObject[] {
  let t = T0 + i * 60_000;
  const tick = () => ++t;
  const { state } = w;
  if (i % 5 === 0) {
    const nodes: SubmitNode[] = Array.from({ length: 6 }, (_, n) => ({
      node_key: `n${n}`, payload: { step: i, n }, fairness_key: KEYS[(i + n) % KEYS.length]!, priority: ((i * 7 + n) % 5) + 1,
      depends_on: n >= 3 ? [{ kind: 'work' as const, node_key: `n${n - 3}` }] : n === 2 && i % 15 === 0 ? [{ kind: 'issue' as const, condition: 'closed', resource: GATE }] : [],
    }));
    w.publish(`submit-${i}`, producer, tick(), submitRequest(state, nodes, { graphId: `g${i}`, at: t }));
  }
  if (i % 9 === 4) {
    const first = [...state.works.values()].filter((x) => x.state === 'available').sort((a, b) => a.fifo - b.fifo)[0];
    if (first !== undefined) {
      const priority = (first.effectivePriority % 5) + 1;
      w.publish(`priority-${i}`, admin, tick(), operationsRequest('control', [{ kind: 'WorkPriority', work_id: first.workId, priority, expected_priority: first.effectivePriority, reason: 'rebalance' }]));
    }
  }
  if (i % 3 === 0) {
    const op = observation({ id: `obs-${i}`, resource: GATE, condition: 'closed', satisfied: i % 6 === 0, observedAt: t, generation: state.controls.credential_generation });
    w.publish(`observe-${i}`, reconciler, tick(), operationsRequest('observe', [op]));
  }
  const { commit, built } = w.dispatchNext(`grant-${i}`, dispatcher, tick(), { pool: 'default', max_claims: 3, max_dispatches: 2, max_bytes: 49152 });
  const claims = built.operations as unknown as JsonObject[];
  if (commit !== null) {
    for (const group of built.plan.groups) {
      const dispatchId = group.dispatch_id;
      w.publish(`${dispatchId}-start`, dispatcher, tick(), dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
      const runId = String(mix(dispatchId) % 1_000_000 + 1);
      w.publish(`${dispatchId}-bind`, reconciler, tick(), dispatchBound(state, dispatchId, runId, t));
      for (const claimId of group.claim_ids) {
        const claim = state.claims.get(claimId)!;
        const worker: Actor = { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: '.github/workflows/worker.lock.yml', run_id: runId, run_attempt: 1, dispatch_id: dispatchId, claim_handle: claim.handle };
        const outcome = mix(claimId) % 4 === 0 ? 'cancelled' : 'completed';
        w.publish(`${claimId}-finish`, worker, tick(), finishRequest(state, { dispatch_id: dispatchId, claim_handle: claim.handle, outcome }, t));
        if (outcome === 'completed' && mix(`${claimId}r`) % 6 !== 0) {
          w.publish(`${claimId}-result`, reconciler, tick(), result(state, claim.workId, { summary: `done ${claimId.slice(-8)}` }, t, `receipt-${i}`));
        }
      }
      w.publish(`${dispatchId}-release`, reconciler, tick(), release(state, dispatchId, t));
    }
  }
  for (const work of [...state.works.values()].sort((a, b) => a.fifo - b.fifo)) {
    if (work.barrier === 'pending' && t - work.completionAt! >= 300_000) {
      w.publish(`fail-${work.workId.slice(0, 12)}`, reconciler, tick(), deliveryFailure(state, work.workId, t, 5));
    }
  }
  return claims.map((op) => JSON.parse(canonicalize(op)) as JsonObject);
}

export function projectionOf(state: ReplayState): Projection {
  return new Projection(state);
}
