/**
 * The checkpoint extension `deployments` (spec 7.10: "Deployment and pin state MUST survive
 * checkpoint restoration without rewriting earlier results or assignments"): every worker route
 * a Deployment moved, written only when there is one (so reference-shaped states keep their
 * bytes), as `{pool: {profile: {current_ref, revisions: {ref: {available, contract, profile}}}}}`.
 * Restoration re-checks what replay of the Deployments guaranteed: the pool profile is installed,
 * each revision's profile is the installed authority at its own ref, and the current ref is
 * registered. Anything else is `checkpoint_invalid`.
 */
import { canonicalize } from '../codec/index.ts';
import type { JsonObject } from '../json.ts';
import type { StateReader } from './checkpoint-read.ts';
import { routeKey } from './ops/deployment.ts';
import type { ReplayState, WorkerRevision } from './state.ts';

const REVISION = /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/;

export function deploymentsSnapshot(state: ReplayState): JsonObject | null {
  if (state.deployments.size === 0) return null;
  const out: Record<string, Record<string, JsonObject>> = {};
  for (const key of [...state.deployments.keys()].sort()) {
    const [pool, profile] = key.split('\u0000') as [string, string];
    const route = state.deployments.get(key)!;
    const revisions: JsonObject = {};
    for (const [ref, r] of [...route.revisions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      revisions[ref] = { available: r.available, contract: r.contract, profile: r.profile };
    }
    (out[pool] ??= {})[profile] = { current_ref: route.currentRef, revisions };
  }
  return out;
}

export function restoreDeployments(r: StateReader, state: ReplayState, raw: JsonObject): void {
  const pools = (state.policy?.policy.pools ?? {}) as Record<string, JsonObject>;
  for (const [pool, routes] of Object.entries(r.obj(raw, 'deployments'))) {
    if (!Object.hasOwn(pools, pool)) r.bad(`deployments names pool ${pool}, which the Policy does not configure`);
    const profiles = pools[pool]!.profiles as Record<string, JsonObject>;
    for (const [name, value] of Object.entries(r.obj(routes, `deployments.${pool}`))) {
      const what = `deployments.${pool}.${name}`;
      if (!Object.hasOwn(profiles, name)) r.bad(`${what} is not an installed worker profile`);
      const route = r.obj(value, what);
      r.keys(route, new Set(['current_ref', 'revisions']), what);
      const revisions = new Map<string, WorkerRevision>();
      for (const [ref, entry] of Object.entries(r.obj(route.revisions, `${what}.revisions`))) {
        const at = `${what}.revisions.${ref}`;
        if (!REVISION.test(ref)) r.bad(`${at}: ${ref} is not an immutable revision`);
        const revision = r.obj(entry, at);
        r.keys(revision, new Set(['available', 'contract', 'profile']), at);
        const profile = r.obj(revision.profile, `${at}.profile`);
        if (canonicalize(profile) !== canonicalize({ ...profiles[name]!, ref })) r.bad(`${at}.profile is not the installed authority at ${ref}`);
        revisions.set(ref, { profile, contract: r.digest(revision.contract, `${at}.contract`), available: r.bool(revision.available, `${at}.available`) });
      }
      const currentRef = r.str(route.current_ref, `${what}.current_ref`);
      if (!revisions.has(currentRef)) r.bad(`${what}.current_ref ${currentRef} is not a registered revision`);
      state.deployments.set(routeKey(pool, name), { currentRef, revisions });
    }
  }
}
