/**
 * Differential property tests: the incremental selector (PrefixPlanner behind
 * `pack` and `planNext`) against the straightforward reference that re-walks
 * and re-sorts every bucket for every decision
 * (reference-pack.test-support.ts). Random states vary weights, modes, keys
 * (including non-BMP and U+FFFF keys, whose UTF-8 order differs from UTF-16),
 * priorities and effective-priority overrides, per-account / logical / native
 * limits, retry delays and attempt budgets, Work dependencies, Issue gates with
 * fresh / stale / unsatisfied observations, profiles and trust domains, grant
 * pauses and clock history. Claims, groups, transitions (applied to clocks),
 * stop reasons and explanations must be identical — explanations byte for
 * byte, including key order. Replay's check (`packGrant`, whose steps materialize their lists
 * on first read and keep no key-level candidates) must give the explained packer's Claims,
 * transitions and stop reason.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json.ts';
import type { DependencyEdge, ReplayState } from '../state/state.ts';
import { dispatchBound, dispatchStarted, release, result } from '../requests/lifecycle.ts';
import { bootstrapRequest, finishRequest, submitRequest, type SubmitNode } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { applyTransition, MAX_STEP_CANDIDATES, type ClockTransition, type SiblingStep } from './clocks.ts';
import type { FairnessState } from '../state/fairness.ts';
import { gateIdentity, type ExternalEdge } from './eligibility.ts';
import { admitToOverlay, createOverlay } from './overlay.ts';
import { pack, packGrant, type DispatchNextRequest, type PackResult } from './pack.ts';
import { planNext } from './plan.ts';
import type { PlanResult } from './plan-types.ts';
import { PrefixPlanner } from './prefix-planner.ts';
import { indexWork } from '../state/ready-index.ts';
import { referenceApplyTransition, referencePack, referencePlanNext } from '../../tests/support/reference-pack.ts';
import { addWorks, buildState, commitPack, complete, policyFor, workId, type PolicySpec, type WorkSpec } from '../../tests/support/scheduler-state.ts';
import { installedRoute } from '../replay/ops/deployment.ts';
import { routeKey } from '../state/routes.ts';

/** What an accepted `available: false` Deployment of the installed revision leaves in the state. */
function unavailable(state: ReplayState, profile: string): void {
  const pools = state.policy!.policy.pools as Record<string, JsonObject>;
  const route = installedRoute((pools.default!.profiles as Record<string, JsonObject>)[profile]!);
  route.revisions.get(route.currentRef)!.available = false;
  state.deployments.set(routeKey('default', profile), route);
}

const AS_OF = 100_000;

// ------------------------------------------------------------ normal forms

function stepForm<K>(step: SiblingStep<K> | null, candidates = true): unknown {
  if (step === null) return null;
  return {
    active: [...step.active],
    entered: step.entered.map(([m, p]) => [m, p]),
    selected: step.selected,
    vBefore: step.vBefore,
    v: step.v,
    pass: step.pass,
    stride: step.stride,
    // The reference carries every candidate; steps carry the leading ones.
    ...(candidates
      ? { candidates: step.candidates.slice(0, MAX_STEP_CANDIDATES).map((c) => ({ ...c })), candidateCount: Math.min(step.candidates.length, MAX_STEP_CANDIDATES) }
      : {}),
  };
}

/** `keyCandidates` false: without the key level's candidates (replay's steps keep none: lazy-steps.ts). */
function transitionForm(t: ClockTransition, keyCandidates = true): unknown {
  return {
    epoch: t.epoch,
    pool: t.pool,
    mode: t.mode,
    priority: t.priority,
    fairnessKey: t.fairnessKey,
    classStep: stepForm(t.classStep),
    keyStep: stepForm(t.keyStep, keyCandidates),
    eligibleClasses: [...t.eligibleClasses],
  };
}

function planForm(p: PlanResult): unknown {
  if (!p.selected) return { selected: false, reason: p.reason, explanation: JSON.stringify(p.explanation) };
  return {
    selected: true,
    work: p.work.workId,
    observations: p.observations,
    transition: transitionForm(p.transition),
    explanation: JSON.stringify(p.explanation),
  };
}

