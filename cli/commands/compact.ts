/** `compact`: replace the ledger prefix with a checkpoint root (fairness debt, positions and request ids preserved). */
import { actorOf } from '../../lib/publisher/actor.ts';
import { compact } from '../../lib/publisher/compact.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError } from '../output.ts';
import { principalOf, writeTarget } from '../source.ts';

export const registerCompact: CommandModule = (program, ctx) => {
  program.command('compact')
    .description('Replace the ledger with one version-3 checkpoint of its replay state; the prior Git commit keeps the full history.')
    .action(ctx.action(async (g) => {
      // A checkpoint's request id is the protocol's (checkpoint_ + SHA256 of the prior tip and
      // Git commit): a caller's id would be dropped, and its retry would compact again.
      if (ctx.globals().requestId !== undefined) {
        throw new UsageError('compact takes no --request-id: a checkpoint\'s request id is derived from the ledger it replaces, and compacting an already compact ledger answers already_compact', 'option_invalid');
      }
      const { publisher } = writeTarget(g);
      const result = await compact(publisher, actorOf('administrator', principalOf(g)));
      if (g.json) return printJson(ctx.io, { ok: true, ...result, commit_id: result.commit?.id ?? null, commit: undefined });
      ctx.io.out(result.status === 'already_compact'
        ? 'the ledger is already a single checkpoint; nothing to do'
        : `compacted ${result.replaced_commits} commits (${result.bytes_before} -> ${result.bytes_after} bytes) into ${result.commit!.id}; prior history stays at Git commit ${result.commit!.operations[0]!.kind === 'Checkpoint' ? (result.commit!.operations[0] as { prior_git_sha: string }).prior_git_sha : ''}`);
    }));
};
