/** `fairway demo`: build the demo day (lib/demo/day.ts) in memory, replay it cold, and show the decisions. */
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import { LedgerWriter } from '../../engine/requests/writer.ts';
import { seedDemoDay } from '../../lib/demo/day.ts';
import type { CommandModule } from '../context.ts';
import { printJson, type Io } from '../output.ts';
import { writeOutputFile } from '../output-file.ts';

/** The day ends a few minutes before `now`, so readiness and retry delays read naturally when the ledger is opened soon after. */
export async function demo(io: Io, opts: { json: boolean; out?: string; now?: number }): Promise<void> {
  const writer = new LedgerWriter();
  const day = await seedDemoDay(writer, { now: opts.now ?? Date.now() });
  const ledger = writer.text();
  const projection = replayLedger(new TextEncoder().encode(ledger)); // independent cold verification of what was written
  if (opts.out !== undefined) await writeOutputFile(opts.out, ledger);
  const summary = summarize(projection);
  if (opts.json) {
    printJson(io, { ok: true, demo: true, out: opts.out ?? null, tip: summary.tip, commits: summary.commits, grants: day.grants, summary });
    return;
  }
  io.out(`DEMO QUEUE (in memory${opts.out ? `, written to ${opts.out}` : ''}): a developer's day, ${summary.commits} commits, tip ${summary.tip}`);
  io.out('Grant decisions (equal weights for platform and security; platform has 50x the backlog):');
  for (const g of day.grants) io.out(`  ${g.request_id.padEnd(24)} P${g.priority} ${(g.fairness_key || '(default)').padEnd(9)} ${g.node_key.padEnd(30)} ${g.reason}`);
  io.out(`Work: ${Object.entries(summary.works.by_state).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  io.out('Verify it yourself: fairway demo --out demo.jsonl && fairway verify --ledger demo.jsonl');
}

export const registerDemo: CommandModule = (program, ctx) => {
  program.command('demo')
    .description('Build the demo queue (a developer\'s day) through the engine request builders and print what the scheduler decided.')
    .option('--out <file>', 'also write the demo ledger to this file')
    .action(ctx.action(async (g, opts: { out?: string }) => demo(ctx.io, { json: g.json === true, out: opts.out })));
};