/** Everything a pack returns, with key order significant wherever it is data (JSON text). */
function packForm(r: PackResult): unknown {
  return {
    claims: JSON.stringify(r.claims),
    groups: JSON.stringify(r.groups),
    transitions: r.transitions.map((t) => transitionForm(t)),
    stopReason: r.stopReason,
    explanations: r.explanations.map((e) => JSON.stringify(e)),
    next: planForm(r.next),
  };
}

/** Clocks with insertion order of every Map and Set (as the checkpoint writer iterates them). */
function clockForm(f: FairnessState): unknown {
  return [...f.pools].map(([pool, c]) => [
    pool,
    { v: c.classes.v, pass: [...c.classes.pass], active: [...c.classes.active] },
    [...c.keys].map(([p, k]) => [p, { v: k.v, pass: [...k.pass], active: [...k.active] }]),
  ]);
}

function outcome<T>(run: () => T): { ok: true; value: T } | { ok: false; error: string } {
  try {
    return { ok: true, value: run() };
  } catch (e) {
    return { ok: false, error: String((e as { code?: string }).code ?? e) };
  }
}

/** pack ≡ referencePack on `state` (and neither changes it); returns the reference result. */
function expectSamePack(state: ReplayState, request: DispatchNextRequest, asOf: number): PackResult | null {
  const before = clockForm(state.fairness);
  const expected = outcome(() => referencePack(state, request, asOf));
  const actual = outcome(() => pack(state, request, asOf));
  // Replay's check (packGrant: steps whose lists are materialized on first read, lazy-steps.ts),
  // read after the whole prefix was planned, is the explained packer's prefix step for step.
  const grant = outcome(() => packGrant(state, request, asOf));
  expect(clockForm(state.fairness)).toEqual(before);
  if (!actual.ok || !grant.ok) expect(grant.ok ? 'ok' : grant.error).toBe(actual.ok ? 'ok' : actual.error);
  else {
    const { claims, transitions, stopReason } = actual.value;
    expect({ claims: JSON.stringify(grant.value.claims), transitions: grant.value.transitions.map((t) => transitionForm(t, false)), stopReason: grant.value.stopReason })
      .toEqual({ claims: JSON.stringify(claims), transitions: transitions.map((t) => transitionForm(t, false)), stopReason });
  }
  if (!expected.ok || !actual.ok) {
    expect(actual.ok ? 'ok' : actual.error).toBe(expected.ok ? 'ok' : expected.error);
    return null;
  }
  expect(packForm(actual.value)).toEqual(packForm(expected.value));
  // The transitions, applied as replay applies them, move the clocks identically (order included).
  const mine = structuredClone(state.fairness);
  const theirs = structuredClone(state.fairness);
  for (const t of actual.value.transitions) applyTransition(mine, t);
  for (const t of expected.value.transitions) referenceApplyTransition(theirs, t);
  expect(clockForm(mine)).toEqual(clockForm(theirs));
  return expected.value;
}

/** planNext ≡ the reference, alone and along the prefix through a caller-held overlay. */
function expectSamePlans(state: ReplayState, request: DispatchNextRequest, asOf: number, reference: PackResult): void {
  expect(planForm(planNext(state, request.pool, asOf))).toEqual(planForm(referencePlanNext(state, request.pool, asOf)));
  const overlay = createOverlay(state, request.pool, asOf);
  const opened = new Set<string>();
  reference.explanations.forEach((explanation, i) => {
    const plan = planNext(state, request.pool, asOf, overlay);
    expect(JSON.stringify(plan.explanation)).toBe(JSON.stringify(explanation));
    const claim = reference.claims[i];
    if (claim === undefined || !plan.selected) return;
    expect(plan.work.workId).toBe(claim.work_id);
    expect(transitionForm(plan.transition)).toEqual(transitionForm(reference.transitions[i]!));
    admitToOverlay(overlay, plan.work, plan.transition, !opened.has(claim.dispatch_id));
    opened.add(claim.dispatch_id);
  });
}

// ------------------------------------------------------------ random states

/** Keys whose UTF-8 order differs from UTF-16 order ('\u{10000}' < '\ue000' < '\uffff' in UTF-16, last in UTF-8) plus many plain ones. */
const KEYS = ['', 'a', 'b', 'é', '\u{10000}', '\uffff', '\ue000', 'z', ...Array.from({ length: 48 }, (_, i) => `k${String(i).padStart(2, '0')}`)];
const PROFILES = ['default', 'wide', 'other'];

