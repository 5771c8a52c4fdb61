/**
 * Test-only builder: a minimal `ReplayState` from a Policy object and Work
 * definitions, plus the state effects of an accepted pack (the replayer's job
 * in production). Used by the scheduler's unit tests only.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../engine/json.ts';
import type { QueuePolicy } from '../../engine/schema/policy.ts';
import { createState, type Barrier, type DependencyEdge, type ReplayState, type WorkRecord, type WorkState } from '../../engine/state/state.ts';
import { CONTRACT_LIMITS, DEFAULT_CLASS_WEIGHTS, DEFAULT_MAX_OBSERVATION_AGE_MS, DEFAULT_MODE, DEFAULT_POOL_LIMIT, DEFAULT_RECONCILIATION, DEFAULT_RETRY, defaultLimits } from '../../engine/schema/defaults.ts';
import { applyTransition } from '../../engine/scheduler/clocks.ts';
import { createFairnessState } from '../../engine/state/fairness.ts';
import { accountKey } from '../../engine/state/mutate.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import { indexWork, recordResult } from '../../engine/state/ready-index.ts';

export interface ProfileSpec {
  max_claims?: number;
  share_keys?: boolean;
  trust_domain?: string;
  ref?: string;
}

export interface PolicySpec {
  mode?: 'weighted-priority' | 'strict-priority';
  class_weights?: number[];
  accounting_weights?: Record<string, number>;
  profiles?: Record<string, ProfileSpec>;
  logical_limit?: number;
  native_limit?: number;
  per_account_limit?: number;
  max_observation_age_ms?: number;
  max_attempts?: number;
  operations?: number;
  assignment_bytes?: number;
}

/** A QueuePolicy object with one pool `default` (contract `defaults` unless overridden). */
export function policyFor(spec: PolicySpec = {}): JsonObject {
  const profiles: JsonObject = {};
  for (const [name, p] of Object.entries(spec.profiles ?? { default: {} })) {
    profiles[name] = {
      credential_scope: 'repository',
      effect_scope: 'owner/repo',
      max_claims: p.max_claims ?? 1,
      principal: '1001',
      ref: p.ref ?? '0'.repeat(40),
      share_keys: p.share_keys ?? false,
      trust_domain: p.trust_domain ?? 'default',
      workflow: '.github/workflows/worker.lock.yml',
    };
  }
  const pool: JsonObject = {
    allowed_repositories: ['owner/repo'],
    default_profile: Object.keys(profiles)[0]!,
    logical_limit: spec.logical_limit ?? DEFAULT_POOL_LIMIT,
    max_observation_age_ms: spec.max_observation_age_ms ?? DEFAULT_MAX_OBSERVATION_AGE_MS,
    native_limit: spec.native_limit ?? DEFAULT_POOL_LIMIT,
    profiles,
    reconciliation: { ...DEFAULT_RECONCILIATION },
    retry: { backoff_ms: DEFAULT_RETRY.backoff_ms, max_attempts: spec.max_attempts ?? DEFAULT_RETRY.max_attempts },
  };
  if (spec.per_account_limit !== undefined) pool.per_account_limit = spec.per_account_limit;
  return {
    accounting_weights: spec.accounting_weights ?? { '': 1 },
    class_weights: spec.class_weights ?? [...DEFAULT_CLASS_WEIGHTS],
    limits: {
      ...defaultLimits(),
      assignment_bytes: spec.assignment_bytes ?? CONTRACT_LIMITS.assignment_bytes,
      operations: spec.operations ?? CONTRACT_LIMITS.operations,
    },
    mode: spec.mode ?? DEFAULT_MODE,
    pools: { default: pool },
    producers: {},
  };
}

export interface WorkSpec {
  key: string;
  priority?: number;
  account?: string;
  profile?: string;
  trustDomain?: string;
  pool?: string;
  payload?: JsonObject;
  dependsOn?: DependencyEdge[];
  state?: WorkState;
  barrier?: Barrier;
  attempts?: number;
  retryNotBefore?: number | null;
  enqueued?: number;
}

export function workId(key: string): string {
  return createHash('sha256').update(JSON.stringify({ graph_id: 'graph', node_key: key })).digest('hex');
}

