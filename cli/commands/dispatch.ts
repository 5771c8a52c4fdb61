/**
 * `dispatch-next`: commit the next fair prefix of Claims and their
 * reservations (spec 7.7). It sends no workflow_dispatch POST. The output is
 * the receipt of spec 7.13; a no-grant evaluation writes nothing.
 */
import { dispatchReceipt } from '../../engine/receipts/dispatch.ts';
import { dispatchNextRequest } from '../../engine/requests/operations.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import { historicalGrantPlan } from '../../lib/publisher/history.ts';
import { grantEvent, packEvent } from '../../lib/debug/queue-events.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError } from '../output.ts';
import { actor, principalOf, requestIdOf, writeTarget } from '../source.ts';

function positive(name: string, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`${name} must be an integer 1..${max}`, 'option_invalid');
    return n;
  };
}

export const registerDispatch: CommandModule = (program, ctx) => {
  program.command('dispatch-next')
    .description('Commit the next assignments chosen by fair scheduling, with their reservations. Does not launch workers.')
    .option('--pool <name>', 'scheduling pool', 'default')
    .option('--max-claims <n>', 'Claims to grant at most (1..256)', positive('--max-claims', 256), 1)
    .option('--max-dispatches <n>', 'worker dispatch groups to open at most (1..256)', positive('--max-dispatches', 256), 1)
    .option('--max-bytes <n>', 'assignment size bound in bytes (1..49152)', positive('--max-bytes', 49152), 49152)
    .action(ctx.action(async (g, opts: { pool: string; maxClaims: number; maxDispatches: number; maxBytes: number }) => {
      const { publisher } = writeTarget(g);
      const requestId = requestIdOf(g, 'dispatch');
      const principal = principalOf(g);
      let plan: PackResult | undefined;
      const input = { pool: opts.pool, max_claims: opts.maxClaims, max_dispatches: opts.maxDispatches, max_bytes: opts.maxBytes };
      const outcome = await publisher.publish({
        requestId,
        // Named from the projection the attempt builds on: no read of the ledger beforehand.
        actor: (projection) => actor('dispatcher', principal, projection?.repository ?? ''),
        prepare: (projection, ids) => {
          const built = dispatchNextRequest(projection, input, ids, ids.at);
          plan = built.plan;
          packEvent(built.plan);
          if (built.operations.length > 0) return built;
          const reason = built.plan.stopReason;
          return { kind: built.kind, parameters: built.parameters, noWrite: { code: reason, message: `no grant: ${reason}`, detail: built.plan.next.explanation } };
        },
      });
      grantEvent(outcome, plan);
      if (outcome.status === 'no_write') {
        const result = { ok: true, request_id: requestId, source_commit: outcome.projection.tip, commit_id: null, policy_epoch: outcome.projection.policyEpoch,
          requested_claims: opts.maxClaims, granted_claims: 0, requested_dispatches: opts.maxDispatches, reserved_dispatches: 0,
          status: 'no_grant', grant_status: 'no_grant', limiting_reason: outcome.code, claims: [], dispatches: [], explanation: outcome.detail };
        if (g.json) printJson(ctx.io, result);
        else ctx.io.out(`no grant (${outcome.code}) at ${outcome.projection.tip}; nothing was written`);
        return;
      }
      // A retry's stop reason is the committed grant's own, read from pre-compaction history if need be.
      const committedPlan = outcome.status === 'committed' ? plan : await historicalGrantPlan(publisher.store, outcome.projection, requestId);
      const receipt = dispatchReceipt(outcome.projection, requestId, committedPlan);
      if (g.json) {
        printJson(ctx.io, { ok: true, replayed: outcome.status === 'request_replayed', ...receipt });
        return;
      }
      ctx.io.out(`${outcome.status === 'request_replayed' ? 'already committed' : 'granted'} ${receipt.granted_claims}/${receipt.requested_claims} Claims in ${receipt.reserved_dispatches} dispatch group(s): ${receipt.grant_status}, limited by ${receipt.limiting_reason}`);
      ctx.io.out(`request ${receipt.request_id}  commit ${receipt.commit_id}  epoch ${receipt.policy_epoch}`);
      for (const c of receipt.claims) ctx.io.out(`  ${c.dispatch_id} ${c.handle}  ${c.claim_id}  work ${c.work_id}`);
    }));
};