const GATES: ExternalEdge[] = [0, 1, 2].map((n) => ({
  kind: 'issue',
  condition: n === 2 ? 'closed' : 'completed',
  resource: { kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: String(500 + n), number: String(n + 1) },
}));

const workArb = fc.record({
  key: fc.nat({ max: KEYS.length - 1 }),
  priority: fc.integer({ min: 1, max: 5 }),
  override: fc.option(fc.integer({ min: 1, max: 5 }), { freq: 6 }),
  profile: fc.constantFrom(0, 0, 0, 1, 1, 2),
  foreign: fc.constantFrom(false, false, false, false, false, false, true),
  retry: fc.option(fc.integer({ min: -3, max: 3 }), { freq: 4 }),
  attempts: fc.constantFrom(0, 0, 0, 0, 1, 2, 3),
  state: fc.constantFrom('available', 'available', 'available', 'available', 'available', 'available', 'claimed', 'completed', 'cancelled'),
  barrier: fc.constantFrom('verified', 'verified', 'pending', 'failed'),
  deps: fc.array(fc.nat({ max: 400 }), { maxLength: 2 }),
  gate: fc.option(fc.nat({ max: GATES.length - 1 }), { freq: 5 }),
  payload: fc.constantFrom(0, 0, 0, 1, 2),
});
type WorkDraft = typeof workArb extends fc.Arbitrary<infer T> ? T : never;

const requestArb = fc.record({
  max_claims: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 64 })),
  max_dispatches: fc.integer({ min: 1, max: 12 }),
  max_bytes: fc.constantFrom(49152, 49152, 4000, 1500),
  preceding: fc.constantFrom(0, 0, 0, 1, 3),
  at: fc.integer({ min: -2, max: 4 }),
  complete: fc.array(fc.nat({ max: 50 }), { maxLength: 6 }),
  barrier: fc.constantFrom('verified', 'verified', 'pending'),
});

const scenarioArb = fc.record({
  mode: fc.constantFrom<PolicySpec['mode']>('weighted-priority', 'strict-priority'),
  classWeights: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 5, maxLength: 5 }),
  keyCount: fc.integer({ min: 1, max: KEYS.length }),
  weights: fc.array(fc.option(fc.constantFrom(1, 1, 1, 2, 3, 4, 6, 7, 12), { freq: 3 }), { minLength: KEYS.length, maxLength: KEYS.length }),
  perAccount: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 2 }),
  logical: fc.integer({ min: 1, max: 96 }),
  native: fc.integer({ min: 1, max: 48 }),
  maxAttempts: fc.integer({ min: 1, max: 4 }),
  operations: fc.constantFrom(256, 256, 40, 6),
  profiles: fc.array(fc.record({ max_claims: fc.integer({ min: 1, max: 16 }), share_keys: fc.boolean() }), { minLength: 3, maxLength: 3 }),
  gates: fc.array(fc.constantFrom('missing', 'fresh', 'fresh', 'stale', 'unsatisfied'), { minLength: GATES.length, maxLength: GATES.length }),
  works: fc.array(workArb, { maxLength: 150 }),
  later: fc.array(workArb, { maxLength: 40 }),
  history: fc.array(requestArb, { maxLength: 5 }),
  request: requestArb,
  outstanding: fc.array(fc.nat({ max: 3 }), { minLength: KEYS.length, maxLength: KEYS.length }),
  paused: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  unavailable: fc.constantFrom(false, false, false, false, true),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function specsOf(s: Scenario, drafts: readonly WorkDraft[], offset: number): WorkSpec[] {
  return drafts.map((d, i) => {
    const n = offset + i;
    const dependsOn: DependencyEdge[] = [];
    for (const dep of d.deps) if (n > 0) dependsOn.push({ kind: 'work', work_id: workId(`w${dep % n}`) });
    if (d.gate !== null) dependsOn.push(GATES[d.gate]!);
    return {
      key: `w${n}`,
      account: KEYS[d.key % s.keyCount]!,
      priority: d.priority,
      profile: PROFILES[d.profile]!,
      trustDomain: d.foreign ? 'elsewhere' : 'default',
      retryNotBefore: d.retry === null ? null : AS_OF + d.retry * 500,
      attempts: d.attempts,
      state: d.state as WorkSpec['state'],
      barrier: d.state === 'completed' ? (d.barrier as WorkSpec['barrier']) : 'none',
      dependsOn,
      payload: (d.payload === 0 ? { task: n } : { task: n, blob: 'x'.repeat(d.payload * 700) }) as JsonObject,
    };
  });
}

