/**
 * `fairway process-intents --snapshot FILE --intents DIR [--receipts DIR]
 * [--dispatch-budget N] [--wrap-up]`: the trusted processing step (spec 7.12,
 * 7.14). Publishes the staged intents of one activation through the checked
 * publisher on the live queue (--repo/--remote/--github/--branch), settles a
 * worker's Claims one commit each, and writes receipts.json, summary.md and
 * the granted assignments. Retries reuse every request id.
 */
import { loadSnapshot } from '../../lib/intents/snapshot.ts';
import { DEFAULT_DISPATCH_BUDGET, processIntents } from '../../lib/intents/processor.ts';
import { IntentStore } from '../../lib/intents/store.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { printJson } from '../output.ts';
import { queueRepository, writeTarget } from '../source.ts';

const budget = intIn('--dispatch-budget', 0, 256);

export const registerProcessIntents: CommandModule = (program, ctx) => {
  program.command('process-intents')
    .description('Trusted step: publish one activation\'s staged intents (submit, dispatch_next, Claim finishes) and write receipts.')
    .requiredOption('--snapshot <file>', 'the trusted activation snapshot the intents were staged against')
    .requiredOption('--intents <dir>', 'the staged intent directory')
    .option('--receipts <dir>', 'where receipts.json, summary.md and assignments/ go (default: the intents directory)')
    .option('--dispatch-budget <n>', 'dispatch groups this run may reserve in total', budget, DEFAULT_DISPATCH_BUDGET)
    .option('--wrap-up', 'final worker step: cancel effective Claims that have no finish intent')
    .action(ctx.action(async (g, o: { snapshot: string; intents: string; receipts?: string; dispatchBudget: number; wrapUp?: boolean }) => {
      const loaded = await loadSnapshot(o.snapshot);
      const { publisher } = writeTarget(g);
      const report = await processIntents({
        loaded,
        intents: new IntentStore(o.intents),
        publisher,
        receiptsDir: o.receipts ?? o.intents,
        repository: () => queueRepository(g),
        dispatchBudget: o.dispatchBudget,
        wrapUp: o.wrapUp === true,
      });
      if (g.json) return printJson(ctx.io, report);
      const c = report.counts;
      ctx.io.out(`${report.receipts.length} intent(s): ${c.committed} committed, ${c.replayed} already committed, ${c.already_admitted} already admitted, ${c.no_grant} no grant, ${c.suppressed} suppressed, ${c.rejected} rejected; tip ${report.observed_tip ?? '-'}`);
      for (const r of report.receipts) {
        ctx.io.out(`  ${String(r.seq ?? '-').padStart(3)} ${r.tool.replace('work_queue_', '').padEnd(13)} ${r.status.padEnd(10)} ${r.claim_handle ?? ''}${r.error ? ` ${r.error.code}` : ''}`);
      }
      ctx.io.out(`receipts: ${o.receipts ?? o.intents}/receipts.json, summary.md`);
    }));
};
