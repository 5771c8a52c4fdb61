/**
 * `dispatch_next` with a trusted gate refresh (spec 7.16 "Before admitting Claims with
 * external edges, trusted processing refreshes their conditions and binds the accepted
 * observation IDs into the decision"): the candidate gates are read first (lib/github/observer.ts),
 * then one commit carries the fresh Observations followed by the fair Claims. When no
 * Claim can be granted, the refreshed Observations are still recorded by an `observe`
 * request, so unknown or failed reads stay visible instead of silently retried. After a
 * CAS conflict the whole decision is recomputed; freshness is rechecked at the new time.
 */
import type { Projection } from '../../engine/replay/index.ts';
import { dispatchNextWithObservations } from '../../engine/lifecycle/grant.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import { operationsRequest, type DispatchNextInput } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { Publisher, PublishOutcome } from '../publisher/publisher.ts';
import type { GitHubApi } from '../github/api.ts';
import { refreshGates, type RefreshReport } from '../github/observer.ts';
import { grantEvent, packEvent } from '../debug/queue-events.ts';

export interface RefreshedGrantInput extends DispatchNextInput {
  requestId: string;
  actor: Actor;
  /** Observation refreshes requested (contract default 128); 0 disables reading. */
  refresh?: number;
}

export interface RefreshedGrant {
  outcome: PublishOutcome;
  plan: PackResult | undefined;
  refresh: RefreshReport | null;
  /** The `observe` commit recording refreshed gates when nothing was granted. */
  observeCommit: string | null;
}

export async function observeAndGrant(publisher: Publisher, api: GitHubApi | null, input: RefreshedGrantInput, now: () => number = Date.now): Promise<RefreshedGrant> {
  const { projection } = await publisher.cache.load();
  let refresh: RefreshReport | null = null;
  if (api !== null && projection !== null && projection.request(input.requestId) === undefined && (input.refresh ?? 128) > 0) {
    refresh = await refreshGates({ api, projection, pool: input.pool, at: now(), requested: input.refresh ?? 128 });
  }
  const observations = refresh?.operations ?? [];
  const params = { pool: input.pool, max_claims: input.max_claims, max_dispatches: input.max_dispatches, max_bytes: input.max_bytes };
  let plan: PackResult | undefined;
  const outcome = await publisher.publish({
    requestId: input.requestId,
    actor: input.actor,
    now,
    prepare: (p: Projection, ids) => {
      const built = dispatchNextWithObservations(p, params, ids, ids.at, observations);
      plan = built.plan;
      packEvent(built.plan);
      if (built.plan.claims.length > 0) return built;
      const reason = built.plan.stopReason;
      return { kind: built.kind, parameters: built.parameters, noWrite: { code: reason, message: `no grant: ${reason}`, detail: built.plan.next.explanation } };
    },
  });
  grantEvent(outcome, plan);
  let observeCommit: string | null = null;
  if (outcome.status === 'no_write' && observations.length > 0) {
    const recorded = await publisher.publish({ requestId: `${input.requestId}-observe`, actor: input.actor, now, prepare: () => operationsRequest('observe', observations) });
    observeCommit = recorded.status === 'committed' ? recorded.commit.id : recorded.status === 'request_replayed' ? recorded.commitId : null;
  }
  return { outcome, plan: outcome.status === 'committed' ? plan : undefined, refresh, observeCommit };
}

/** `observe` alone: refresh the pool's candidate gates and record what changed. */
export async function observePool(publisher: Publisher, api: GitHubApi, input: { requestId: string; actor: Actor; pool: string; refresh?: number }, now: () => number = Date.now): Promise<{ refresh: RefreshReport; outcome: PublishOutcome | null }> {
  const { projection } = await publisher.cache.load();
  if (projection === null) return { refresh: { operations: [], budget: 0, candidates: 0, reads: 0, skipped: [] }, outcome: null };
  const refresh = await refreshGates({ api, projection, pool: input.pool, at: now(), ...(input.refresh === undefined ? {} : { requested: input.refresh }) });
  if (refresh.operations.length === 0) return { refresh, outcome: null };
  const outcome = await publisher.publish({ requestId: input.requestId, actor: input.actor, now, prepare: () => operationsRequest('observe', refresh.operations) });
  return { refresh, outcome };
}
