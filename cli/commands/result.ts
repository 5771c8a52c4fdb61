/**
 * Per-Claim settlement (spec 7.14, 7.15):
 *
 * - `fairway finish --dispatch-id ID --handle H --outcome completed|cancelled`: the
 *   worker's own finish of one member, from this run's job context (attempt 1 only).
 * - `fairway result --claim-id ID --evidence FILE [--descriptor FILE]`: verify the Claim's
 *   trusted effect receipts (`fairway.delivery/1`) against its Work's effect contract and
 *   publish the immutable Result; refuses unverified delivery.
 * - `fairway delivery-failure --claim-id ID [--evidence FILE] [--attempts N]`: the guarded
 *   DeliveryFailure; admitted only with exact terminal evidence of the bound run and an
 *   exhausted reconciliation budget (contract `delivery_verification`), never when the
 *   receipts verify.
 */
import { Option } from 'commander';
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { DEFAULT_RECONCILIATION } from '../../engine/schema/defaults.ts';
import { actionsRunFromEnv, launchApi, lifecycleActors } from '../../lib/github/context.ts';
import { settleDelivery, type DeliveryReport } from '../../lib/lifecycle/delivery.ts';
import { finishClaim } from '../../lib/lifecycle/finish.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { intIn } from '../parse.ts';
import { githubEnv, hasToken } from '../globals.ts';
import { resolveId } from '../ids.ts';
import { readJsonInput } from '../input.ts';
import { printJson, UsageError, type Io } from '../output.ts';
import { principalOf, writeTarget } from '../source.ts';

async function json(path: string, what: string): Promise<unknown> {
  return readJsonInput(path, what);
}

async function settle(io: Io, g: GlobalOptions, input: { claimId: string; receipts: unknown; descriptor?: JsonObject; attempts: number }, want: 'result' | 'delivery_failure'): Promise<void> {
  const { publisher } = writeTarget(g);
  const { projection } = await publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'there is no queue');
  const reconciler = lifecycleActors(principalOf(g), process.env).reconciler;
  const env = g.github !== undefined ? await githubEnv(g) : process.env;
  const claimId = resolveId(projection, 'claim', input.claimId);
  const report: DeliveryReport = await settleDelivery({ publisher, api: hasToken(env) ? launchApi(env) : null, reconciler }, { ...input, claimId });
  const settled = report.outcome === want || (want === 'result' ? report.outcome === 'already_verified' : report.outcome === 'already_failed');
  if (!settled) {
    const code = report.outcome === 'pending' ? (want === 'result' ? 'delivery_unverified' : 'reconciliation_pending') : report.outcome;
    fail(code, `${input.claimId}: ${report.outcome}${report.reason ? ` (${report.reason})` : ''}`, {}, { report });
  }
  if (g.json) return printJson(io, { ok: true, ...report });
  io.out(`${report.claim_id}: ${report.outcome}${report.commit_id ? ` commit ${report.commit_id}` : ''}`);
}

const attempts = intIn('--attempts', 1, 4096);

export const registerResult: CommandModule = (program, ctx) => {
  program.command('finish')
    .description('Worker step: finish one original member (completed | cancelled) from this run\'s own context.')
    .requiredOption('--dispatch-id <id>', 'the worker\'s dispatch group')
    .requiredOption('--handle <h>', 'the member\'s claim handle')
    .addOption(new Option('--outcome <outcome>', 'how the member finished').choices(['completed', 'cancelled']).makeOptionMandatory())
    .action(ctx.action(async (g, o: { dispatchId: string; handle: string; outcome: string }) => {
      const run = actionsRunFromEnv(process.env);
      if (run === null) throw new UsageError('finish runs inside the worker\'s GitHub Actions job (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_REPOSITORY)', 'context_missing');
      const { publisher } = writeTarget(g);
      // A unique prefix of 8+ characters names the group, as every --dispatch-id does (README "Ids").
      const { projection } = await publisher.cache.load();
      const dispatchId = projection === null ? o.dispatchId : resolveId(projection, 'dispatch', o.dispatchId);
      // The job context only names the run: finish authenticates it through the run API, as activate does.
      const t = await finishClaim(publisher, launchApi(await githubEnv(g)), run, { dispatch_id: dispatchId, claim_handle: o.handle, outcome: o.outcome as 'completed' | 'cancelled' });
      const result = { ok: true, status: t.status, request_id: t.requestId, commit_id: t.status === 'skipped' ? null : t.commitId, outcome: o.outcome };
      if (g.json) return printJson(ctx.io, result);
      ctx.io.out(`${o.handle}: ${o.outcome} (${t.status})`);
    }));

  program.command('result')
    .description('Publish the verified Result of a completed Claim from its trusted effect receipts (no effect is rerun).')
    .requiredOption('--claim-id <id>', 'the completed Claim')
    .option('--descriptor <file>', 'the bounded Result descriptor (JSON object); default: a summary of the verified receipts')
    .requiredOption('--evidence <file>', 'the Claim\'s effect receipts (fairway.delivery/1)')
    .action(ctx.action(async (g, o: { claimId: string; descriptor?: string; evidence: string }) => {
      const descriptor = o.descriptor === undefined ? undefined : await json(o.descriptor, 'descriptor');
      if (descriptor !== undefined && (descriptor === null || typeof descriptor !== 'object' || Array.isArray(descriptor))) fail('input_invalid', 'the descriptor must be a JSON object');
      const receipts = await json(o.evidence, 'evidence');
      await settle(ctx.io, g, { claimId: o.claimId, receipts, ...(descriptor === undefined ? {} : { descriptor: descriptor as JsonObject }), attempts: 1 }, 'result');
    }));

  program.command('delivery-failure')
    .description('Publish the guarded DeliveryFailure of a completed Claim (exact terminal evidence and exhausted budget required).')
    .requiredOption('--claim-id <id>', 'the completed Claim')
    .option('--evidence <file>', 'the Claim\'s effect receipts, if any (absent: effects unknown)')
    .option('--attempts <n>', 'verification attempts made (evidence.attempts); must reach the pool\'s reconciliation.max_attempts', attempts, 1)
    .addHelpText('after', `
--attempts must reach the pool's reconciliation budget (reconciliation.max_attempts, default
${DEFAULT_RECONCILIATION.max_attempts}) unless the pool's reconciliation.deadline_ms (default ${DEFAULT_RECONCILIATION.deadline_ms} ms) has passed since the
Completion; before that the DeliveryFailure is refused with reconciliation_pending (exit 3) and
nothing is written. It also needs exact terminal evidence of the bound run's original attempt
(its Release, or GitHub's run API).`)
    .action(ctx.action(async (g, o: { claimId: string; evidence?: string; attempts: number }) => {
      const receipts = o.evidence === undefined ? null : await json(o.evidence, 'evidence');
      await settle(ctx.io, g, { claimId: o.claimId, receipts, attempts: o.attempts }, 'delivery_failure');
    }));
};
