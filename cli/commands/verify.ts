/** `fairway verify --ledger FILE`: full validation, nothing else. */
import { readLedgerFile } from '../../lib/ledger-file.ts';
import { coldReplay } from '../../lib/publisher/cache.ts';
import type { CommandModule } from '../context.ts';
import { replayProgress } from '../progress.ts';
import { printJson, UsageError, type Io } from '../output.ts';

export async function verify(io: Io, opts: { ledger: string; json: boolean }): Promise<void> {
  const bytes = await readLedgerFile(opts.ledger);
  const started = performance.now();
  const progress = replayProgress(opts.json);
  const projection = coldReplay(bytes, progress.onProgress);
  progress.done();
  const ms = Math.round(performance.now() - started);
  const result = { ok: true, tip: projection.tip, commits: projection.commitCount, policy_epoch: projection.policyEpoch };
  if (opts.json) printJson(io, result);
  else io.out(`ledger valid: ${result.commits} commits, tip ${result.tip ?? '(empty)'}, policy epoch ${result.policy_epoch ?? '-'} (${bytes.length} bytes in ${ms} ms)`);
}

export const registerVerify: CommandModule = (program, ctx) => {
  program.command('verify')
    .description('Validate a ledger: codec, closed schemas, causal chain, every operation and Claim; print tip, commits and policy epoch.')
    .action(ctx.action(async (g) => {
      if (g.ledger === undefined) throw new UsageError('verify needs --ledger FILE', 'missing_ledger');
      await verify(ctx.io, { ledger: g.ledger, json: g.json === true });
    }));
};
