/**
 * `dispatch-next`: commit the next fair prefix of Claims and their
 * reservations (spec 7.7). It sends no workflow_dispatch POST. The output is
 * the receipt of spec 7.13; a no-grant evaluation writes nothing.
 */
import { dispatchReceipt, noGrantReceipt } from '../../engine/receipts/dispatch.ts';
import { actorOf } from '../../lib/publisher/actor.ts';
import { grantOf, publishDispatch } from '../../lib/publisher/requests.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { printJson } from '../output.ts';
import { principalOf, requestIdOf, writeTarget } from '../source.ts';


export const registerDispatch: CommandModule = (program, ctx) => {
  program.command('dispatch-next')
    .description('Commit the next assignments chosen by fair scheduling, with their reservations. Does not launch workers.')
    .option('--pool <name>', 'scheduling pool', 'default')
    .option('--max-claims <n>', 'Claims to grant at most (1..256)', intIn('--max-claims', 1, 256), 1)
    .option('--max-dispatches <n>', 'worker dispatch groups to open at most (1..256)', intIn('--max-dispatches', 1, 256), 1)
    .option('--max-bytes <n>', 'assignment size bound in bytes (1..49152)', intIn('--max-bytes', 1, 49152), 49152)
    .action(ctx.action(async (g, opts: { pool: string; maxClaims: number; maxDispatches: number; maxBytes: number }) => {
      const { publisher } = writeTarget(g);
      const requestId = requestIdOf(g, 'dispatch');
      const input = { pool: opts.pool, max_claims: opts.maxClaims, max_dispatches: opts.maxDispatches, max_bytes: opts.maxBytes };
      const outcome = await publishDispatch(publisher, { requestId, actor: actorOf('dispatcher', principalOf(g)), input });
      if (outcome.status === 'no_write') {
        const receipt = noGrantReceipt(outcome.projection, requestId, input, outcome.prepared.plan);
        if (g.json) printJson(ctx.io, { ok: true, ...receipt });
        else ctx.io.out(`no grant (${receipt.limiting_reason}) at ${receipt.source_commit}; nothing was written`);
        return;
      }
      const receipt = dispatchReceipt(outcome.projection, requestId, await grantOf(publisher, outcome, requestId));
      if (g.json) {
        printJson(ctx.io, { ok: true, replayed: outcome.replayed, ...receipt });
        return;
      }
      ctx.io.out(`${outcome.replayed ? 'already committed' : 'granted'} ${receipt.granted_claims}/${receipt.requested_claims} Claims in ${receipt.reserved_dispatches} dispatch group(s): ${receipt.grant_status}, limited by ${receipt.limiting_reason}`);
      ctx.io.out(`request ${receipt.request_id}  commit ${receipt.commit_id}  epoch ${receipt.policy_epoch}`);
      for (const c of receipt.claims) ctx.io.out(`  ${c.dispatch_id} ${c.handle}  ${c.claim_id}  work ${c.work_id}`);
    }));
};
