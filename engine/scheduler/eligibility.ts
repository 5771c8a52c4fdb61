/**
 * Scheduling eligibility (spec 7.3, 7.15, 7.16): whether an available Work
 * may compete for the next grant at `asOf`, and if not, the concrete blocking
 * clause with a bounded blocking path (spec 7.13).
 */
import { gateIdentity as resourceGate } from '../identity/index.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import type { DependencyEdge, ReplayState, WorkRecord } from '../state/state.ts';
import { executionBlock } from '../state/routes.ts';
import { accountOutstanding, isClaimed, logicalOutstanding, type PlanOverlay } from './overlay.ts';
import { poolPolicy, workerProfile } from './policy-view.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

/** Reason codes, in the order the gates are checked. */
export const ELIGIBILITY_REASONS = [
  'ownership_claimed',
  'ownership_completed',
  'ownership_cancelled',
  'pool_mismatch',
  'grants_paused',
  'retry_delayed',
  'retry_exhausted',
  'capacity_blocked',
  'account_capacity_blocked',
  'profile_unavailable',
  'deployment_unavailable',
  'contract_incompatible',
  'dependency_wait',
  'dependency_result_unavailable',
  'dependency_delivery_failed',
  'dependency_failed',
  'external_unavailable',
  'observation_stale',
  'external_wait',
] as const;
export type EligibilityReason = (typeof ELIGIBILITY_REASONS)[number];

/** Longest blocking path reported (hops through waiting Work predecessors). */
export const MAX_BLOCKING_HOPS = 64;

export interface BlockingStep {
  kind: 'work' | 'issue' | 'pull_request';
  reason: EligibilityReason;
  /** Work vertex: its id, ownership state and delivery barrier. */
  work_id?: string;
  state?: string;
  barrier?: string;
  /** Issue/PR gate: canonical gate identity, condition and the latest observation (if any). */
  gate?: string;
  condition?: string;
  observation_id?: string | null;
  /** Issue/PR gate whose latest observation was not a good read: its sanitized read status (e.g. identity_mismatch). */
  read_status?: string;
}

export type Eligibility =
  | { eligible: true; observations: string[] }
  | { eligible: false; reason: EligibilityReason; blockingPath: BlockingStep[] };

/** An Issue/PR dependency edge (a gate, spec 7.16). */
export type ExternalEdge = Exclude<DependencyEdge, { kind: 'work' }>;

/** Gate identities by edge (an admitted Work's edges are never written after admission). */
const edgeGates = new WeakMap<ExternalEdge, string>();

/**
 * The gate identity of an edge (identity/index.ts `gateIdentity`), written once per edge: a
 * grant's head scan reads the gates of every waiting head at every grant.
 */
export function gateIdentity(edge: ExternalEdge): string {
  let gate = edgeGates.get(edge);
  if (gate === undefined) edgeGates.set(edge, (gate = resourceGate(edge.resource, edge.condition)));
  return gate;
}

/** The read status of a successful read: any other is a failed or unvalidated read (spec 7.16). */
export const READ_OK = 'ok';

/**
 * Spec 7.16 "Explicit condition semantics": whether an Observation's recorded facts prove its
 * condition. Issue/completed: closed with state_reason completed; Issue/closed: closed; PR/merged:
 * `merged: true` with its merge provenance (`merge_commit`). A missing fact is unknown, never a
 * success. Replay refuses a ready Observation whose facts do not (ops/observation.ts).
 */
export function conditionHolds(condition: string, facts: { readonly [field: string]: unknown }): boolean {
  switch (condition) {
    case 'completed': return facts.resource_state === 'closed' && facts.state_reason === 'completed';
    case 'closed': return facts.resource_state === 'closed';
    case 'merged': return facts.merged === true && typeof facts.merge_commit === 'string' && facts.merge_commit.length > 0;
    default: return false;
  }
}

type GateResult = { ok: true; observationId: string } | { ok: false; reason: EligibilityReason; observationId: string | null };

/** Fresh trusted satisfying observation of one Issue/PR gate (spec 7.16 condition table). */
function checkGate(state: ReplayState, edge: ExternalEdge, asOf: number, pool: PoolPolicy): GateResult {
  const id = state.latestObservation.get(gateIdentity(edge));
  const observation = id === undefined ? undefined : state.observations.get(id);
  if (observation === undefined || observation.state === 'unknown') {
    return { ok: false, reason: 'external_unavailable', observationId: id ?? null };
  }
  const oid = observation.observationId;
  if (
    observation.credentialGeneration !== state.controls.credential_generation ||
    observation.observedAt > asOf ||
    asOf - observation.observedAt > pool.max_observation_age_ms
  ) {
    return { ok: false, reason: 'observation_stale', observationId: oid };
  }
  const satisfied = observation.state === 'ready' && observation.readStatus === READ_OK && conditionHolds(edge.condition, observation.operation);
  return satisfied ? { ok: true, observationId: oid } : { ok: false, reason: 'external_wait', observationId: oid };
}

