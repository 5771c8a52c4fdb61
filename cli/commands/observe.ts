/**
 * `fairway observe [--pool P] [--refresh N]`: trusted Issue/PR gate refresh (spec 7.16).
 * Reads the pool's candidate gates with the observation credential (FAIRWAY_OBSERVE_TOKEN,
 * else GH_TOKEN/GITHUB_TOKEN), within the refresh budget and the pool's repository
 * allowlist, and records changed results as one `observe` request. Failed reads are
 * recorded as unknown; they never satisfy a gate.
 */
import { fail } from '../../engine/errors.ts';
import { lifecycleActors, observeApi } from '../../lib/github/context.ts';
import { observePool } from '../../lib/lifecycle/grant.ts';
import type { CommandModule } from '../context.ts';
import { githubEnv, lazy } from '../globals.ts';
import { intIn } from '../parse.ts';
import { printJson } from '../output.ts';
import { principalOf, requestIdOf, writeTarget } from '../source.ts';

export const registerObserve: CommandModule = (program, ctx) => {
  program.command('observe')
    .description('Refresh Issue/PR dependency gates of a pool and record the trusted Observations.')
    .option('--pool <name>', 'scheduling pool', 'default')
    .option('--refresh <n>', 'gates to refresh at most (0..255, contract default 128)', intIn('--refresh', 0, 255), 128)
    .action(ctx.action(async (g, o: { pool: string; refresh: number }) => {
      const { publisher } = writeTarget(g);
      const { projection } = await publisher.cache.load();
      if (projection === null) fail('queue_uninitialized', 'there is no queue to observe for');
      const actor = lifecycleActors(principalOf(g), process.env).dispatcher;
      const requestId = requestIdOf(g, 'observe');
      const env = await githubEnv(g);
      // Built on first use: a pool with no Issue/PR gate to refresh makes no GitHub call and needs no token.
      const api = lazy(() => observeApi(env));
      const { refresh, outcome } = await observePool(publisher, api, { requestId, actor, pool: o.pool, refresh: o.refresh });
      const commitId = outcome?.commitId ?? null;
      const result = {
        ok: true, request_id: outcome === null ? null : requestId, commit_id: commitId, budget: refresh.budget, candidates: refresh.candidates, reads: refresh.reads,
        observations: refresh.operations.map((op) => ({ observation_id: op.observation_id, resource: op.resource, condition: op.condition, state: op.state, read_status: op.read_status })),
        skipped: refresh.skipped,
      };
      if (g.json) return printJson(ctx.io, result);
      ctx.io.out(`${refresh.candidates} gate(s), ${refresh.reads} read(s), ${refresh.operations.length} recorded${commitId ? ` in ${commitId}` : ''}`);
      for (const ob of result.observations) ctx.io.out(`  ${String(ob.condition).padEnd(9)} ${String(ob.state).padEnd(8)} ${String(ob.read_status)}`);
    }));
};
