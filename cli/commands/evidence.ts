/**
 * `fairway evidence --dispatch-id ID | --work-id ID`: the durable launch evidence of a
 * dispatch group, read from the ledger alone (works offline with `--ledger`): derived
 * launch state (reserved / started / bound / uncertain / unresolved / rejected /
 * released), start marker and sender, every Dispatch transition with its reason and the
 * run ids its evidence named, the Release, and each member's finish and delivery barrier.
 * A group granted before a checkpoint is read across the ledger at the checkpoint's prior Git
 * commit as well (as `trace` does); a ledger file alone says where its earlier events are.
 */
import { fail } from '../../engine/errors.ts';
import { launchViewAcross } from '../../engine/lifecycle/launch-state.ts';
import type { CommandModule } from '../context.ts';
import { ledgersBackTo, memoizedHistory } from '../history.ts';
import { resolveId } from '../ids.ts';
import { formatOf, formatOption, printJsonl } from '../format.ts';
import { printJson, UsageError } from '../output.ts';
import { readSource } from '../source.ts';

export const registerEvidence: CommandModule = (program, ctx) => {
  program.command('evidence')
    .description('Show the recorded launch evidence of a dispatch group (or of every group a Work was granted in), offline-capable.')
    .option('--dispatch-id <id>', 'the dispatch group')
    .option('--work-id <id>', 'every group this Work was granted in')
    .addOption(formatOption())
    .action(ctx.action(async (g, o: { dispatchId?: string; workId?: string; format?: string }) => {
      const format = formatOf(g, o);
      if ((o.dispatchId === undefined) === (o.workId === undefined)) throw new UsageError('give exactly one of --dispatch-id or --work-id', 'option_invalid');
      const source = readSource(g);
      const projection = await source.load();
      let ids: string[];
      if (o.dispatchId !== undefined) ids = [resolveId(projection, 'dispatch', o.dispatchId)];
      else {
        const workId = resolveId(projection, 'work', o.workId!);
        const work = projection.work(workId);
        if (work === undefined) fail('unknown_work', `Work ${o.workId} is not admitted`);
        ids = [...new Set(work.claims.map((c) => projection.claim(c)!.dispatchId))];
      }
      // A group granted before a checkpoint: its launch events are in the ledger the checkpoint replaced.
      const history = memoizedHistory(source.history);
      const groups = [];
      for (const id of ids) groups.push(launchViewAcross(await ledgersBackTo(projection, projection.dispatch(id)!.commitId, history), id));
      if (format === 'json') return printJson(ctx.io, { ok: true, tip: projection.tip, groups });
      if (format === 'jsonl') return printJsonl(ctx.io, groups);
      // A Work never granted has no group: said, not an empty screen.
      if (groups.length === 0) return ctx.io.out(`Work ${o.workId} has no dispatch group: it was never granted`);
      for (const v of groups) {
        ctx.io.out(`${v.dispatch_id}: ${v.state}${v.run_id ? ` run ${v.run_id}` : ''}${v.reason ? ` (${v.reason})` : ''}  profile ${v.pool}/${v.worker_profile} @ ${v.ref.slice(0, 12)}`);
        if (v.conflict_open) ctx.io.out(`  run binding conflict: runs ${v.conflict_run_ids.join(', ')} -- none may bind; capacity stays reserved`);
        else if (v.conflict_run_ids.length > 0) ctx.io.out(`  run binding conflict of runs ${v.conflict_run_ids.join(', ')}: ${v.state === 'released' ? 'released on exact terminal evidence' : `resolved by an administrator, bound to run ${v.run_id}`}`);
        if (v.conflict_terminal_run_ids.length > 0) ctx.io.out(`  exact terminal evidence recorded for runs ${v.conflict_terminal_run_ids.join(', ')}`);
        if (v.compacted !== undefined) ctx.io.out(`  (launch events before checkpoint ${v.compacted.checkpoint} are in the ledger at Git commit ${v.compacted.prior_git_sha}, which this source does not have)`);
        for (const e of v.events) ctx.io.out(`  ${new Date(e.at).toISOString()} ${e.role.padEnd(10)} ${e.state}${e.run_id ? ` run ${e.run_id}` : ''}${e.reason ? ` ${e.reason}` : ''}${e.conclusion ? ` (native conclusion ${e.conclusion})` : ''}`);
        // Spec 7.18: the native run's conclusion and each Claim's durable outcome are shown separately.
        const native = [...v.events].reverse().find((e) => e.conclusion !== null)?.conclusion;
        if (native !== undefined) ctx.io.out(`  native run conclusion: ${native} (not a Claim outcome)`);
        for (const c of v.claims) ctx.io.out(`  ${c.handle} ${c.claim_id}  claim ${c.claim}${c.cancel_reason ? ` (${c.cancel_reason})` : ''}  work ${c.work}  barrier ${c.barrier}`);
      }
    }));
};