function applyOverrides(state: ReplayState, drafts: readonly WorkDraft[], offset: number): void {
  drafts.forEach((d, i) => {
    if (d.override === null) return;
    const work = state.works.get(workId(`w${offset + i}`))!;
    work.effectivePriority = d.override;
    indexWork(state.ready, work);
  });
}

function buildScenario(s: Scenario): ReplayState {
  const weights: Record<string, number> = { '': 1 };
  s.weights.forEach((w, i) => {
    if (w !== null && i < s.keyCount) weights[KEYS[i]!] = w;
  });
  const profiles: NonNullable<PolicySpec['profiles']> = {};
  PROFILES.forEach((name, i) => (profiles[name] = { ...s.profiles[i]!, trust_domain: 'default' }));
  const policy = policyFor({
    mode: s.mode,
    class_weights: s.classWeights,
    accounting_weights: weights,
    profiles,
    logical_limit: s.logical,
    native_limit: s.native,
    per_account_limit: s.perAccount ?? undefined,
    max_attempts: s.maxAttempts,
    operations: s.operations,
    max_observation_age_ms: 1000,
  });
  const state = buildState(policy, specsOf(s, s.works, 0));
  applyOverrides(state, s.works, 0);
  GATES.forEach((edge, i) => {
    const kind = s.gates[i]!;
    if (kind === 'missing') return;
    const gate = gateIdentity(edge);
    const id = `o${i}`;
    state.observations.set(id, {
      observationId: id,
      commitId: 'q1',
      gate,
      condition: edge.condition,
      state: 'ready',
      observedAt: kind === 'stale' ? AS_OF - 5000 : AS_OF - 200,
      credentialGeneration: 'initial',
      readStatus: 'ok',
      operation: { resource_state: kind === 'unsatisfied' ? 'open' : 'closed', state_reason: 'completed' },
    });
    state.latestObservation.set(gate, id);
  });
  for (let i = 0; i < s.keyCount; i++) {
    if (s.outstanding[i]! > 0 && i % 3 === 0) {
      state.outstandingByKey.set(`default\u0000${KEYS[i]!}`, s.outstanding[i]!);
      state.outstandingClaims.set('default', (state.outstandingClaims.get('default') ?? 0) + s.outstanding[i]!);
    }
  }
  if (s.unavailable) unavailable(state, 'wide');
  return state;
}

function requestOf(r: Scenario['request'], i: number): DispatchNextRequest {
  return {
    requestId: `req-${i}`,
    commitId: `q_req_${i}`,
    pool: 'default',
    max_claims: r.max_claims,
    max_dispatches: r.max_dispatches,
    max_bytes: r.max_bytes,
    precedingOperations: r.preceding,
  };
}