export function emptyState(policy: JsonObject, epoch = 'epoch1'): ReplayState {
  // Scheduler tests install hand-made Policies (some the schema would refuse) directly.
  const record = { epoch, policy: policy as unknown as QueuePolicy, commitId: 'q0', ordinal: 0 };
  return {
    ...createState(),
    repository: 'owner/repo',
    tip: 'q0',
    policy: record,
    policyHistory: [record],
    fairness: createFairnessState(policy, epoch),
  };
}

/** Admit Work in order: 256 operations per commit, ordinals from 1 (FIFO = causal position). */
export function addWorks(state: ReplayState, specs: readonly WorkSpec[]): WorkRecord[] {
  const base = state.works.size;
  return specs.map((spec, i) => {
    const n = base + i;
    const position = { ordinal: 1 + Math.floor(n / 256), operation: n % 256 };
    const priority = spec.priority ?? 3;
    const id = workId(spec.key);
    const definition: JsonObject = {
      kind: 'Work',
      work_id: id,
      graph_id: 'graph',
      node_key: spec.key,
      payload: spec.payload ?? { task: spec.key },
    };
    const work: WorkRecord = {
      workId: id,
      graphId: 'graph',
      nodeKey: spec.key,
      pool: spec.pool ?? 'default',
      workerProfile: spec.profile ?? 'default',
      batchTrustDomain: spec.trustDomain ?? 'default',
      priority,
      effectivePriority: priority,
      fairnessKey: spec.account ?? '',
      dependsOn: spec.dependsOn ?? [],
      enqueued: spec.enqueued ?? 0,
      definition,
      executionRef: null,
      backingIssue: null,
      replacementOf: null,
      position,
      fifo: position.ordinal * 65536 + position.operation,
      admittedCommit: `q${position.ordinal}`,
      policyEpoch: state.policy!.epoch,
      state: spec.state ?? 'available',
      barrier: spec.barrier ?? 'none',
      currentClaim: null,
      claims: [],
      attempts: spec.attempts ?? 0,
      retryNotBefore: spec.retryNotBefore ?? null,
      completionCommit: null,
      completionAt: null,
      resultCommit: null,
      deliveryFailureCommit: null,
      cancellationCommit: null,
      cancellationReason: null,
      touchedBy: [],
    };
    state.works.set(id, work);
    indexWork(state.ready, work);
    if (work.barrier === 'verified') recordResult(state.ready, id, `r_${spec.key}`, { ok: true });
    return work;
  });
}

export function buildState(policy: JsonObject, specs: readonly WorkSpec[] = []): ReplayState {
  const state = emptyState(policy);
  addWorks(state, specs);
  return state;
}

function bump(map: Map<string, number>, key: string, delta: number): void {
  map.set(key, (map.get(key) ?? 0) + delta);
}

/** What the replayer does for an accepted pack: ownership, charges, reservations, clocks. */
export function commitPack(state: ReplayState, result: PackResult): void {
  for (let i = 0; i < result.claims.length; i++) {
    const claim = result.claims[i]!;
    const work = state.works.get(claim.work_id)!;
    work.state = 'claimed';
    work.currentClaim = claim.claim_id;
    work.claims.push(claim.claim_id);
    work.attempts++;
    indexWork(state.ready, work);
    bump(state.outstandingClaims, work.pool, 1);
    bump(state.outstandingByKey, accountKey(work.pool, work.fairnessKey), 1);
    applyTransition(state.fairness, result.transitions[i]!);
  }
  for (const group of result.groups) bump(state.outstandingNative, group.assignment.pool as string, 1);
}

/** Settle a claimed Work (the logical slot closes); `verified` also publishes its Result. */
export function complete(state: ReplayState, key: string, barrier: Barrier = 'verified'): void {
  const work = state.works.get(workId(key))!;
  work.state = 'completed';
  work.barrier = barrier;
  bump(state.outstandingClaims, work.pool, -1);
  bump(state.outstandingByKey, accountKey(work.pool, work.fairnessKey), -1);
  if (barrier === 'verified') recordResult(state.ready, work.workId, `r_${key}`, { ok: true });
}

export function nodeKeys(state: ReplayState, result: PackResult): string[] {
  return result.claims.map((c) => state.works.get(c.work_id)!.nodeKey);
}
