/** `fairway demo`: build the demo queue in memory, replay it cold, and show the decisions. */
import { writeFile } from 'node:fs/promises';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import { buildDemoQueue } from '../../lib/demo/scenario.ts';
import type { CommandModule } from '../context.ts';
import { printJson, type Io } from '../output.ts';

export async function demo(io: Io, opts: { json: boolean; out?: string }): Promise<void> {
  const queue = buildDemoQueue();
  const projection = replayLedger(queue.ledger); // independent cold verification of what was written
  if (opts.out !== undefined) await writeFile(opts.out, queue.ledger);
  const summary = summarize(projection);
  if (opts.json) {
    printJson(io, { ok: true, demo: true, out: opts.out ?? null, tip: summary.tip, commits: summary.commits, grants: queue.grants, summary });
    return;
  }
  io.out(`DEMO QUEUE (in memory${opts.out ? `, written to ${opts.out}` : ''}): ${summary.commits} commits, tip ${summary.tip}`);
  io.out('Grant decisions (equal weights for platform and security; platform has 10x the backlog):');
  for (const g of queue.grants) io.out(`  ${g.request_id.padEnd(14)} P${g.priority} ${g.fairness_key.padEnd(9)} ${g.node_key.padEnd(22)} ${g.reason}`);
  io.out(`Work: ${Object.entries(summary.works.by_state).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  io.out('Verify it yourself: fairway demo --out demo.jsonl && fairway verify --ledger demo.jsonl');
}

export const registerDemo: CommandModule = (program, ctx) => {
  program.command('demo')
    .description('Build a small demo queue through the engine request builders and print what the scheduler decided.')
    .option('--out <file>', 'also write the demo ledger to this file')
    .action(ctx.action(async (g, opts: { out?: string }) => demo(ctx.io, { json: g.json === true, out: opts.out })));
};
