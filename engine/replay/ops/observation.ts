/**
 * Trusted Issue/PR Observations (spec 7.16), recorded by gate identity
 * (identity/index.ts `gateIdentity`, contract `gate_identity`).
 */
import { gateIdentity } from '../../identity/index.ts';
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { conditionHolds, READ_OK } from '../../scheduler/eligibility.ts';
import { currentPolicy } from './policy.ts';
import { repeatsObservation } from './repeat.ts';

export function applyObservation(ctx: CommitContext, op: OperationOf<'Observation'>): void {
  const { state } = ctx;
  const at = where(ctx);
  if (repeatsObservation(ctx, op)) return;
  checkObservedRepository(ctx, op);
  // Spec 7.16: an observation is read no later than the decision that records it, under the
  // credential generation current then ("Bind the current credential generation; after a
  // cutover, acquire a fresh authorized observation rather than reuse one from the old access context").
  if (op.observed_at > ctx.commit.at) fail('observation_invalid', `observation ${op.observation_id} was observed at ${op.observed_at}, after its commit's decision time ${ctx.commit.at}`, at);
  if (op.credential_generation !== state.controls.credential_generation) {
    fail('observation_invalid', `observation ${op.observation_id} was read under credential generation ${JSON.stringify(op.credential_generation)}; the current one is ${JSON.stringify(state.controls.credential_generation)}`, at);
  }
  const problem = observationIncoherence(op);
  if (problem !== null) fail('observation_invalid', `observation ${op.observation_id}: ${problem}`, at);
  const gate = gateIdentity(op.resource, op.condition);
  // Spec 7.16: "New trusted observations supersede earlier gate readiness"; an older read recorded
  // after a newer one would undo a known invalidation (a reopened Issue read as closed again).
  const latest = state.observations.get(state.latestObservation.get(gate) ?? '');
  if (latest !== undefined && op.observed_at < latest.observedAt) {
    fail('observation_invalid', `observation ${op.observation_id} was read at ${op.observed_at}, before the gate's latest recorded observation ${latest.observationId} (${latest.observedAt}): an older read cannot supersede a newer one`, at);
  }
  const limit = currentPolicy(ctx).limits.observation_writes ?? 4096;
  const writes = (state.observationWrites.get(gate) ?? 0) + 1;
  if (writes > limit) fail('resource_limit', `gate has used its ${limit} observation writes in this epoch`, at, { limit: 'observation_writes', max: limit });
  state.observationWrites.set(gate, writes);
  state.observations.set(op.observation_id, {
    observationId: op.observation_id,
    commitId: ctx.commit.id,
    gate,
    condition: op.condition,
    state: op.state,
    observedAt: op.observed_at,
    credentialGeneration: op.credential_generation,
    readStatus: op.read_status,
    operation: op as unknown as JsonObject,
  });
  state.latestObservation.set(gate, op.observation_id);
}

/**
 * What makes an Observation's own fields contradict each other (null: coherent); also checked on a
 * checkpoint's restored Observations. Spec 7.16: the resolver "MUST validate resource type" (a
 * condition of the other kind); a ready gate needs a successful read ("Unknown/deleted/inaccessible
 * resources, 401/403/404, rate limits, network failures, and host identity errors never imply
 * closed or merged") whose recorded facts prove the predicate ("Explicit condition semantics": a
 * merged PR "reports merged: true with merge provenance"; "Missing/null fields needed for the
 * chosen predicate are unknown, not successful compatibility defaults"). The same predicate
 * decides eligibility (scheduler/eligibility.ts `conditionHolds`).
 */
export function observationIncoherence(op: OperationOf<'Observation'>): string | null {
  const conditionKind = op.condition === 'merged' ? 'pull_request' : 'issue';
  if (op.resource.kind !== conditionKind) return `condition ${op.condition} does not apply to a ${op.resource.kind}`;
  if (op.state !== 'ready') return null;
  if (op.read_status !== READ_OK) return `a ready ${op.condition} observation comes from a successful read, not read_status ${JSON.stringify(op.read_status)}`;
  if (!conditionHolds(op.condition, op as unknown as JsonObject)) {
    return `a ready ${op.condition} observation must carry the facts that satisfy it${op.condition === 'merged' ? ' (merged: true and its merge_commit)' : ''}`;
  }
  return null;
}

/**
 * Spec 7.16: trusted readers "re-read the exact authorized resource before recording
 * authoritative readiness" through "allowlisted metadata reads". An Observation is of a
 * resource some pool may depend on: its repository is in at least one pool's
 * allowed_repositories (a worker is held to its parent pool, worker-scope.ts). Otherwise
 * `observation_invalid`, as the reference answers.
 */
function checkObservedRepository(ctx: CommitContext, op: OperationOf<'Observation'>): void {
  const pools = currentPolicy(ctx).pools;
  const allowed = Object.values(pools).some((pool) => (pool.allowed_repositories ?? []).includes(op.resource.repository));
  if (!allowed) fail('observation_invalid', `no pool allows dependencies on ${op.resource.repository}: it cannot be observed`, where(ctx));
}
