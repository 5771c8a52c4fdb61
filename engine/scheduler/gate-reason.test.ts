/**
 * The planner's head scan reads Work-level gates by reason only (eligibility.ts
 * `workGateReason`) and replay's grant check sizes members without writing them (assignment.ts
 * `memberBytesFor`). Both must answer exactly what the full forms answer (`workGates`;
 * `memberBytesOf(assignmentMember(...))`), errors included: checked here on seeded random
 * states with Work chains, cycles, missing and failed predecessors, waiting chains past the
 * 64-hop limit, and Issue/PR gates with every kind of observation.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Barrier, DependencyEdge, ReplayState, ResourceIdentity, WorkState } from '../state/state.ts';
import { recordResult } from '../state/ready-index.ts';
import { assignmentMember, AssignmentSize, memberBytesFor } from './assignment.ts';
import { blockingBranches, edgeReason, gateIdentity, MAX_BLOCKING_HOPS, workGateReason, workGates, type BlockingStep } from './eligibility.ts';
import { poolPolicy } from './policy-view.ts';
import { buildState, policyFor, workId, type WorkSpec } from '../../tests/support/scheduler-state.ts';
import { prng } from '../../bench/generated-graphs.ts';

const AS_OF = 100_000;

const STATES: WorkState[] = ['available', 'available', 'available', 'claimed', 'completed', 'completed', 'cancelled'];
const BARRIERS: Barrier[] = ['none', 'pending', 'verified', 'verified', 'failed'];

function resource(kind: 'issue' | 'pull_request', id: string): ResourceIdentity {
  return { kind, host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: id, number: id };
}

/** A random state: Works over `n` keys with random edges (to any key, a missing one, itself) and gates. */
function randomState(seed: number): ReplayState {
  const rnd = prng(seed); // seeded: the same cases on every run
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const n = 2 + Math.floor(rnd() * 40);
  const gates = [resource('issue', '900'), resource('pull_request', '901'), resource('issue', '902')];
  const specs: WorkSpec[] = [];
  for (let i = 0; i < n; i++) {
    const dependsOn: DependencyEdge[] = [];
    const edges = Math.floor(rnd() * 4);
    for (let e = 0; e < edges; e++) {
      const r = rnd();
      if (r < 0.7) dependsOn.push({ kind: 'work', work_id: workId(`k${Math.floor(rnd() * (n + 2))}`) }); // n, n+1: never admitted
      else {
        const res = pick(gates);
        dependsOn.push(res.kind === 'issue' ? { kind: 'issue', condition: pick(['completed', 'closed'] as const), resource: res } : { kind: 'pull_request', condition: 'merged', resource: res });
      }
    }
    const state = pick(STATES);
    specs.push({
      key: `k${i}`,
      state,
      barrier: state === 'completed' ? pick(BARRIERS) : 'none',
      dependsOn,
      attempts: rnd() < 0.1 ? 3 : 0,
      retryNotBefore: rnd() < 0.1 ? AS_OF + (rnd() < 0.5 ? 1 : -1) : null,
      profile: rnd() < 0.05 ? 'gone' : 'default',
      payload: rnd() < 0.05 ? ([] as unknown as JsonObject) : { task: `k${i}`, note: rnd() < 0.3 ? 'naïve ☃ \u{1f600}' : 'plain' },
    });
  }
  const state = buildState(policyFor(), specs);
  // Some verified Works lose their Result input (result_input_missing).
  for (const w of state.works.values()) if (w.barrier === 'verified' && rnd() < 0.1) state.ready.results.delete(w.workId);
  // Results with descriptors of every size and text.
  for (const w of state.works.values()) {
    if (w.barrier === 'verified' && state.ready.results.has(w.workId)) recordResult(state.ready, w.workId, `r_${w.nodeKey}`, { ok: rnd() < 0.5, summary: 'x'.repeat(Math.floor(rnd() * 50)), text: 'é\u{1f600}' });
  }
  // Observations of the gates: missing, unknown, stale, future, other credential, satisfying or not.
  for (const res of gates) {
    for (const condition of res.kind === 'issue' ? (['completed', 'closed'] as const) : (['merged'] as const)) {
      const r = rnd();
      if (r < 0.15) continue;
      const edge = (res.kind === 'issue' ? { kind: 'issue', condition, resource: res } : { kind: 'pull_request', condition, resource: res }) as Exclude<DependencyEdge, { kind: 'work' }>;
      const gate = gateIdentity(edge);
      const id = `o_${gate.length}_${seed}_${condition}_${res.resource_id}`;
      state.observations.set(id, {
        observationId: id,
        commitId: 'q_obs',
        gate,
        condition,
        state: pick(['ready', 'ready', 'waiting', 'failed', 'unknown'] as const),
        observedAt: rnd() < 0.1 ? AS_OF + 5 : AS_OF - Math.floor(rnd() * 2 * 3_600_000),
        credentialGeneration: rnd() < 0.1 ? 'other' : 'initial',
        readStatus: rnd() < 0.85 ? 'ok' : 'identity_mismatch',
        operation: { kind: 'Observation', observation_id: id, condition, resource: { ...res }, resource_state: pick(['open', 'closed']), state_reason: pick(['completed', 'not_planned']), merged: rnd() < 0.6, merge_commit: rnd() < 0.8 ? 'a'.repeat(40) : '' },
      });
      state.latestObservation.set(gate, id);
    }
  }
  if (rnd() < 0.05) state.controls.grants_paused = true;
  return state;
}

