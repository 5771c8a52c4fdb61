/** `fairway doctor [--fix]`: checks the queue store and repairs what killed processes left behind. */
import { ProtocolError } from '../../engine/errors.ts';
import { doctor, type DoctorReport } from '../../lib/store/doctor.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError, type Io } from '../output.ts';
import { storeFor } from '../source.ts';

const HELP = `
Checks, in order:
  ref_lock      a stale refs/heads/<branch>.lock or packed-refs.lock (local Git, or the
                clone of --repo CLONE --remote NAME). A git killed during update-ref leaves
                one, and every later publication then fails with store_locked. With --remote,
                also refs/fairway/tips/<remote>/<branch>.lock, left by a killed fetch: every
                later read then fetches twice.
  scratch_refs  refs/fairway/fetch/* left by killed fetches (--remote only); stale ones
                (older than 15 minutes, or whose process is gone) are also removed
                automatically by the next read.
  store_read    the queue branch can be read.
  ledger        its bytes replay (a ledger that fails validation is reported, never rewritten).

With --fix, a lock is removed only when no running git process touches the repository
(checked through /proc: its working directory or arguments); a lock a running git may
hold is never removed. Exit code 3 (store_unhealthy) when a problem remains.`;

function print(io: Io, report: DoctorReport, json: boolean): void {
  if (json) return printJson(io, report);
  io.out(`store ${report.store}`);
  for (const c of report.checks) io.out(`  ${c.status === 'ok' ? 'ok     ' : c.status === 'fixed' ? 'fixed  ' : 'PROBLEM'} ${c.name}: ${c.message}`);
  io.out(report.ok ? 'no problems left' : 'problems remain');
}

export const registerDoctor: CommandModule = (program, ctx) => {
  program.command('doctor')
    .description('Check the queue store (ref locks, scratch refs, readability, ledger validity); --fix removes stale leftovers no live process owns.')
    .option('--fix', 'remove a stale ref lock no running git owns, and stale scratch refs')
    .addHelpText('after', HELP)
    .action(ctx.action(async (g, opts: { fix?: boolean }) => {
      if (g.ledger !== undefined) throw new UsageError('doctor checks a store (--repo, --remote, --github), not a --ledger file; use verify for a file', 'source_conflict');
      const report = await doctor(storeFor(g), { fix: opts.fix === true });
      if (report.ok || g.json !== true) print(ctx.io, report, g.json === true);
      if (!report.ok) {
        // Exit 3; with --json the report is the error's details (still exactly one JSON object).
        const problems = report.checks.filter((c) => c.status === 'problem').map((c) => c.name);
        throw new ProtocolError('store_unhealthy', `doctor found problems in ${report.store}: ${problems.join(', ')}`, {}, { report });
      }
    }));
};
