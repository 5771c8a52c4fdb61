/**
 * Worker routes for the CLI's Policy-writing commands (bootstrap, `policy --from-config`):
 * read from the queue repository's verified default revision (lib/config/workers.ts) — the
 * GitHub API when a token is set (as `deploy` does), else the local repository.
 */
import { ProtocolError } from '../engine/errors.ts';
import type { JsonObject } from '../engine/json.ts';
import { currentRevision, workerRoute } from '../engine/replay/ops/deployment.ts';
import type { ReplayState } from '../engine/replay/state.ts';
import { QueuePolicySchema } from '../engine/schema/index.ts';
import { workerRoutes, type RevisionSource, type RouteContext, type WorkerRoutes } from '../lib/config/workers.ts';
import { launchApi } from '../lib/github/context.ts';
import { githubSource, localSource } from '../lib/github/revision.ts';
import { githubEnv, hasToken, type GlobalOptions } from './globals.ts';

export async function revisionSource(g: GlobalOptions, repository: string): Promise<RevisionSource> {
  if (g.github !== undefined) {
    const env = await githubEnv(g);
    if (hasToken(env)) return githubSource(launchApi(env), repository);
  }
  return localSource(g.dir ?? process.cwd());
}

export async function repositoryRoutes(g: GlobalOptions, ctx: RouteContext): Promise<WorkerRoutes> {
  return workerRoutes(await revisionSource(g, ctx.repository), ctx);
}

const AUTHORITY = ['workflow', 'principal', 'trust_domain', 'credential_scope', 'effect_scope', 'max_claims', 'share_keys'] as const;

function sameAuthority(a: JsonObject, b: JsonObject): boolean {
  return AUTHORITY.every((k) => a[k] === b[k]);
}

/**
 * `policy --from-config` keeps what is deployed: a profile whose configured authority equals
 * the current route's keeps the route's current ref; a declared worker whose source is now
 * missing or invalid keeps its current profile (deploy records its availability). Only a
 * configuration change of a profile's authority moves it to the verified revision.
 */
export function keepDeployed(policy: JsonObject, state: ReplayState | null, routes: WorkerRoutes): JsonObject {
  if (state?.policy === undefined || state.policy === null) return policy;
  const pools = policy.pools as Record<string, { profiles: Record<string, JsonObject> }>;
  for (const [pool, entry] of Object.entries(pools)) {
    for (const name of [...Object.keys(entry.profiles), ...Object.keys(routes.unavailable)]) {
      const route = workerRoute(state, pool, name);
      if (route === null) continue;
      const current = currentRevision(route).profile;
      const next = entry.profiles[name];
      if (next === undefined || sameAuthority(current, next)) {
        const kept: JsonObject = {};
        for (const k of [...AUTHORITY, 'ref'] as const) kept[k] = current[k]!;
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