/** What `workGates` answers, in the reason-only form. */
function expected(state: ReplayState, key: string): string | readonly string[] {
  const work = state.works.get(workId(key))!;
  const verdict = workGates(state, work, AS_OF, poolPolicy(state, work.pool));
  return verdict.eligible ? verdict.observations : verdict.reason;
}

function reasonOnly(state: ReplayState, key: string): string | readonly string[] {
  const work = state.works.get(workId(key))!;
  return workGateReason(state, work, AS_OF, poolPolicy(state, work.pool));
}

/** A member's size, or the protocol error its measure meets first. */
function measured(run: () => number): number | string {
  try {
    return run();
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return `${e.code}: ${e.message}`;
  }
}

describe('workGateReason: the reason workGates gives, without its path', () => {
  it('agrees with workGates on every Work of 300 random states', () => {
    let blocked = 0;
    let eligible = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const state = randomState(seed);
      for (const w of state.works.values()) {
        const want = expected(state, w.nodeKey);
        expect(reasonOnly(state, w.nodeKey), `seed ${seed}, Work ${w.nodeKey}`).toEqual(want);
        if (typeof want === 'string') blocked++;
        else eligible++;
      }
    }
    // The states cover both answers in number (a generator gone degenerate would not).
    expect(blocked).toBeGreaterThan(1000);
    expect(eligible).toBeGreaterThan(300);
  });

  it('names a failed ancestor only within the 64-hop limit, and stops at a cycle', () => {
    for (const at of [10, MAX_BLOCKING_HOPS - 2, MAX_BLOCKING_HOPS - 1, MAX_BLOCKING_HOPS, 150]) {
      // n0 (cancelled) <- n1 <- ... <- n200, every other one available and waiting.
      const specs: WorkSpec[] = [];
      for (let i = 0; i <= 200; i++) specs.push({ key: `n${i}`, state: i === 0 ? 'cancelled' : 'available', dependsOn: i === 0 ? [] : [{ kind: 'work', work_id: workId(`n${i - 1}`) }] });
      const state = buildState(policyFor(), specs);
      const key = `n${at + 1}`;
      expect(reasonOnly(state, key)).toBe(expected(state, key));
    }
    const cycle = buildState(policyFor(), [
      { key: 'a', dependsOn: [{ kind: 'work', work_id: workId('b') }] },
      { key: 'b', dependsOn: [{ kind: 'work', work_id: workId('a') }] },
    ]);
    expect(reasonOnly(cycle, 'a')).toBe('dependency_wait');
    expect(reasonOnly(cycle, 'a')).toBe(expected(cycle, 'a'));
  });
});

describe('edgeReason: each dependency edge judged on its own, as eligibility judges it', () => {
  it('is the first step of that edge\'s blocking branch (blockingBranches), or null when no branch starts at it, on every edge of 300 random states', () => {
    const stepKey = (s: BlockingStep) => (s.kind === 'work' ? `w:${s.work_id}` : `g:${s.gate}`);
    let unsatisfied = 0;
    let satisfied = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const state = randomState(seed);
      for (const w of state.works.values()) {
        const first = new Map(blockingBranches(state, w, AS_OF, Infinity).branches.map((b) => [stepKey(b[0]!), b[0]!.reason]));
        for (const edge of w.dependsOn) {
          const key = edge.kind === 'work' ? `w:${edge.work_id}` : `g:${gateIdentity(edge)}`;
          const reason = edgeReason(state, edge, AS_OF, w.pool);
          expect(reason, `seed ${seed}, Work ${w.nodeKey}, edge ${key}`).toBe(first.get(key) ?? null);
          if (reason === null) satisfied++;
          else unsatisfied++;
        }
      }
    }
    expect(unsatisfied).toBeGreaterThan(1000);
    expect(satisfied).toBeGreaterThan(300);
  });
});

describe('memberBytesFor: the size of the member assignmentMember writes', () => {
  it('agrees, size or first error, on every Work of 300 random states', () => {
    let sized = 0;
    let refused = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const state = randomState(seed);
      for (const w of state.works.values()) {
        for (const [claimId, handle] of [[`c_${'ab'.repeat(32)}_1`, 'h1'], [`c_${'0'.repeat(64)}_12`, 'h12']] as const) {
          const want = measured(() => AssignmentSize.memberBytesOf(assignmentMember(state, w, claimId, handle), w));
          expect(measured(() => memberBytesFor(state, w, claimId, handle)), `seed ${seed}, Work ${w.nodeKey}`).toBe(want);
          if (typeof want === 'number') sized++;
          else refused++;
        }
      }
    }
    expect(sized).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(300);
  });
});
