/**
 * Administrator commands: control, cancel-work, cancel-claim, reprioritize and
 * policy. Each is one checked, all-or-nothing transaction through the publisher.
 */
import { readFile } from 'node:fs/promises';
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { isReasonCode } from '../../engine/identity/index.ts';
import { cancelClaimsRequest, cancelWorkRequest, policyRequest, reprioritizeRequest } from '../../engine/requests/admin.ts';
import { control } from '../../engine/requests/lifecycle.ts';
import type { BuiltRequest } from '../../engine/requests/operations.ts';
import type { ReplayState } from '../../engine/replay/state.ts';
import { QueuePolicySchema } from '../../engine/schema/index.ts';
import { policyFromSettings, readAwJsonSettings } from '../../lib/config/aw.ts';
import { debugEvent } from '../../lib/debug/log.ts';
import { requireDefaultRoute } from '../../lib/config/workers.ts';
import { keepDeployed, repositoryRoutes } from '../worker-routes.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { printJson, UsageError, type Io } from '../output.ts';
import { actor, principalOf, requestIdOf, writeTarget } from '../source.ts';

function ids(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v.length > 0);
}

function reason(code: string): string {
  if (!isReasonCode(code)) throw new UsageError(`--reason must be a reason code like operator_cancelled (letters, digits, _ . : -; at most 128)`, 'reason_invalid');
  return code;
}

async function publishAdmin(io: Io, g: GlobalOptions, kind: string, build: (state: ReplayState, at: number) => BuiltRequest, describe: string): Promise<void> {
  const { publisher } = writeTarget(g);
  const requestId = requestIdOf(g, kind);
  const { projection: current } = await publisher.cache.load();
  if (current === null) fail('queue_uninitialized', 'no queue yet: only the first submit-work or submit-graph creates one');
  const outcome = await publisher.publish({
    requestId,
    actor: actor('administrator', principalOf(g), current.state.repository ?? ''),
    prepare: (projection, ids) => build(projection.state, ids.at),
  });
  if (outcome.status === 'no_write') fail(outcome.code, outcome.message);
  const commitId = outcome.status === 'committed' ? outcome.commit.id : outcome.commitId;
  if (g.json) printJson(io, { ok: true, status: outcome.status, request_id: requestId, commit_id: commitId, kind });
  else io.out(`${outcome.status === 'request_replayed' ? 'already committed' : describe}: commit ${commitId} (request ${requestId})`);
}

/** No verified route now: every declared worker keeps its current deployed profile, or there is nothing to install. */
function keptOnly(settings: ReturnType<typeof readAwJsonSettings>, repository: string, g: GlobalOptions, current: ReplayState | null, routes: Awaited<ReturnType<typeof repositoryRoutes>>): JsonObject {
  const pools = current?.policy?.policy.pools as Record<string, { default_profile: string; profiles: Record<string, JsonObject> }> | undefined;
  const first = pools === undefined ? undefined : Object.values(pools)[0];
  if (first === undefined) return requireDefaultRoute(routes) as never;
  return policyFromSettings(settings, { repository, principal: principalOf(g), profiles: first.profiles as never, defaultProfile: first.default_profile });
}

const collect = (v: string, acc: string[]) => [...acc, v];

