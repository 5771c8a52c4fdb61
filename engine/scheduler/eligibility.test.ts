import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json.ts';
import type { DependencyEdge, ReplayState, ResourceIdentity } from '../state/state.ts';
import { eligibility, gateIdentity, MAX_BLOCKING_HOPS, type Eligibility } from './eligibility.ts';
import { accountKey } from '../state/mutate.ts';
import { buildState, policyFor, workId, type WorkSpec } from '../../tests/support/scheduler-state.ts';
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

function resource(kind: 'issue' | 'pull_request', id = '900'): ResourceIdentity {
  return { kind, host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: id, number: '7' };
}
const issueEdge = (condition: 'completed' | 'closed' = 'completed'): DependencyEdge => ({ kind: 'issue', condition, resource: resource('issue') });
const prEdge: DependencyEdge = { kind: 'pull_request', condition: 'merged', resource: resource('pull_request', '901') };

interface ObservationSpec {
  id: string;
  state?: 'ready' | 'waiting' | 'failed' | 'unknown';
  observedAt?: number;
  credential?: string;
  readStatus?: string;
  facts?: JsonObject;
}

function observe(state: ReplayState, edge: DependencyEdge, spec: ObservationSpec): void {
  if (edge.kind === 'work') throw new Error('not a gate');
  const gate = gateIdentity(edge);
  state.observations.set(spec.id, {
    observationId: spec.id,
    commitId: 'q_obs',
    gate,
    condition: edge.condition,
    state: spec.state ?? 'ready',
    observedAt: spec.observedAt ?? AS_OF - 1000,
    credentialGeneration: spec.credential ?? 'initial',
    readStatus: spec.readStatus ?? 'ok',
    operation: { kind: 'Observation', observation_id: spec.id, condition: edge.condition, resource: { ...edge.resource }, ...(spec.facts ?? {}) },
  });
  state.latestObservation.set(gate, spec.id);
}

const closedCompleted = { resource_state: 'closed', state_reason: 'completed' };

function check(specs: WorkSpec[], key: string, setup: (s: ReplayState) => void = () => {}, policy = policyFor()): Eligibility {
  const state = buildState(policy, specs);
  setup(state);
  return eligibility(state, state.works.get(workId(key))!, AS_OF);
}

function reasonOf(e: Eligibility): string {
  return e.eligible ? 'eligible' : e.reason;
}

const dep = (key: string): DependencyEdge => ({ kind: 'work', work_id: workId(key) });