function workStep(work: WorkRecord, reason: EligibilityReason): BlockingStep {
  return { kind: 'work', reason, work_id: work.workId, state: work.state, barrier: work.barrier };
}

const TERMINAL_FAILURES: ReadonlySet<EligibilityReason> = new Set(['dependency_failed', 'dependency_delivery_failed']);

/**
 * Dependency gates of `work`, in `depends_on` order. The first unsatisfied
 * edge decides; a waiting Work predecessor is followed up its own first
 * unsatisfied edge (≤ 64 hops) so the path ends at the gate or failed
 * ancestor that actually blocks. A failed ancestor makes the reason terminal.
 */
export function dependencyGates(state: ReplayState, work: WorkRecord, asOf: number, pool: PoolPolicy): Eligibility {
  const observations: string[] = [];
  for (const edge of work.dependsOn) {
    const blocked = blockingEdge(state, edge, asOf, pool);
    if (typeof blocked === 'string') observations.push(blocked);
    if (blocked === null || typeof blocked === 'string') continue;
    const upstream = upstreamOf(state, work, blocked, asOf, pool);
    return { eligible: false, reason: upstream.terminal ?? blocked.reason, blockingPath: [workStep(work, blocked.reason), blocked.step, ...upstream.steps] };
  }
  return { eligible: true, observations };
}

interface Blocked {
  reason: EligibilityReason;
  step: BlockingStep;
  /** An available predecessor whose own gates explain the wait. */
  waitingOn: WorkRecord | null;
}

/**
 * The nearest unsatisfied ancestors above a blocked edge, each up its first unsatisfied edge,
 * stopping at a cycle or after MAX_BLOCKING_HOPS - 1 further steps (so a path with its leading
 * Work and edge steps stays within MAX_BLOCKING_HOPS + 1). `terminal` is the last terminal
 * failure met upstream, which names the whole path's reason.
 */
function upstreamOf(state: ReplayState, work: WorkRecord, blocked: Blocked, asOf: number, pool: PoolPolicy): { steps: BlockingStep[]; terminal: EligibilityReason | null } {
  const steps: BlockingStep[] = [];
  let terminal: EligibilityReason | null = null;
  let next = blocked.waitingOn;
  const seen = new Set([work.workId]);
  while (next !== null && steps.length < MAX_BLOCKING_HOPS - 1 && !seen.has(next.workId)) {
    seen.add(next.workId);
    const upstream = firstBlocked(state, next, asOf, pool);
    if (upstream === null) break;
    steps.push(upstream.step);
    if (TERMINAL_FAILURES.has(upstream.reason)) terminal = upstream.reason;
    next = upstream.waitingOn;
  }
  return { steps, terminal };
}

function firstBlocked(state: ReplayState, work: WorkRecord, asOf: number, pool: PoolPolicy): Blocked | null {
  for (const edge of work.dependsOn) {
    const blocked = blockingEdge(state, edge, asOf, pool);
    if (blocked !== null && typeof blocked !== 'string') return blocked;
  }
  return null;
}

/** The edge's blocking clause, or null (satisfied Work edge) / the satisfying observation id (gate). */
function blockingEdge(state: ReplayState, edge: DependencyEdge, asOf: number, pool: PoolPolicy): Blocked | string | null {
  if (edge.kind === 'work') {
    const parent = state.works.get(edge.work_id);
    const reason = workEdgeReason(parent);
    if (reason === null) return null;
    if (parent === undefined) return { reason, step: { kind: 'work', reason, work_id: edge.work_id }, waitingOn: null };
    return { reason, step: workStep(parent, reason), waitingOn: waitingOn(parent) };
  }
  const gate = checkGate(state, edge, asOf, pool);
  if (gate.ok) return gate.observationId;
  const step: BlockingStep = {
    kind: edge.kind,
    reason: gate.reason,
    gate: gateIdentity(edge),
    condition: edge.condition,
    observation_id: gate.observationId,
  };
  const readStatus = gate.observationId === null ? undefined : state.observations.get(gate.observationId)?.readStatus;
  if (readStatus !== undefined && readStatus !== 'ok') step.read_status = readStatus;
  return { reason: gate.reason, step, waitingOn: null };
}