export const registerAdmin: CommandModule = (program, ctx) => {
  program.command('control')
    .description('Pause or resume admission or grants, or record a credential generation. Never resets fairness or releases capacity.')
    .requiredOption('--name <control>', 'admission_paused | grants_paused | credential_generation')
    .option('--paused <true|false>', 'for admission_paused / grants_paused')
    .option('--generation <id>', 'for credential_generation')
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { name: string; paused?: string; generation?: string; reason: string }) => {
      let value: boolean | string;
      if (o.name === 'credential_generation') {
        if (o.generation === undefined || o.paused !== undefined) throw new UsageError('credential_generation takes --generation ID (and no --paused)', 'option_invalid');
        value = o.generation;
      } else if (o.name === 'admission_paused' || o.name === 'grants_paused') {
        if (o.paused !== 'true' && o.paused !== 'false') throw new UsageError(`${o.name} takes --paused true|false`, 'option_invalid');
        value = o.paused === 'true';
      } else throw new UsageError(`unknown control ${JSON.stringify(o.name)}: use admission_paused, grants_paused or credential_generation`, 'option_invalid');
      const why = reason(o.reason);
      await publishAdmin(ctx.io, g, 'control', () => control(o.name as never, value, why), `${o.name} = ${String(value)}`);
    }));

  program.command('cancel-work')
    .description('Terminally cancel Work (ids repeated or comma-separated). Keeps charges and native reservations.')
    .requiredOption('--work-id <ids>', 'Work id(s)', collect, [])
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { workId: string[]; reason: string }) => {
      const why = reason(o.reason);
      await publishAdmin(ctx.io, g, 'cancel_work', (s) => cancelWorkRequest(s, ids(o.workId), why), 'Work cancelled');
    }));

  program.command('cancel-claim')
    .description('Revoke the exact current Claims and terminally cancel their Work. Does not stop a native run or free its reservation.')
    .requiredOption('--claim-id <ids>', 'Claim id(s)', collect, [])
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { claimId: string[]; reason: string }) => {
      const why = reason(o.reason);
      await publishAdmin(ctx.io, g, 'cancel_work', (s) => {
        const claims = ids(o.claimId);
        debugEvent('claims', 'cancel', { claims: claims.length });
        return cancelClaimsRequest(s, claims, why);
      }, 'Claims cancelled');
    }));

  program.command('reprioritize')
    .description('Compare-and-set priority override (1..5) for future grants of available Work.')
    .requiredOption('--work-id <ids>', 'Work id(s)', collect, [])
    .requiredOption('--priority <1..5>', 'new priority class', (v) => Number(v))
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { workId: string[]; priority: number; reason: string }) => {
      const why = reason(o.reason);
      await publishAdmin(ctx.io, g, 'control', (s) => reprioritizeRequest(s, ids(o.workId), o.priority, why), `priority ${o.priority}`);
    }));

  program.command('policy')
    .description('Install a new Policy epoch on a drained (quiescent) queue. Never seeds an absent queue.')
    .option('--file <policy.json>', 'a complete QueuePolicy JSON object')
    .option('--from-config', 'resolve the Policy from .github/workflows/aw.json on the default branch')
    .requiredOption('--epoch <id>', 'the new epoch identity')
    .action(ctx.action(async (g, o: { file?: string; fromConfig?: boolean; epoch: string }) => {
      if ((o.file === undefined) === (o.fromConfig !== true)) throw new UsageError('give exactly one of --file or --from-config', 'option_invalid');
      let policy: JsonObject;
      if (o.file !== undefined) {
        let raw: unknown;
        try {
          raw = JSON.parse(await readFile(o.file, 'utf8'));
        } catch (e) {
          fail('input_invalid', `cannot read policy file ${o.file}: ${(e as Error).message}`);
        }
        const parsed = QueuePolicySchema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          fail('policy_invalid', `${o.file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`, { path: issue.path.join('.') });
        }
        policy = parsed.data as unknown as JsonObject;
      } else {
        const { store, publisher } = writeTarget(g);
        const { projection } = await publisher.cache.load();
        // An absent queue is uninitialized (the same answer every write gives), not a Policy problem.
        if (projection === null) fail('queue_uninitialized', 'no queue yet: only the first submit-work or submit-graph creates one; policy never seeds a queue');
        const settings = readAwJsonSettings(await store.readDefaultBranchFile('.github/workflows/aw.json'));
        const repository = projection.state.repository ?? '';
        const routes = await repositoryRoutes(g, { repository, principal: principalOf(g) });
        const current = projection.state;
        const fresh = Object.keys(routes.profiles).length > 0
          ? policyFromSettings(settings, { repository, principal: principalOf(g), profiles: routes.profiles, defaultProfile: requireDefaultRoute(routes) })
          : keptOnly(settings, repository, g, current, routes);
        policy = keepDeployed(fresh, current, routes);
      }
      await publishAdmin(ctx.io, g, 'policy', () => policyRequest(o.epoch, policy), `policy epoch ${o.epoch} installed`);
    }));
};
