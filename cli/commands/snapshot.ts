/**
 * `fairway snapshot --role R [--assignment FILE] [--run-id ID --run-attempt N] --out FILE`:
 * the trusted activation step (spec 7.12). Captures an immutable snapshot of
 * the live queue for the agent-side MCP server: ledger bytes, branch version,
 * tip, the trusted role and origin, and a worker's assignment and native run.
 * A declared worker without a valid assignment fails; an absent queue is
 * recorded as uninitialized; an invalid ledger is an error.
 */
import { fail } from '../../engine/errors.ts';
import { SNAPSHOT_ROLES, type SnapshotRole } from '../../engine/intents/roles.ts';
import { readNamedFile, writeJsonAtomic } from '../../lib/intents/files.ts';
import { captureSnapshot } from '../../lib/intents/snapshot.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { parseJsonInput } from '../../lib/json-input.ts';
import { readStdin, STDIN } from '../input.ts';
import { printJson, UsageError } from '../output.ts';
import { outputFailure } from '../output-file.ts';
import { principalOf, storeFor } from '../source.ts';

interface SnapshotOptions {
  role: string;
  assignment?: string;
  runId?: string;
  runAttempt?: string;
  out: string;
}

/**
 * The worker's assignment, parsed as strictly as the ledger it came from (cli/input.ts
 * `parseJsonInput`): missing is `assignment_missing`, unreadable `assignment_unreadable`,
 * anything else refused `assignment_invalid`.
 */
async function readAssignment(path: string): Promise<unknown> {
  if (path === STDIN) return parseJsonInput(await readStdin('--assignment'), '--assignment (standard input)', 'assignment_invalid');
  return parseJsonInput(await readNamedFile(path, 'assignment'), `assignment ${path}`, 'assignment_invalid');
}

export const registerSnapshot: CommandModule = (program, ctx) => {
  program.command('snapshot')
    .description('Capture an immutable activation snapshot of the queue for the MCP intent server (trusted step).')
    .requiredOption('--role <role>', `trusted role of this activation: ${SNAPSHOT_ROLES.join(' | ')}`)
    .option('--assignment <file>', 'the worker\'s work_queue_assignment JSON (required for --role worker)')
    .option('--run-id <id>', 'the worker\'s actual native run id (e.g. $GITHUB_RUN_ID)')
    .option('--run-attempt <n>', 'the worker\'s native run attempt (e.g. $GITHUB_RUN_ATTEMPT)')
    .requiredOption('--out <file>', 'snapshot file to create (never overwritten)')
    .action(ctx.action(async (g, o: SnapshotOptions) => {
      if (!(SNAPSHOT_ROLES as readonly string[]).includes(o.role)) throw new UsageError(`--role must be one of ${SNAPSHOT_ROLES.join(', ')}`, 'role_invalid');
      if (g.ledger !== undefined) throw new UsageError('snapshot reads the live queue branch (--repo, --remote or --github), not --ledger', 'source_conflict');
      const role = o.role as SnapshotRole;
      if (role !== 'worker' && (o.assignment !== undefined || o.runId !== undefined)) {
        throw new UsageError('--assignment and --run-id belong to --role worker', 'option_invalid');
      }
      const assignment = o.assignment === undefined ? undefined : await readAssignment(o.assignment);
      if (o.runAttempt !== undefined && o.runId === undefined) throw new UsageError('--run-attempt needs --run-id', 'option_invalid');
      const attempt = o.runAttempt === undefined ? 1 : intIn('--run-attempt', 1, 4096)(o.runAttempt);
      const store = storeFor(g);
      const { snapshot } = await captureSnapshot({
        store,
        branch: g.branch ?? 'work-queue',
        role,
        assignment,
        principal: principalOf(g),
        nativeRun: o.runId === undefined ? null : { run_id: o.runId, run_attempt: attempt },
        now: Date.now(),
      });
      // The assignment alone authorizes nothing: a worker's intents are settled as its own native run.
      if (role === 'worker' && o.runId === undefined) throw new UsageError('--role worker needs --run-id (its native run, e.g. "$GITHUB_RUN_ID", and --run-attempt "$GITHUB_RUN_ATTEMPT")', 'option_missing');
      try {
        await writeJsonAtomic(o.out, snapshot, 'wx');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') fail('snapshot_exists', `${o.out} exists; snapshots are immutable, write a new file`);
        fail(...outputFailure(o.out, e));
      }
      const result = { ok: true, out: o.out, tip: snapshot.tip, snapshot_id: snapshot.snapshot_id, role, uninitialized: snapshot.uninitialized };
      if (g.json) printJson(ctx.io, result);
      else ctx.io.out(`${role} snapshot ${snapshot.snapshot_id.slice(0, 12)} of ${store.label}: ${snapshot.uninitialized ? 'queue uninitialized' : `tip ${snapshot.tip}`} -> ${o.out}`);
    }));
};
