/**
 * Issue/PR gate refresh (spec 7.16, 7.17): which gates of candidate Work need a fresh
 * trusted read, the contract's refresh budget, and the normalization of one read into an
 * Observation. Unknown reads (401/403/404, rate limits, network, identity or type
 * mismatch) become `unknown` and never satisfy a gate; an Issue closed as not planned or a
 * PR closed unmerged is `failed`; missing predicate facts are `unknown`, not defaults.
 */
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { gateIdentity as resourceGate } from '../identity/index.ts';
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { ReplayState } from '../state/state.ts';
import { gateIdentity, type ExternalEdge } from '../scheduler/eligibility.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { configuredPool, policyOrNull } from '../scheduler/policy-view.ts';

export type ReadStatus =
  | 'ok' | 'not_found' | 'unauthorized' | 'forbidden' | 'rate_limited' | 'unavailable' | 'network'
  | 'response_invalid' | 'type_mismatch' | 'identity_mismatch' | 'host_mismatch' | 'not_allowed';

/** Normalized facts of one authenticated resource read (no bodies, comments or tokens). */
export interface GateFacts {
  read_status: ReadStatus;
  resource_state?: 'open' | 'closed';
  /** GitHub's raw `state_reason` (null when GitHub sent null). */
  state_reason?: string | null;
  merged?: boolean;
  merge_commit?: string | null;
  source_updated_at?: number;
}

export interface GateTarget {
  gate: string;
  edge: ExternalEdge;
}

/** Contract fixture `observation-refresh-budget.json`: Observations one commit may carry before its Claims. */
export function refreshBudget(input: { operations: number; ledgerBytes: number; ledgerLimit: number; grantsPaused?: boolean; requested?: number }): number {
  const requested = input.requested ?? 128;
  if (!Number.isInteger(requested) || requested < 0 || requested > 255) fail('ledger_invalid', `observation refresh request ${requested} is outside 0..255`);
  if (input.grantsPaused === true || input.ledgerBytes >= input.ledgerLimit) return 0;
  return Math.max(0, Math.min(requested, input.operations - 1));
}

function freshReady(state: ReplayState, gate: string, asOf: number, maxAgeMs: number): boolean {
  const id = state.latestObservation.get(gate);
  const o = id === undefined ? undefined : state.observations.get(id);
  return o !== undefined && o.state === 'ready' && o.readStatus === 'ok' && o.credentialGeneration === state.controls.credential_generation
    && o.observedAt <= asOf && asOf - o.observedAt <= maxAgeMs;
}

/**
 * Gates of candidate prerequisites in `pool`, deduplicated by gate identity, in FIFO order
 * of the Work needing them: available, not retry-delayed, Work predecessors verified, and
 * the gate not already backed by a fresh satisfying observation.
 */
export function candidateGates(source: QueueSource, pool: string, asOf: number): GateTarget[] {
  const state = stateOf(source);
  const poolPolicy = configuredPool(policyOrNull(state), pool);
  const works = [...state.works.values()].filter((w) => w.pool === pool && w.state === 'available' && !(w.retryNotBefore !== null && w.retryNotBefore > asOf));
  works.sort((a, b) => a.fifo - b.fifo);
  const seen = new Set<string>();
  const out: GateTarget[] = [];
  for (const work of works) {
    const predecessorsDone = work.dependsOn.every((e) => e.kind !== 'work' || state.works.get(e.work_id)?.barrier === 'verified');
    if (!predecessorsDone) continue;
    for (const edge of work.dependsOn) {
      if (edge.kind === 'work') continue;
      const gate = gateIdentity(edge);
      if (seen.has(gate) || freshReady(state, gate, asOf, poolPolicy.max_observation_age_ms)) continue;
      seen.add(gate);
      out.push({ gate, edge });
    }
  }
  return out;
}

/** Condition evaluation on normalized facts (spec 7.16 "Explicit condition semantics"). */
export function gateState(edge: ExternalEdge, facts: GateFacts): 'ready' | 'waiting' | 'failed' | 'unknown' {
  if (facts.read_status !== 'ok' || facts.resource_state === undefined) return 'unknown';
  if (edge.kind === 'pull_request') {
    if (facts.merged === undefined) return 'unknown';
    if (facts.merged) return typeof facts.merge_commit === 'string' && facts.merge_commit !== '' ? 'ready' : 'unknown';
    return facts.resource_state === 'closed' ? 'failed' : 'waiting';
  }
  if (facts.resource_state === 'open') return 'waiting';
  if (edge.condition === 'closed') return 'ready';
  if (facts.state_reason === undefined || facts.state_reason === null) return 'unknown';
  return facts.state_reason === 'completed' ? 'ready' : 'failed';
}

const STATE_REASONS = new Set(['completed', 'not_planned', 'reopened']);

/** The Observation operation for one read of `target` at `at` under credential `generation`. */
export function observationOperation(target: GateTarget, facts: GateFacts, at: number, generation: string): JsonObject {
  const { edge } = target;
  const recorded: JsonObject = {};
  if (facts.read_status === 'ok') {
    if (facts.resource_state !== undefined) recorded.resource_state = facts.resource_state;
    if (typeof facts.state_reason === 'string' && STATE_REASONS.has(facts.state_reason)) recorded.state_reason = facts.state_reason;
    if (facts.merged !== undefined) recorded.merged = facts.merged;
    if (typeof facts.merge_commit === 'string' && facts.merge_commit !== '') recorded.merge_commit = facts.merge_commit;
    if (facts.source_updated_at !== undefined) recorded.source_updated_at = facts.source_updated_at;
  }
  const state = gateState(edge, facts);
  const id = `o_${sha256Hex(canonicalize({ at, facts: recorded, gate: target.gate, read_status: facts.read_status, state }))}`;
  return {
    kind: 'Observation',
    observation_id: id,
    resource: edge.resource as unknown as JsonObject,
    condition: edge.condition,
    state,
    observed_at: at,
    credential_generation: generation,
    read_status: facts.read_status,
    ...recorded,
  };
}

const FACT_KEYS = ['state', 'read_status', 'resource_state', 'state_reason', 'merged', 'merge_commit', 'source_updated_at'] as const;

/**
 * An unchanged non-satisfying observation need not be written again (spec 7.17: "Repeated
 * unchanged polls need not append new records"); a satisfying one is rewritten only to
 * renew its freshness, which is why it was selected for refresh.
 */
export function isRedundant(source: QueueSource, target: GateTarget, op: JsonObject): boolean {
  const state = stateOf(source);
  if (op.state === 'ready') return false;
  const id = state.latestObservation.get(target.gate);
  const latest = id === undefined ? undefined : state.observations.get(id);
  if (latest === undefined || latest.credentialGeneration !== op.credential_generation) return false;
  return FACT_KEYS.every((k) => canonicalize(latest.operation[k] ?? null) === canonicalize(op[k] ?? null));
}

/**
 * The observations of `ops` no recorded read supersedes: one read before its gate's latest
 * recorded Observation is dropped (replay refuses it, ops/observation.ts), as when another
 * dispatcher recorded a newer read of the same resource while this one's publication retried.
 */
export function currentObservations(source: QueueSource, ops: readonly JsonObject[]): JsonObject[] {
  const state = stateOf(source);
  return ops.filter((op) => {
    if (op.kind !== 'Observation') return true;
    const gate = resourceGate(op.resource as unknown as ExternalEdge['resource'], op.condition as ExternalEdge['condition']);
    const latest = state.observations.get(state.latestObservation.get(gate) ?? '');
    return latest === undefined || (op.observed_at as number) >= latest.observedAt;
  });
}
