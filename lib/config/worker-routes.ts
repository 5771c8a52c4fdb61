/**
 * Policies with verified worker routes (spec 7.1, 7.10), shared by every path that writes a
 * Policy from configuration: the CLI's bootstrap and `policy --from-config`, and the MCP
 * intents processor's bootstrap. Routes and aw.json are read from the store's own repository
 * (`LedgerStore.defaultRevision()`: the local repository, the remote, or the GitHub API) at
 * one immutable commit — never from an unrelated clone, and never a placeholder profile.
 */
import { fail, ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { deployedRoute } from '../../engine/lifecycle/deploy.ts';
import { AUTHORITY_FIELDS } from '../../engine/replay/ops/deployment.ts';
import { currentRevision } from '../../engine/state/routes.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { QueuePolicySchema } from '../../engine/schema/index.ts';
import type { LedgerStore, RepositoryRevision } from '../store/types.ts';
import { policyFromSettings, readAwJsonSettings, type WorkQueueSettings } from './aw.ts';
import { requireDefaultRoute, workerRoutes, type RouteContext, type WorkerRoutes } from './workers.ts';

export const AW_JSON_PATH = '.github/workflows/aw.json';

/** The store's repository at its verified default revision, or `worker_route_unavailable`. */
export async function storeRevision(store: LedgerStore): Promise<RepositoryRevision> {
  if (store.defaultRevision === undefined) {
    fail('worker_route_unavailable', `${store.label} cannot read a repository revision, so no worker route can be verified`);
  }
  const revision = await store.defaultRevision();
  if (revision === null) {
    fail('worker_route_unavailable', `${store.label} has no default branch commit (distinct from the queue branch) to verify worker routes at`);
  }
  return revision;
}

export interface Configuration {
  revision: RepositoryRevision;
  settings: WorkQueueSettings;
  routes: WorkerRoutes;
}

/** aw.json scheduling and the declared worker routes, both read at the same immutable commit. */
export async function configurationAt(store: LedgerStore, ctx: RouteContext): Promise<Configuration> {
  const revision = await storeRevision(store);
  const settings = readAwJsonSettings(await revision.readFile(AW_JSON_PATH));
  return { revision, settings, routes: await workerRoutes(revision, ctx) };
}

/**
 * The genesis Policy of a bootstrap: scheduling from aw.json, every verified worker route as
 * a profile (its commit SHA as `ref`). No verified default route is `worker_route_unavailable`.
 */
export async function bootstrapPolicy(store: LedgerStore, ctx: RouteContext): Promise<{ policy: JsonObject; routes: WorkerRoutes }> {
  const { settings, routes } = await configurationAt(store, ctx);
  const defaultProfile = requireDefaultRoute(routes);
  return { policy: policyFromSettings(settings, { ...ctx, profiles: routes.profiles, defaultProfile }), routes };
}

/**
 * Spec 7.1: "the runtime MUST validate immutable worker routes before queue publication".
 * Each node's profile must have a verified route: a declared worker whose route cannot be
 * verified is `worker_route_unavailable`; a name no worker declares is `unknown_profile`.
 */
export function requireRoutesFor(routes: WorkerRoutes, nodes: readonly { node_key?: string; worker_profile?: string }[]): void {
  const defaultProfile = requireDefaultRoute(routes);
  for (const node of nodes) {
    const wanted = node.worker_profile ?? defaultProfile;
    if (Object.hasOwn(routes.profiles, wanted)) continue;
    if (!Object.hasOwn(routes.unavailable, wanted)) fail('unknown_profile', `node ${node.node_key ?? '?'}: the repository declares no worker profile ${wanted}`, { path: 'worker_profile' });
    fail('worker_route_unavailable', `worker profile ${wanted} has no verified route at ${routes.ref} (${routes.unavailable[wanted]})`, {}, { worker_profile: wanted });
  }
}

function sameAuthority(a: JsonObject, b: JsonObject): boolean {
  return AUTHORITY_FIELDS.every((k) => a[k] === b[k]);
}

/**
 * `policy --from-config` keeps what is deployed: a profile whose configured authority equals
 * the current route's keeps the route's current ref; a declared worker whose source is now
 * missing or invalid keeps its current profile (deploy records its availability), unless deploy
 * recorded that current revision unavailable: installing it would make it available again, so
 * that is `worker_route_unavailable`. Only a configuration change of a profile's authority moves
 * it to the verified revision.
 */
export function keepDeployed(policy: JsonObject, projection: Projection | null, routes: WorkerRoutes): JsonObject {
  if (projection === null || projection.policy === null) return policy;
  const pools = policy.pools as Record<string, { profiles: Record<string, JsonObject> }>;
  for (const [pool, entry] of Object.entries(pools)) {
    for (const name of [...Object.keys(entry.profiles), ...Object.keys(routes.unavailable)]) {
      const route = deployedRoute(projection, pool, name);
      if (route === null) continue;
      const revision = currentRevision(route);
      const current = revision.profile;
      const next = entry.profiles[name];
      if (next === undefined || sameAuthority(current, next)) {
        // The new epoch's route starts available: carrying a revision deploy recorded unavailable
        // (its workflow missing or not a worker there) would resume dispatch to it.
        if (!revision.available) {
          throw new ProtocolError('worker_route_unavailable',
            `${pool}/${name} runs ${route.currentRef}, which deploy recorded unavailable; a new Policy epoch would install it as available. Restore the worker on the default branch and run deploy --from-config first (or remove its declaration)`,
            {}, { pool, worker_profile: name, ref: route.currentRef });
        }
        const kept: JsonObject = {};
        for (const k of [...AUTHORITY_FIELDS, 'ref'] as const) kept[k] = current[k]!;
        entry.profiles[name] = kept;
      }
    }
  }
  const parsed = QueuePolicySchema.safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = ['policy', ...issue.path.map(String)].join('.');
    throw new ProtocolError('policy_invalid', `${path}: ${issue.message}`, { path });
  }
  return policy;
}

/**
 * The next Policy of `policy --from-config` on an existing queue: aw.json and routes at the
 * store's verified default revision, deployed refs and contracts kept (keepDeployed). With no
 * verified route at all, every worker keeps its currently installed profile.
 */
export async function policyFromConfig(store: LedgerStore, projection: Projection, ctx: RouteContext): Promise<JsonObject> {
  const { settings, routes } = await configurationAt(store, ctx);
  let fresh: JsonObject;
  if (Object.keys(routes.profiles).length > 0) {
    fresh = policyFromSettings(settings, { ...ctx, profiles: routes.profiles, defaultProfile: requireDefaultRoute(routes) });
  } else {
    const pools = projection.policy?.pools;
    const first = pools === undefined ? undefined : Object.values(pools)[0];
    if (first === undefined) requireDefaultRoute(routes);
    fresh = policyFromSettings(settings, { ...ctx, profiles: first!.profiles as never, defaultProfile: first!.default_profile });
  }
  return keepDeployed(fresh, projection, routes);
}