describe('PrefixPlanner ≡ reference packer (differential, random states)', () => {
  it('pack, planNext and planNext over an overlay equal the reference at every decision of every prefix', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const state = buildScenario(s);
        const granted: string[] = [];
        s.history.forEach((h, i) => {
          const at = AS_OF + h.at * 400;
          const reference = expectSamePack(state, requestOf(h, i), at);
          if (reference === null) return;
          commitPack(state, reference);
          for (const c of reference.claims) granted.push(state.works.get(c.work_id)!.nodeKey);
          for (const pick of h.complete) {
            const key = granted[pick % Math.max(1, granted.length)];
            if (key === undefined || state.works.get(workId(key))!.state !== 'claimed') continue;
            complete(state, key, h.barrier as 'verified' | 'pending');
          }
        });
        addWorks(state, specsOf(s, s.later, s.works.length));
        applyOverrides(state, s.later, s.works.length);
        if (s.paused) state.controls.grants_paused = true;
        const request = requestOf(s.request, 99);
        const at = AS_OF + s.request.at * 400;
        const reference = expectSamePack(state, request, at);
        if (reference !== null) expectSamePlans(state, request, at, reference);
      }),
      { numRuns: 300 },
    );
  });

  it('wide classes: more eligible keys than listed candidates, long prefixes', () => {
    const wide = [...KEYS, ...Array.from({ length: 72 }, (_, i) => `m${i}`)];
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.nat({ max: wide.length - 1 }), priority: fc.integer({ min: 1, max: 2 }), delayed: fc.boolean() }), { minLength: 40, maxLength: 400 }),
        fc.array(fc.constantFrom(1, 1, 2, 3, 5, 8, 997, 1000), { minLength: wide.length, maxLength: wide.length }),
        fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        fc.constantFrom<PolicySpec['mode']>('weighted-priority', 'strict-priority'),
        fc.integer({ min: 1, max: 4 }),
        (works, w, perAccount, mode, rounds) => {
          const weights: Record<string, number> = {};
          wide.forEach((k, i) => (weights[k] = w[i]!));
          const policy = policyFor({
            mode,
            accounting_weights: weights,
            per_account_limit: perAccount,
            logical_limit: 4096,
            native_limit: 4096,
            profiles: { default: { max_claims: 16, share_keys: true } },
          });
          const state = buildState(
            policy,
            works.map((x, i) => ({ key: `w${i}`, account: wide[x.key]!, priority: x.priority, retryNotBefore: x.delayed ? AS_OF + 1 : null })),
          );
          for (let r = 0; r < rounds; r++) {
            const request = { requestId: `r${r}`, commitId: `q${r}`, pool: 'default', max_claims: 64, max_dispatches: 8, max_bytes: 49152 };
            const reference = expectSamePack(state, request, AS_OF + r);
            if (reference === null) break;
            expectSamePlans(state, request, AS_OF + r, reference);
            commitPack(state, reference);
            for (const c of reference.claims) if (perAccount !== undefined) complete(state, state.works.get(c.work_id)!.nodeKey);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('queues written through the request builders and replay (LedgerWriter), with cancellations and retry backoff', () => {
    const REPO = 'owner/repo';
    const producer: Actor = { role: 'producer', principal: '1', repository: REPO };
    const dispatcher: Actor = { role: 'dispatcher', principal: '1', repository: REPO, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '1', run_attempt: 1 };
    const reconciler: Actor = { role: 'reconciler', principal: '1', repository: REPO };
    const step = fc.oneof(
      fc.record({ op: fc.constant('submit' as const), nodes: fc.array(fc.record({ key: fc.nat({ max: 11 }), priority: fc.integer({ min: 1, max: 5 }), dep: fc.option(fc.nat({ max: 30 }), { freq: 3 }) }), { minLength: 1, maxLength: 12 }) }),
      fc.record({ op: fc.constant('grant' as const), max_claims: fc.integer({ min: 1, max: 12 }), max_dispatches: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ op: fc.constant('finish' as const), pick: fc.nat(), cancel: fc.boolean(), verify: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 4, maxLength: 30 }), fc.constantFrom('weighted-priority', 'strict-priority'), fc.integer({ min: 1, max: 8 }), (steps, mode, maxClaims) => {
        const weights: Record<string, number> = {};
        for (let k = 1; k < 12; k++) weights[`t${k}`] = 1 + ((k * 7) % 5);
        const policy = defaultPolicy({ repository: REPO, principal: '1', weights, mode, logicalLimit: 24, nativeLimit: 6, maxClaims, shareKeys: maxClaims % 2 === 0 });
        const w = new LedgerWriter();
        let t = 1_800_000_000_000;
        let n = 0;
        let runs = 100;
        const node = (x: { key: number; priority: number; dep: number | null }, i: number): SubmitNode => ({
          node_key: `n${n + i}`,
          payload: { task: n + i },
          fairness_key: x.key === 0 ? '' : `t${x.key}`,
          priority: x.priority,
          ...(x.dep !== null && x.dep < n ? { depends_on: [{ kind: 'work' as const, node_key: `n${x.dep}` }] } : {}),
        });
        w.publish('boot', producer, (t += 1000), bootstrapRequest(policy, 'e1', [node({ key: 1, priority: 3, dep: null }, 0)], { graphId: 'g', at: t }));
        n = 1;
        steps.forEach((s, i) => {
          if (s.op === 'submit') {
            const nodes = s.nodes.map(node);
            n += nodes.length;
            w.publish(`submit-${i}`, producer, (t += 1000), submitRequest(w.state, nodes, { graphId: 'g', at: t }));
          } else if (s.op === 'grant') {
            const at = (t += 1000);
            const request = { requestId: `grant-${i}`, commitId: `q_grant_${i}`, pool: 'default', max_claims: s.max_claims, max_dispatches: s.max_dispatches, max_bytes: 49152 };
            const reference = expectSamePack(w.state, request, at);
            if (reference !== null) expectSamePlans(w.state, request, at, reference);
            w.dispatchNext(`grant-${i}`, dispatcher, at, { pool: 'default', max_claims: s.max_claims, max_dispatches: s.max_dispatches, max_bytes: 49152 });
          } else {
            const open = [...w.state.claims.values()].filter((c) => c.state === 'open');
            const claim = open[s.pick % Math.max(1, open.length)];
            if (claim === undefined) return;
            const dispatch = w.state.dispatches.get(claim.dispatchId)!;
            const runId = String(++runs);
            if (dispatch.state === 'reserved') {
              w.publish(`start-${i}`, dispatcher, (t += 1000), dispatchStarted(claim.dispatchId, dispatcher as unknown as JsonObject));
              w.publish(`bind-${i}`, reconciler, (t += 1000), dispatchBound(w.state, claim.dispatchId, runId, t));
            }
            const bound = (w.state.dispatches.get(claim.dispatchId)!.run as { run_id: string }).run_id;
            const worker: Actor = { role: 'worker', principal: '1', repository: REPO, workflow: '.github/workflows/worker.lock.yml', run_id: bound, run_attempt: 1, dispatch_id: claim.dispatchId, claim_handle: claim.handle };
            const outcomeName = s.cancel ? 'cancelled' : 'completed';
            w.publish(`finish-${i}`, worker, (t += 1000), finishRequest(w.state, { dispatch_id: claim.dispatchId, claim_handle: claim.handle, outcome: outcomeName }, t));
            if (!s.cancel && s.verify) w.publish(`result-${i}`, reconciler, (t += 1000), result(w.state, claim.workId, { ok: true }, t, `receipt-${i}`));
            const group = w.state.dispatches.get(claim.dispatchId)!;
            if (group.claimIds.every((id) => w.state.claims.get(id)!.state !== 'open') && !group.released) {
              w.publish(`release-${i}`, reconciler, (t += 1000), release(w.state, claim.dispatchId, t));
            }
          }
        });
      }),
      { numRuns: 40 },
    );
  });
});

