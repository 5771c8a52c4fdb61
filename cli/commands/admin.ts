/**
 * Administrator commands: control, cancel-work, cancel-claim, reprioritize and
 * policy. Each is one checked, all-or-nothing transaction through the publisher.
 */
import { Option } from 'commander';
import { fail, isProtocolError, ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { isReasonCode } from '../../engine/identity/index.ts';
import { ADMIN_ACTIONS, adminNoChange, type AdminAction, type AdminActionBody } from '../../engine/requests/admin-actions.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { QueuePolicySchema } from '../../engine/schema/index.ts';
import { publishAdmin } from '../../lib/publisher/admin.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { policyFromConfig } from '../../lib/config/worker-routes.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { readJsonInput } from '../input.ts';
import { resolveId } from '../ids.ts';
import { identityArg, priorityArg } from '../parse.ts';
import { printJson, UsageError, type Io } from '../output.ts';
import { principalOf, requestIdOf, writeTarget } from '../source.ts';

function ids(values: string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v.length > 0);
}

function reason(code: string): string {
  if (!isReasonCode(code)) throw new UsageError(`--reason must be a reason code like operator_cancelled (letters, digits, _ . : -; at most 128)`, 'reason_invalid');
  return code;
}

/** Publishes `action` with the body `bodyOf` gives on the current state (ids resolved there). */
async function publishAction<A extends AdminAction>(io: Io, g: GlobalOptions, action: A, source: ((projection: Projection) => AdminActionBody<A>) | AdminBodySource<A>, describe: string): Promise<void> {
  const { body: bodyOf, decide } = typeof source === 'function' ? { body: source, decide: undefined } : source;
  const { kind } = ADMIN_ACTIONS[action];
  const { publisher } = writeTarget(g);
  const requestId = requestIdOf(g, kind);
  let unchanged: string | null = null;
  const outcome = await publishAdmin(publisher, {
    requestId, actor: actorOf('administrator', principalOf(g)), action, body: bodyOf,
    // A control set to its current value, or Work given the priority it has, writes nothing (as
    // the console refuses it): `unchanged`, exit 0, so repeating a command is safe and cheap.
    review: (projection, build) => {
      decide?.(projection);
      unchanged = adminNoChange(action, bodyOf(projection), projection);
      if (unchanged !== null) throw new ProtocolError('no_change', unchanged);
      return build();
    },
  }).catch((e: unknown) => {
    if (unchanged !== null && isProtocolError(e) && e.code === 'no_change') return null;
    throw e;
  });
  if (outcome === null) {
    if (g.json) printJson(io, { ok: true, status: 'unchanged', request_id: requestId, commit_id: null, kind, reason: unchanged });
    else io.out(`unchanged: ${String(unchanged)} (nothing written)`);
    return;
  }
  if (g.json) printJson(io, { ok: true, status: outcome.status, request_id: requestId, commit_id: outcome.commitId, kind });
  else io.out(`${outcome.replayed ? 'already committed' : describe}: commit ${outcome.commitId} (request ${requestId})`);
}

const collect = (v: string, acc: string[]) => [...acc, v];

/**
 * An action's body on each attempt's projection, and `decide`: what the surface's review of a new
 * request (never the rebuild of a committed one, lib/publisher/admin.ts) reads when it decides.
 */
export interface AdminBodySource<A extends AdminAction> {
  body: (projection: Projection) => AdminActionBody<A>;
  decide: (projection: Projection) => void;
}

/**
 * `reprioritize`, holding the priorities its first decision read: a retry after a lost race is
 * refused (`priority_conflict`, nothing written) when another change moved one of them since,
 * rather than overwriting it (operator reference: "If another grant or priority change makes an
 * action stale, the action is rejected"). Read at the first review, not at the first build: a
 * retried request id is rebuilt on the current state first (request-meaning.ts), where its own
 * commit already set the priorities.
 */
export function reprioritizeAsRead(workIdArgs: readonly string[], priority: number, why: string): AdminBodySource<'reprioritize'> {
  let read: Record<string, number> | undefined;
  const targets = (projection: Projection): string[] => ids([...workIdArgs]).map((id) => resolveId(projection, 'work', id));
  return {
    body: (projection) => ({ work_ids: targets(projection), priority, reason: why, ...(read === undefined ? {} : { expected_priorities: read }) }),
    decide: (projection) => {
      read ??= Object.fromEntries(targets(projection).flatMap((id) => {
        const work = projection.work(id);
        return work === undefined ? [] : [[id, work.effectivePriority] as const];
      }));
    },
  };
}