/** Why a Work edge to `parent` (undefined: not admitted) is unsatisfied, or null when it is satisfied. */
function workEdgeReason(parent: WorkRecord | undefined): EligibilityReason | null {
  if (parent === undefined) return 'dependency_wait';
  if (parent.state === 'cancelled') return 'dependency_failed';
  if (parent.barrier === 'failed') return 'dependency_delivery_failed';
  if (parent.state === 'completed' && parent.barrier !== 'verified') return 'dependency_result_unavailable';
  if (parent.state !== 'completed') return 'dependency_wait';
  return null;
}

/**
 * Why one dependency edge of a Work in `pool` is unsatisfied at `asOf`, or null when it is
 * satisfied: the rule `eligibility` applies to each edge (a Work edge needs a completed
 * predecessor with a verified Result; a gate a fresh, trusted, satisfying Observation, spec 7.16).
 * For surfaces that show every edge, not only the first blocking one.
 */
export function edgeReason(source: QueueSource, edge: DependencyEdge, asOf: number, pool: string): EligibilityReason | null {
  const state = stateOf(source);
  if (edge.kind === 'work') return workEdgeReason(state.works.get(edge.work_id));
  const gate = checkGate(state, edge, asOf, poolPolicy(state, pool));
  return gate.ok ? null : gate.reason;
}

/** A blocking predecessor whose own gates explain the wait: one still available. */
function waitingOn(parent: WorkRecord): WorkRecord | null {
  return parent.state === 'available' ? parent : null;
}

function ownership(work: WorkRecord): EligibilityReason {
  return work.state === 'available' ? 'ownership_claimed' : (`ownership_${work.state}` as const);
}

function blocked(work: WorkRecord, reason: EligibilityReason): Eligibility {
  return { eligible: false, reason, blockingPath: [workStep(work, reason)] };
}

/**
 * Work-level gates (everything except capacity), in the reference order:
 * ownership, grants pause, retry delay, attempt budget, profile, dependencies.
 */
export function workGates(state: ReplayState, work: WorkRecord, asOf: number, pool: PoolPolicy, overlay?: PlanOverlay): Eligibility {
  const reason = workLevelReason(state, work, asOf, pool, overlay);
  return reason !== null ? blocked(work, reason) : dependencyGates(state, work, asOf, pool);
}

/** The first Work-level gate before the dependencies that `work` fails, or null when it passes them all. */
function workLevelReason(state: ReplayState, work: WorkRecord, asOf: number, pool: PoolPolicy, overlay?: PlanOverlay): EligibilityReason | null {
  if (isClaimed(work, overlay)) return 'ownership_claimed';
  if (work.state !== 'available') return ownership(work);
  if (state.controls.grants_paused) return 'grants_paused';
  if (work.retryNotBefore !== null && work.retryNotBefore > asOf) return 'retry_delayed';
  if (work.attempts >= pool.retry.max_attempts) return 'retry_exhausted';
  if (workerProfile(pool, work.workerProfile) === undefined) return 'profile_unavailable';
  return executionBlock(state, work);
}

const NO_OBSERVATIONS: readonly string[] = Object.freeze([]);

/**
 * `workGates` as the planner's head scan reads it (prefix-planner.ts): the satisfying
 * observations when `work` is eligible (a shared frozen list when there are none), else the
 * reason `workGates` gives, built without its verdict object, blocking path or upstream steps.
 * It walks the same edges and the same waiting chain (up to the same hop limit and cycle stop),
 * since a failed ancestor there names the reason. A pack scans every bucket's skipped heads at
 * every grant, so this is what replay's grant check pays for each of them.
 */
export function workGateReason(state: ReplayState, work: WorkRecord, asOf: number, pool: PoolPolicy): readonly string[] | EligibilityReason {
  const reason = workLevelReason(state, work, asOf, pool);
  if (reason !== null) return reason;
  let observations: string[] | null = null;
  for (const edge of work.dependsOn) {
    if (edge.kind === 'work') {
      const parent = state.works.get(edge.work_id);
      const blocked = workEdgeReason(parent);
      if (blocked === null) continue;
      return upstreamTerminal(state, work, parent === undefined ? null : waitingOn(parent), asOf, pool) ?? blocked;
    }
    const gate = checkGate(state, edge, asOf, pool);
    if (!gate.ok) return gate.reason; // a gate is never waiting on a Work: nothing upstream
    (observations ??= []).push(gate.observationId);
  }
  return observations ?? NO_OBSERVATIONS;
}

