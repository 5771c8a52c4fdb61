/**
 * Worker routes as the state records them (spec 7.10; replay/ops/deployment.ts moves them): the
 * route key of `deployments`, a route's current revision, the contract a Work froze at
 * admission, and why the revision a Work would run cannot take it now (eligibility asks this on
 * the scheduling path).
 */
import { fail } from '../errors.ts';
import type { ReplayState, WorkerRevision, WorkerRoute, WorkRecord } from './state.ts';

export function routeKey(pool: string, workerProfile: string): string {
  return `${pool}\u0000${workerProfile}`;
}

export function currentRevision(route: WorkerRoute): WorkerRevision {
  return route.revisions.get(route.currentRef)!;
}

/** The logical contract `work` froze at admission. */
export function admissionContract(state: ReplayState, work: Pick<WorkRecord, 'workId' | 'pool' | 'workerProfile'>): string {
  const frozen = state.admissions.get(work.workId);
  if (frozen !== undefined) return frozen;
  return fail('internal_error', `Work ${work.workId} has no frozen admission contract`);
}

/** The revision `work` pinned at admission (`execution_ref`), if any. */
export function pinOf(work: Pick<WorkRecord, 'executionRef'>): string | undefined {
  return work.executionRef ?? undefined;
}

/**
 * The revision (ref) a dispatch group of `work` would freeze now (what `executionProfile` in
 * replay/ops/deployment.ts returns the profile of): its pin, else its route's current revision,
 * else the ref of its `installed` profile (the caller has looked it up). Spec 7.14: a group's
 * members share one "immutable ref revision", so the packer groups Work by it.
 */
export function executionRevision(state: ReplayState, work: Pick<WorkRecord, 'executionRef' | 'pool' | 'workerProfile'>, installed: { ref: string }): string {
  const pin = pinOf(work);
  if (pin !== undefined) return pin;
  const deployed = state.deployments.size === 0 ? undefined : state.deployments.get(routeKey(work.pool, work.workerProfile));
  return deployed !== undefined ? deployed.currentRef : installed.ref;
}

/**
 * Why the revision `work` would run now cannot take it, or null: its pin (else the current route)
 * is unavailable (`deployment_unavailable`), or the current route's contract is not the one the
 * unpinned Work froze (`contract_incompatible`). Cheap on the scheduling path: an unpinned Work on
 * a route no Deployment has touched runs its installed revision, whose contract it froze.
 */
export function executionBlock(state: ReplayState, work: WorkRecord): 'deployment_unavailable' | 'contract_incompatible' | null {
  if (state.deployments.size === 0) return null; // no route touched: no route key to build
  const deployed = state.deployments.get(routeKey(work.pool, work.workerProfile));
  if (deployed === undefined) return null;
  const pin = pinOf(work);
  const revision = pin === undefined ? currentRevision(deployed) : deployed.revisions.get(pin);
  if (revision === undefined || !revision.available) return 'deployment_unavailable';
  if (pin === undefined && revision.contract !== admissionContract(state, work)) return 'contract_incompatible';
  return null;
}