export const registerAdmin: CommandModule = (program, ctx) => {
  program.command('control')
    .description('Pause or resume admission or grants, or record a credential generation. Never resets fairness or releases capacity.')
    .addOption(new Option('--name <control>', 'the control to set').choices(['admission_paused', 'grants_paused', 'credential_generation']).makeOptionMandatory())
    .addOption(new Option('--paused <true|false>', 'for admission_paused / grants_paused').choices(['true', 'false']))
    .option('--generation <id>', 'for credential_generation', identityArg('--generation'))
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { name: string; paused?: string; generation?: string; reason: string }) => {
      let value: boolean | string;
      if (o.name === 'credential_generation') {
        if (o.generation === undefined || o.paused !== undefined) throw new UsageError('credential_generation takes --generation ID (and no --paused)', 'option_invalid');
        value = o.generation;
      } else if (o.name === 'admission_paused' || o.name === 'grants_paused') {
        if ((o.paused !== 'true' && o.paused !== 'false') || o.generation !== undefined) throw new UsageError(`${o.name} takes --paused true|false (and no --generation)`, 'option_invalid');
        value = o.paused === 'true';
      } else throw new UsageError(`unknown control ${JSON.stringify(o.name)}: use admission_paused, grants_paused or credential_generation`, 'option_invalid');
      const why = reason(o.reason);
      await publishAction(ctx.io, g, 'control', () => ({ control: o.name as AdminActionBody<'control'>['control'], value, reason: why }), `${o.name} = ${String(value)}`);
    }));

  program.command('cancel-work')
    .description('Terminally cancel Work (ids repeated or comma-separated). Keeps charges and native reservations.')
    .requiredOption('--work-id <ids>', 'Work id(s)', collect, [])
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { workId: string[]; reason: string }) => {
      const why = reason(o.reason);
      await publishAction(ctx.io, g, 'cancel-work', (s) => ({ work_ids: ids(o.workId).map((id) => resolveId(s, 'work', id)), reason: why }), 'Work cancelled');
    }));

  program.command('cancel-claim')
    .description('Revoke the exact current Claims and terminally cancel their Work. Does not stop a native run or free its reservation.')
    .requiredOption('--claim-id <ids>', 'Claim id(s)', collect, [])
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { claimId: string[]; reason: string }) => {
      const why = reason(o.reason);
      await publishAction(ctx.io, g, 'cancel-claim', (s) => ({ claim_ids: ids(o.claimId).map((id) => resolveId(s, 'claim', id)), reason: why }), 'Claims cancelled');
    }));

  program.command('reprioritize')
    .description('Compare-and-set priority override (1..5) for future grants of available Work.')
    .requiredOption('--work-id <ids>', 'Work id(s)', collect, [])
    .requiredOption('--priority <1..5>', 'new priority class', priorityArg)
    .requiredOption('--reason <code>', 'sanitized reason code')
    .action(ctx.action(async (g, o: { workId: string[]; priority: number; reason: string }) => {
      await publishAction(ctx.io, g, 'reprioritize', reprioritizeAsRead(o.workId, o.priority, reason(o.reason)), `priority ${o.priority}`);
    }));

  program.command('policy')
    .description('Install a new Policy epoch on a drained (quiescent) queue. Never seeds an absent queue.')
    .option('--file <policy.json>', 'a complete QueuePolicy JSON object')
    .option('--from-config', 'resolve the Policy from .github/workflows/aw.json on the default branch')
    .requiredOption('--epoch <id>', 'the new epoch identity', identityArg('--epoch'))
    .action(ctx.action(async (g, o: { file?: string; fromConfig?: boolean; epoch: string }) => {
      if ((o.file === undefined) === (o.fromConfig !== true)) throw new UsageError('give exactly one of --file or --from-config', 'option_invalid');
      let policy: JsonObject;
      if (o.file !== undefined) {
        const raw = await readJsonInput(o.file, 'policy file');
        const parsed = QueuePolicySchema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          fail('policy_invalid', `${o.file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`, { path: issue.path.join('.') });
        }
        // A profile workflow outside .github/workflows is refused by the Policy builder (and replay), as on every surface.
        policy = parsed.data as unknown as JsonObject;
      } else {
        const { store, publisher } = writeTarget(g);
        const { projection } = await publisher.cache.load();
        // An absent queue is uninitialized (the same answer every write gives), not a Policy problem.
        if (projection === null) fail('queue_uninitialized', 'no queue yet: only the first submit-work or submit-graph creates one; policy never seeds a queue');
        // Routes and aw.json at the store's own repository's verified default revision; deployed refs kept.
        policy = await policyFromConfig(store, projection, { repository: projection.repository ?? '', principal: principalOf(g) });
      }
      await publishAction(ctx.io, g, 'policy', () => ({ epoch: o.epoch, policy }), `policy epoch ${o.epoch} installed`);
    }));
};