describe('PrefixPlanner ≡ reference packer (constructed edge cases)', () => {
  it('ties between keys are broken in UTF-8 byte order, not UTF-16 order', () => {
    const keys = ['\uffff', '\u{10000}', '\ue000', 'a', '\u{1F600}'];
    const weights: Record<string, number> = {};
    for (const k of keys) weights[k] = 1;
    const state = buildState(
      policyFor({ accounting_weights: weights, logical_limit: 64, native_limit: 64, profiles: { default: { max_claims: 16, share_keys: true } } }),
      keys.flatMap((k, i) => [{ key: `w${i}a`, account: k }, { key: `w${i}b`, account: k }]),
    );
    const reference = expectSamePack(state, { requestId: 'r', commitId: 'q', pool: 'default', max_claims: 10, max_dispatches: 1, max_bytes: 49152 }, AS_OF)!;
    expect(reference.transitions.map((t) => t.fairnessKey)).toEqual(['a', '\ue000', '\uffff', '\u{10000}', '\u{1F600}', 'a', '\ue000', '\uffff', '\u{10000}', '\u{1F600}']);
  });

  it('skipped-head reasons keep the walk order across per-account blocks and bucket rescans', () => {
    // Buckets in order x, y, z, w. y starts one below its limit, so its Claim blocks it (its
    // retry_delayed head stops counting); x's rescan then meets retry_delayed in the first bucket.
    const state = buildState(
      policyFor({ accounting_weights: { '': 1, x: 1, y: 4, z: 1, w: 1 }, per_account_limit: 2, max_attempts: 3, profiles: { default: { max_claims: 16, share_keys: true } } }),
      [
        { key: 'x0', account: 'x' },
        { key: 'x1', account: 'x', retryNotBefore: AS_OF + 1 },
        { key: 'x2', account: 'x' },
        { key: 'y0', account: 'y', retryNotBefore: AS_OF + 1 },
        { key: 'y1', account: 'y' },
        { key: 'z0', account: 'z', attempts: 3 },
        { key: 'z1', account: 'z' },
        { key: 'w0', account: 'w', retryNotBefore: AS_OF + 1 },
        { key: 'w1', account: 'w' },
        { key: 'w2', account: 'w' },
      ],
    );
    state.outstandingByKey.set('default\u0000y', 1);
    state.outstandingClaims.set('default', 1);
    const reference = expectSamePack(state, { requestId: 'r', commitId: 'q', pool: 'default', max_claims: 5, max_dispatches: 1, max_bytes: 49152 }, AS_OF)!;
    expect(reference.transitions.map((t) => t.fairnessKey)).toEqual(['y', 'w', 'x', 'z', 'w']);
    expect(reference.explanations.map((e) => Object.keys(e.eligibility.skipped))).toEqual([
      ['retry_delayed', 'retry_exhausted'],
      ['retry_exhausted', 'retry_delayed'],
      ['retry_exhausted', 'retry_delayed'],
      ['retry_delayed', 'retry_exhausted'],
      ['retry_delayed', 'retry_exhausted'],
    ]);
    // Two reasons first met in the same bucket keep that bucket's order.
    const same = buildState(policyFor({ accounting_weights: { '': 1, a: 1, b: 1 }, max_attempts: 3 }), [
      { key: 'a0', account: 'a' },
      { key: 'a1', account: 'a', attempts: 3 },
      { key: 'a2', account: 'a', retryNotBefore: AS_OF + 1 },
      { key: 'a3', account: 'a' },
      { key: 'b0', account: 'b', retryNotBefore: AS_OF + 1 },
      { key: 'b1', account: 'b', attempts: 3 },
      { key: 'b2', account: 'b' },
    ]);
    const rescanned = expectSamePack(same, { requestId: 'r', commitId: 'q', pool: 'default', max_claims: 2, max_dispatches: 2, max_bytes: 49152 }, AS_OF)!;
    expect(rescanned.explanations.map((e) => Object.keys(e.eligibility.skipped))).toEqual([
      ['retry_delayed', 'retry_exhausted'],
      ['retry_exhausted', 'retry_delayed'],
    ]);
  });
});