/**
 * `upstreamOf(...).terminal` without its steps: the last terminal failure met walking up from
 * `next` along each predecessor's first unsatisfied edge.
 */
function upstreamTerminal(state: ReplayState, work: WorkRecord, next: WorkRecord | null, asOf: number, pool: PoolPolicy): EligibilityReason | null {
  if (next === null) return null;
  let terminal: EligibilityReason | null = null;
  let hops = 0;
  const seen = new Set([work.workId]);
  while (next !== null && hops < MAX_BLOCKING_HOPS - 1 && !seen.has(next.workId)) {
    seen.add(next.workId);
    let reason: EligibilityReason | null = null;
    let up: WorkRecord | null = null;
    for (const edge of next.dependsOn) {
      if (edge.kind === 'work') {
        const parent = state.works.get(edge.work_id);
        reason = workEdgeReason(parent);
        if (reason !== null) {
          up = parent === undefined ? null : waitingOn(parent);
          break;
        }
      } else {
        const gate = checkGate(state, edge, asOf, pool);
        if (!gate.ok) {
          reason = gate.reason;
          break;
        }
      }
    }
    if (reason === null) break;
    hops++;
    if (TERMINAL_FAILURES.has(reason)) terminal = reason;
    next = up;
  }
  return terminal;
}

/** Capacity gates of one (pool, fairness key) (spec 7.3 "below its outstanding-Claim limit"). */
export function capacityGate(state: ReplayState, poolName: string, key: string, pool: PoolPolicy, overlay?: PlanOverlay): EligibilityReason | null {
  if (logicalOutstanding(state, poolName, overlay) >= pool.logical_limit) return 'capacity_blocked';
  if (pool.per_account_limit !== undefined && accountOutstanding(state, poolName, key, overlay) >= pool.per_account_limit) {
    return 'account_capacity_blocked';
  }
  return null;
}

/** Scheduling eligibility of `work` for a grant in `pool` at `asOf`. */
export function eligibility(source: QueueSource, work: WorkRecord, asOf: number, pool: string = work.pool, overlay?: PlanOverlay): Eligibility {
  const state = stateOf(source);
  const policy = poolPolicy(state, work.pool);
  if (isClaimed(work, overlay)) return blocked(work, 'ownership_claimed');
  if (work.state !== 'available') return blocked(work, ownership(work));
  if (pool !== work.pool) return blocked(work, 'pool_mismatch');
  if (state.controls.grants_paused) return blocked(work, 'grants_paused');
  if (work.retryNotBefore !== null && work.retryNotBefore > asOf) return blocked(work, 'retry_delayed');
  if (work.attempts >= policy.retry.max_attempts) return blocked(work, 'retry_exhausted');
  const capacity = capacityGate(state, pool, work.fairnessKey, policy, overlay);
  if (capacity !== null) return blocked(work, capacity);
  return workGates(state, work, asOf, policy, overlay);
}

/** Unsatisfied dependency branches listed per Work (the rest are counted). */
export const MAX_BLOCKING_BRANCHES = 16;

/**
 * Every unsatisfied dependency edge of `work` (docs/console.md "Pages", `/work/[id]`), in `depends_on`
 * order, each as a branch: the edge's step, then the nearest unsatisfied
 * ancestors up that predecessor's first unsatisfied edge, exactly as
 * `dependencyGates` follows its one path (≤ MAX_BLOCKING_HOPS). The first
 * branch is the engine's blocking path without its leading Work step. At most
 * `limit` branches; `more` counts the rest. Satisfied edges are not listed.
 */
export function blockingBranches(source: QueueSource, work: WorkRecord, asOf: number, limit: number = MAX_BLOCKING_BRANCHES): { branches: BlockingStep[][]; more: number } {
  const state = stateOf(source);
  const pool = poolPolicy(state, work.pool);
  const branches: BlockingStep[][] = [];
  let more = 0;
  for (const edge of work.dependsOn) {
    const blocked = blockingEdge(state, edge, asOf, pool);
    if (blocked === null || typeof blocked === 'string') continue;
    if (branches.length >= limit) {
      more++;
      continue;
    }
    branches.push([blocked.step, ...upstreamOf(state, work, blocked, asOf, pool).steps]);
  }
  return { branches, more };
}
