/**
 * `dispatch_next` with a trusted gate refresh (spec 7.16 "Before admitting Claims with
 * external edges, trusted processing refreshes their conditions and binds the accepted
 * observation IDs into the decision"): the candidate gates are read first (lib/github/observer.ts),
 * then one commit carries the fresh Observations followed by the fair Claims. When no
 * Claim can be granted, the refreshed Observations are still recorded by an `observe`
 * request, so unknown or failed reads stay visible instead of silently retried. After a
 * CAS conflict the whole decision is recomputed; freshness is rechecked at the new time.
 */
import { type DispatchNextInput } from '../../engine/requests/operations.ts';
import type { Publisher, PublishingActor, PublishOutcome } from '../publisher/publisher.ts';
import { publishDispatch, publishObservations, type DispatchOutcome } from '../publisher/requests.ts';
import type { GitHubApi } from '../github/api.ts';
import { refreshGates, type RefreshReport } from '../github/observer.ts';

export interface RefreshedGrantInput extends DispatchNextInput {
  requestId: string;
  actor: PublishingActor;
  /** Observation refreshes requested (contract default 128); 0 disables reading. */
  refresh?: number;
}

export interface RefreshedGrant {
  /** The grant (its packer run is `prepared.plan`), or the no-grant. */
  outcome: DispatchOutcome;
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
  const outcome = await publishDispatch(publisher, { requestId: input.requestId, actor: input.actor, now, input: params, observations });
  let observeCommit: string | null = null;
  if (outcome.status === 'no_write' && observations.length > 0) {
    observeCommit = (await publishObservations(publisher, { requestId: `${input.requestId}-observe`, actor: input.actor, now, observations })).commitId;
  }
  return { outcome, refresh, observeCommit };
}

/** `observe` alone: refresh the pool's candidate gates and record what changed. */
export async function observePool(publisher: Publisher, api: GitHubApi, input: { requestId: string; actor: PublishingActor; pool: string; refresh?: number }, now: () => number = Date.now): Promise<{ refresh: RefreshReport; outcome: PublishOutcome | null }> {
  const { projection } = await publisher.cache.load();
  if (projection === null) return { refresh: { operations: [], budget: 0, candidates: 0, reads: 0, skipped: [] }, outcome: null };
  const refresh = await refreshGates({ api, projection, pool: input.pool, at: now(), ...(input.refresh === undefined ? {} : { requested: input.refresh }) });
  if (refresh.operations.length === 0) return { refresh, outcome: null };
  const outcome = await publishObservations(publisher, { requestId: input.requestId, actor: input.actor, now, observations: refresh.operations });
  return { refresh, outcome };
}
