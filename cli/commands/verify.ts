/** `fairway verify --ledger FILE`: full validation, nothing else. */
import { coldReplay } from '../../lib/publisher/cache.ts';
import { MIN_BYTES, ThreadVerifier } from '../../lib/replay/thread-verifier.ts';
import { readLedgerInput } from '../input.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { replayProgress } from '../progress.ts';
import { printJson, UsageError, type Io } from '../output.ts';

export async function verify(io: Io, opts: { ledger: string; json: boolean; threads?: number }): Promise<void> {
  const bytes = await readLedgerInput(opts.ledger);
  const started = performance.now();
  const progress = replayProgress(opts.json);
  const verifier = opts.threads === undefined ? undefined : new ThreadVerifier({ threads: opts.threads });
  try {
    const projection = coldReplay(bytes, progress.onProgress, verifier);
    progress.done();
    const ms = Math.round(performance.now() - started);
    const threads = verifier?.last ?? null;
    const result = {
      ok: true,
      tip: projection.tip,
      commits: projection.commitCount,
      policy_epoch: projection.policyEpoch,
      ...(verifier === undefined ? {} : { worker_threads: { threads: verifier.threads, checked_ahead: threads?.ahead ?? 0 } }),
    };
    if (opts.json) printJson(io, result);
    else {
      const ahead = verifier === undefined ? '' : threads === null ? `; no worker threads (${verifier.threads === 0 ? '--threads 0' : `ledger under ${MIN_BYTES / 2 ** 20} MiB`})` : `; ${threads.ahead} of ${threads.records} records checked ahead on ${threads.threads} worker thread${threads.threads === 1 ? '' : 's'}`;
      io.out(`ledger valid: ${result.commits} commits, tip ${result.tip ?? '(empty)'}, policy epoch ${result.policy_epoch ?? '-'} (${bytes.length} bytes in ${ms} ms${ahead})`);
    }
  } finally {
    await verifier?.close();
  }
}

export const registerVerify: CommandModule = (program, ctx) => {
  program.command('verify')
    .description('Validate a ledger: codec, closed schemas, causal chain, every operation and Claim; print tip, commits and policy epoch.')
    .option('--threads <n>', `check each record's codec, schema and envelope on N worker threads (0..16) while replay folds on this one; ledgers of ${MIN_BYTES / 2 ** 20} MiB or more. Same verdict; default FAIRWAY_REPLAY_THREADS, else 0`, intIn('--threads', 0, 16))
    .action(ctx.action(async (g, o: { threads?: number }) => {
      if (g.ledger === undefined) throw new UsageError('verify needs --ledger FILE', 'missing_ledger');
      await verify(ctx.io, { ledger: g.ledger, json: g.json === true, threads: o.threads });
    }));
};