describe('eligibility reason codes (spec 7.3, 7.13, 7.15, 7.16)', () => {
  it('an available independent Work is eligible with no observations', () => {
    expect(check([{ key: 'a' }], 'a')).toEqual({ eligible: true, observations: [] });
  });

  it('ownership_claimed / ownership_completed / ownership_cancelled', () => {
    expect(reasonOf(check([{ key: 'a', state: 'claimed' }], 'a'))).toBe('ownership_claimed');
    expect(reasonOf(check([{ key: 'a', state: 'completed' }], 'a'))).toBe('ownership_completed');
    expect(reasonOf(check([{ key: 'a', state: 'cancelled' }], 'a'))).toBe('ownership_cancelled');
  });

  it('pool_mismatch', () => {
    const state = buildState(policyFor(), [{ key: 'a' }]);
    expect(reasonOf(eligibility(state, state.works.get(workId('a'))!, AS_OF, 'other'))).toBe('pool_mismatch');
  });

  it('grants_paused', () => {
    expect(reasonOf(check([{ key: 'a' }], 'a', (s) => (s.controls.grants_paused = true)))).toBe('grants_paused');
  });

  it('retry_delayed until retry_not_before, eligible at it', () => {
    expect(reasonOf(check([{ key: 'a', retryNotBefore: AS_OF + 1 }], 'a'))).toBe('retry_delayed');
    expect(reasonOf(check([{ key: 'a', retryNotBefore: AS_OF }], 'a'))).toBe('eligible');
  });

  it('retry_exhausted at the attempt budget', () => {
    expect(reasonOf(check([{ key: 'a', attempts: 3 }], 'a'))).toBe('retry_exhausted');
    expect(reasonOf(check([{ key: 'a', attempts: 2 }], 'a'))).toBe('eligible');
  });

  it('capacity_blocked at the pool logical limit', () => {
    const full = (s: ReplayState) => s.outstandingClaims.set('default', 16);
    expect(reasonOf(check([{ key: 'a' }], 'a', full))).toBe('capacity_blocked');
  });

  it('account_capacity_blocked at per_account_limit, only for that key', () => {
    const policy = policyFor({ per_account_limit: 2, accounting_weights: { '': 1, t: 1 } });
    const busy = (s: ReplayState) => s.outstandingByKey.set(accountKey('default', 't'), 2);
    expect(reasonOf(check([{ key: 'a', account: 't' }], 'a', busy, policy))).toBe('account_capacity_blocked');
    expect(reasonOf(check([{ key: 'a' }], 'a', busy, policy))).toBe('eligible');
  });

  it('profile_unavailable and deployment_unavailable', () => {
    expect(reasonOf(check([{ key: 'a', profile: 'gone' }], 'a'))).toBe('profile_unavailable');
    const off = (s: ReplayState) => unavailable(s, 'default');
    expect(reasonOf(check([{ key: 'a' }], 'a', off))).toBe('deployment_unavailable');
  });

  it('dependency_wait while a predecessor has not completed', () => {
    const e = check([{ key: 'p', state: 'claimed' }, { key: 'c', dependsOn: [dep('p')] }], 'c');
    expect(e).toMatchObject({ eligible: false, reason: 'dependency_wait' });
    if (!e.eligible) expect(e.blockingPath.map((s) => s.work_id)).toEqual([workId('c'), workId('p')]);
  });

  it('dependency_result_unavailable while the predecessor barrier is pending', () => {
    expect(reasonOf(check([{ key: 'p', state: 'completed', barrier: 'pending' }, { key: 'c', dependsOn: [dep('p')] }], 'c'))).toBe(
      'dependency_result_unavailable',
    );
    expect(reasonOf(check([{ key: 'p', state: 'completed', barrier: 'verified' }, { key: 'c', dependsOn: [dep('p')] }], 'c'))).toBe('eligible');
  });

  it('dependency_delivery_failed after a terminal DeliveryFailure', () => {
    expect(reasonOf(check([{ key: 'p', state: 'completed', barrier: 'failed' }, { key: 'c', dependsOn: [dep('p')] }], 'c'))).toBe(
      'dependency_delivery_failed',
    );
  });

  it('dependency_failed for a cancelled predecessor, and for a cancelled ancestor with its path', () => {
    expect(reasonOf(check([{ key: 'p', state: 'cancelled' }, { key: 'c', dependsOn: [dep('p')] }], 'c'))).toBe('dependency_failed');
    const e = check(
      [{ key: 'g', state: 'cancelled' }, { key: 'p', dependsOn: [dep('g')] }, { key: 'c', dependsOn: [dep('p')] }],
      'c',
    );
    expect(e).toMatchObject({ eligible: false, reason: 'dependency_failed' });
    if (!e.eligible) expect(e.blockingPath.map((s) => [s.work_id, s.reason])).toEqual([
      [workId('c'), 'dependency_wait'],
      [workId('p'), 'dependency_wait'],
      [workId('g'), 'dependency_failed'],
    ]);
  });

  it('external_unavailable with no observation or an unknown one', () => {
    expect(reasonOf(check([{ key: 'a', dependsOn: [issueEdge()] }], 'a'))).toBe('external_unavailable');
    const unknown = (s: ReplayState) => observe(s, issueEdge(), { id: 'o1', state: 'unknown' });
    expect(reasonOf(check([{ key: 'a', dependsOn: [issueEdge()] }], 'a', unknown))).toBe('external_unavailable');
  });

  it('observation_stale: too old, from the future, or from another credential generation', () => {
    const run = (spec: Partial<ObservationSpec>) =>
      reasonOf(check([{ key: 'a', dependsOn: [issueEdge()] }], 'a', (s) => observe(s, issueEdge(), { id: 'o1', facts: closedCompleted, ...spec })));
    expect(run({ observedAt: AS_OF - 60_001 })).toBe('observation_stale');
    expect(run({ observedAt: AS_OF - 60_000 })).toBe('eligible');
    expect(run({ observedAt: AS_OF + 1 })).toBe('observation_stale');
    expect(run({ credential: 'gen-0' })).toBe('observation_stale');
  });

  it('external_wait when the fresh observation does not satisfy the condition', () => {
    const run = (edge: DependencyEdge, spec: Partial<ObservationSpec>) =>
      check([{ key: 'a', dependsOn: [edge] }], 'a', (s) => observe(s, edge, { id: 'o1', ...spec }));
    expect(reasonOf(run(issueEdge(), { facts: { resource_state: 'closed', state_reason: 'not_planned' } }))).toBe('external_wait');
    expect(reasonOf(run(issueEdge(), { state: 'waiting', facts: { resource_state: 'open' } }))).toBe('external_wait');
    expect(reasonOf(run(issueEdge(), { readStatus: 'error', facts: closedCompleted }))).toBe('external_wait');
    expect(reasonOf(run(prEdge, { facts: { resource_state: 'closed', merged: false } }))).toBe('external_wait');
    expect(reasonOf(run(prEdge, { facts: { merged: true } }))).toBe('external_wait'); // no merge provenance
  });

  it('satisfying fresh observations are bound in depends_on order', () => {
    const closed = issueEdge('closed');
    const e = check([{ key: 'a', dependsOn: [prEdge, closed] }], 'a', (s) => {
      observe(s, prEdge, { id: 'o-pr', facts: { merged: true, merge_commit: 'abc' } });
      observe(s, closed, { id: 'o-issue', facts: { resource_state: 'closed', state_reason: 'not_planned' } });
    });
    expect(e).toEqual({ eligible: true, observations: ['o-pr', 'o-issue'] });
  });

  it('gate identity is canonical({condition,host,kind,repository_id,resource_id})', () => {
    const edge = issueEdge();
    expect(edge.kind !== 'work' && gateIdentity(edge)).toBe(
      '{"condition":"completed","host":"github.com","kind":"issue","repository_id":"1","resource_id":"900"}',
    );
  });

  it('the blocking path is bounded to 64 hops and ends at the blocking gate when reachable', () => {
    const specs: WorkSpec[] = [{ key: 'n0', dependsOn: [issueEdge()] }];
    for (let i = 1; i < 10; i++) specs.push({ key: `n${i}`, dependsOn: [dep(`n${i - 1}`)] });
    const short = check(specs, 'n9');
    expect(short).toMatchObject({ eligible: false, reason: 'dependency_wait' });
    if (!short.eligible) {
      expect(short.blockingPath).toHaveLength(11);
      expect(short.blockingPath.at(-1)).toMatchObject({ kind: 'issue', reason: 'external_unavailable' });
    }
    for (let i = 10; i < 200; i++) specs.push({ key: `n${i}`, dependsOn: [dep(`n${i - 1}`)] });
    const long = check(specs, 'n199');
    if (!long.eligible) expect(long.blockingPath.length).toBe(MAX_BLOCKING_HOPS + 1);
    expect(long.eligible).toBe(false);
  });
});
