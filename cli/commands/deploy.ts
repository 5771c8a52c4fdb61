/**
 * `fairway deploy --from-config [--pool P] [--worker-profile NAME]`: record Deployment
 * transitions (spec 7.10) for approved worker profiles from the repository's verified
 * default revision: the profile's workflow must exist there and declare the
 * `work_queue_assignment` input, and `.github/work-queue-workers.json` (when present) must still
 * declare the profile with that workflow, to be available. Only the
 * revision and availability move (a compare-and-set on the installed ref); no draining,
 * no fairness-debt reset, existing Dispatch records keep their frozen profile. Host facts
 * come from the store's own repository (`--repo`: the local repository, `--remote`: the
 * remote, `--github`: the GitHub API) at its default branch's immutable commit.
 */
import { canonicalize, sha256Hex, utf8ByteLength } from '../../engine/codec/index.ts';
import { fail } from '../../engine/errors.ts';
import { IDENTITY_MAX_UTF8_BYTES } from '../../engine/identity/index.ts';
import { storeRevision } from '../../lib/config/worker-routes.ts';
import { lifecycleActors } from '../../lib/github/context.ts';
import { deployWorker, type DeployReport } from '../../lib/lifecycle/deploy.ts';
import { routeExpectation, type RouteExpectation } from '../../engine/lifecycle/deploy.ts';
import { deploymentRevision, WorkerSources } from '../../lib/github/revision.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError } from '../output.ts';
import { principalOf, requestIdOf, writeTarget } from '../source.ts';
import { configuredPool, installedPolicy } from '../../engine/scheduler/policy-view.ts';

/** Bytes the per-profile suffix adds to the base request id: `-` and 16 hex digits. */
const SUFFIX_BYTES = 17;

/**
 * The request id of one profile's Deployment: the base id and a digest of (pool, profile). Not
 * `${base}-${pool}-${profile}`: names may contain `-`, so pool `a-b`/profile `c` and pool
 * `a`/profile `b-c` would share an id and the second would be a request_id_conflict.
 */
function deploymentRequestId(base: string, pool: string, workerProfile: string): string {
  return `${base}-${sha256Hex(canonicalize([pool, workerProfile])).slice(0, SUFFIX_BYTES - 1)}`;
}

export const registerDeploy: CommandModule = (program, ctx) => {
  program.command('deploy')
    .description('Move approved worker profiles to the verified default revision (Deployment transitions; no drain, no debt reset).')
    .requiredOption('--from-config', 'derive the revision and availability from the repository default branch')
    .option('--pool <name>', 'only this pool')
    .option('--worker-profile <name>', 'only this worker profile')
    .action(ctx.action(async (g, o: { pool?: string; workerProfile?: string }) => {
      const base = requestIdOf(g, 'deploy');
      if (utf8ByteLength(base) > IDENTITY_MAX_UTF8_BYTES - SUFFIX_BYTES) {
        throw new UsageError(`--request-id must be at most ${IDENTITY_MAX_UTF8_BYTES - SUFFIX_BYTES} UTF-8 bytes for deploy (each profile's request id appends ${SUFFIX_BYTES})`, 'option_invalid');
      }
      const { store, publisher } = writeTarget(g);
      const { projection } = await publisher.cache.load();
      if (projection === null) fail('queue_uninitialized', 'there is no queue to deploy to');
      const pools = installedPolicy(projection).pools;
      if (o.pool !== undefined) configuredPool(projection.policy, o.pool);
      // Each route as read before the revision: its Deployment compare-and-sets exactly that, so a
      // concurrent deploy that moved it meanwhile wins (deployment_conflict), never rolled back.
      const observed = new Map<string, RouteExpectation>();
      for (const [pool, p] of Object.entries(pools)) {
        for (const name of Object.keys(p.profiles)) observed.set(`${pool}\u0000${name}`, routeExpectation(projection, pool, name));
      }
      // One revision for every profile of this run: all deployments name the same immutable commit,
      // and each worker source there is read once, however many profiles name it.
      const sources = new WorkerSources(await storeRevision(store));
      const admin = lifecycleActors(principalOf(g), process.env).administrator;
      const reports: DeployReport[] = [];
      for (const [pool, p] of Object.entries(pools).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (o.pool !== undefined && pool !== o.pool) continue;
        for (const [name, profile] of Object.entries(p.profiles).sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (o.workerProfile !== undefined && name !== o.workerProfile) continue;
          const revision = await deploymentRevision(sources, profile, name);
          reports.push(await deployWorker(publisher, admin, { requestId: deploymentRequestId(base, pool, name), pool, workerProfile: name, revision, expected: observed.get(`${pool}\u0000${name}`)! }));
        }
      }
      if (reports.length === 0) fail('unknown_profile', 'no worker profile matched --pool/--worker-profile');
      if (g.json) return printJson(ctx.io, { ok: true, deployments: reports });
      for (const r of reports) ctx.io.out(`${r.pool}/${r.worker_profile}: ${r.status} ${r.from.slice(0, 12)} -> ${r.to.slice(0, 12)}${r.available ? '' : ' (unavailable)'}${r.compatible ? '' : ' (new logical contract: unpinned Work admitted earlier waits, contract_incompatible)'}`);
    }));
};