describe('PrefixPlanner contract', () => {
  it('admit accepts only the winner of the latest decision, and never with a caller-held overlay', () => {
    const state = buildState(policyFor({ accounting_weights: { '': 1, a: 1 } }), [{ key: 'x' }, { key: 'y', account: 'a' }]);
    const planner = new PrefixPlanner(state, 'default', AS_OF);
    const first = planner.next();
    const second = planner.next();
    if (!first.selected || !second.selected) throw new Error('expected winners');
    expect(() => planner.admit(first.work, first.transition, true)).toThrow(/latest decision/);
    planner.admit(second.work, second.transition, true);
    expect(() => planner.admit(second.work, second.transition, true)).toThrow(/latest decision/);
    const held = new PrefixPlanner(state, 'default', AS_OF, createOverlay(state, 'default', AS_OF));
    const plan = held.next();
    if (!plan.selected) throw new Error('expected a winner');
    expect(() => held.admit(plan.work, plan.transition, true)).toThrow(/overlay/);
  });

  it('a 4,096-Work, 1,024-key dispatch of 16 Claims equals the reference (benchmark shape)', () => {
    const weights: Record<string, number> = {};
    const key = (k: number): string => (k === 0 ? '' : `tenant-${k}`);
    for (let k = 0; k < 1024; k++) weights[key(k)] = 1 + (k % 10);
    const policy = policyFor({ accounting_weights: weights, logical_limit: 4096, native_limit: 4096, profiles: { default: { max_claims: 16, share_keys: true } } });
    const state = buildState(policy, Array.from({ length: 4096 }, (_, j) => ({ key: `w${j}`, account: key(j % 1024), priority: 1 + ((j % 1024) % 5) })));
    for (let r = 0; r < 4; r++) {
      const request = { requestId: `r${r}`, commitId: `q${r}`, pool: 'default', max_claims: 16, max_dispatches: 1, max_bytes: 49152 };
      const reference = expectSamePack(state, request, AS_OF)!;
      expect(reference.claims).toHaveLength(16);
      commitPack(state, reference);
    }
  });
});
