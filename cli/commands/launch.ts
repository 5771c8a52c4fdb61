/**
 * `launch` and `activate`, the two sides of a worker launch (spec 7.8).
 *
 * - `fairway launch --dispatch-id ID`: start marker, then the one workflow_dispatch POST,
 *   then the validated binding (or uncertainty). It runs inside the dispatcher's GitHub
 *   Actions job: the marker selects that run as the group's one sender (spec 7.8), and outside
 *   Actions the command refuses with `sender_run_missing` before writing anything. `--next` first commits a fair
 *   dispatch_next (refreshing Issue/PR gates into the same commit) and launches every
 *   group it reserved; a replayed request launches only still-reserved groups. Each group is
 *   launched on its own: one whose launch is refused (nothing written) is reported `failed`
 *   with its error and the next is launched; an error that leaves the queue in doubt (a
 *   failed or uncertain publication, an unreadable ledger, an internal error) stops the
 *   batch, the rest reported `not_attempted` (lib/lifecycle/launch-batch.ts). Any failure
 *   exits non-zero after every group's report: `launch_failed` (exit 3) when every group was
 *   attempted, otherwise the stopping error's own code (exit 3, or 70 for internal_error);
 *   under --json the grant and every group's report are in `error.details`.
 * - `fairway activate --assignment FILE`: the worker's trusted first step: authenticate
 *   this run (GITHUB_RUN_ID/ATTEMPT/REPOSITORY and the run API), check the assignment
 *   against the ledger, bind the group if the dispatcher's response was lost, and write
 *   the verified immutable assignment. Fails closed otherwise.
 */
import { fail, ProtocolError } from '../../engine/errors.ts';
import { dispatchReceipt } from '../../engine/receipts/dispatch.ts';
import { activateWorker } from '../../lib/lifecycle/activation.ts';
import { actionsRunFromEnv, dispatchPostOptions, launchApi, launchSender, lifecycleActors, observeApi } from '../../lib/github/context.ts';
import { observeAndGrant } from '../../lib/lifecycle/grant.ts';
import { launchGroups } from '../../lib/lifecycle/launch-batch.ts';
import type { LaunchReport } from '../../lib/lifecycle/launcher.ts';
import { defaultBranch, dispatchRef } from '../../lib/github/revision.ts';
import { grantOf } from '../../lib/publisher/requests.ts';
import type { CommandModule } from '../context.ts';
import { intIn } from '../parse.ts';
import { githubEnv } from '../globals.ts';
import { resolveId } from '../ids.ts';
import { readJsonInput } from '../input.ts';
import { printJson, ReportedFailure, UsageError, type Io } from '../output.ts';
import { writeOutputFile } from '../output-file.ts';
import { principalOf, requestIdOf, writeTarget } from '../source.ts';


interface LaunchOptions {
  dispatchId?: string;
  next?: boolean;
  pool: string;
  maxClaims: number;
  maxDispatches: number;
  maxBytes: number;
  refresh: number;
  ref?: string;
  timeoutMs: number;
}

export const registerLaunch: CommandModule = (program, ctx) => {
  program.command('launch')
    .description('Launch reserved worker groups on GitHub Actions: start marker, one workflow_dispatch POST, verified run binding. Runs inside the dispatcher\'s Actions job (its run is the one sender).')
    .option('--dispatch-id <id>', 'the reserved group to launch')
    .option('--next', 'first commit the next fair dispatch_next (with fresh Issue/PR observations), then launch its groups')
    .option('--pool <name>', 'scheduling pool (with --next)', 'default')
    .option('--max-claims <n>', 'Claims to grant at most (with --next)', intIn('--max-claims', 1, 256), 1)
    .option('--max-dispatches <n>', 'groups to open at most (with --next)', intIn('--max-dispatches', 1, 256), 1)
    .option('--max-bytes <n>', 'assignment size bound (with --next)', intIn('--max-bytes', 1, 49152), 49152)
    .option('--refresh <n>', 'Issue/PR gate refreshes before granting (0..255, contract default 128)', intIn('--refresh', 0, 255), 128)
    .option('--ref <branch>', 'branch or tag to dispatch the worker on, checked before granting (default: the repository default branch)')
    .option('--timeout-ms <n>', 'dispatch POST timeout; a timeout is an uncertain launch', intIn('--timeout-ms', 1, 600_000), 30_000)
    .addHelpText('after', `
Each group is launched on its own. A group whose launch is refused (nothing written) is
reported failed, with its error, and the next group is launched; the command then exits 3
with launch_failed. An error that leaves the queue in doubt (the queue cannot be written, a
publication may have landed, the ledger cannot be read) stops the launches: the remaining
groups are reported not_attempted and stay reserved for reconcile, and the command exits with
that error's code. Every group's report is printed first (under --json: error.details.launches,
with the grant).

A group held by a grant pause (grants_paused) is reported with its next action and the command
exits 0: nothing was written or sent and the group stays reserved, as dispatch-next's no-grant
evaluation under a pause exits 0 and reconcile's kept reservation does. Its next_action (under
--json, and "next:" in the text) is to resume grants (fairway control --name grants_paused
--paused false) and launch it again, or to cancel it before any start marker (fairway reconcile
--dispatch-id ID --cancel-reserved).`)
    .action(ctx.action(async (g, o: LaunchOptions) => {
      if ((o.dispatchId === undefined) === (o.next !== true)) throw new UsageError('give exactly one of --dispatch-id or --next', 'option_invalid');
      const { publisher } = writeTarget(g);
      const { projection } = await publisher.cache.load();
      if (projection === null) fail('queue_uninitialized', 'no queue to launch from');
      const repository = projection.repository ?? '';
      // Refuse before granting or writing anything when no authenticated sender run exists.
      const sender = launchSender(principalOf(g), repository, process.env);
      const env = await githubEnv(g);
      const actors = lifecycleActors(principalOf(g), env);
      const api = launchApi(env);
      // The worker's ref resolves before anything is granted: a typo changes nothing.
      const ref = o.ref === undefined ? await defaultBranch(api, repository) : await dispatchRef(api, repository, o.ref);
      const deps = { publisher, api, post: dispatchPostOptions(env, { timeoutMs: o.timeoutMs }), sender, reconciler: actors.reconciler, ref };
      let ids: string[];
      let grant: unknown = null;
      if (o.next === true) {
        const requestId = requestIdOf(g, 'dispatch');
        const r = await observeAndGrant(publisher, o.refresh > 0 ? observeApi(env) : null, {
          requestId, actor: actors.dispatcher, pool: o.pool, max_claims: o.maxClaims, max_dispatches: o.maxDispatches, max_bytes: o.maxBytes, refresh: o.refresh,
        });
        if (r.outcome.status === 'no_write') {
          grant = { status: 'no_grant', limiting_reason: r.outcome.code, observe_commit: r.observeCommit };
          ids = [];
        } else {
          // A retry's stop reason is the committed grant's own, read from pre-compaction history if need be.
          const receipt = dispatchReceipt(r.outcome.projection, requestId, await grantOf(publisher, r.outcome, requestId));
          grant = { replayed: r.outcome.replayed, ...receipt, observations: r.refresh?.operations.length ?? 0 };
          ids = receipt.dispatches.filter((d) => d.status === 'reserved').map((d) => d.dispatch_id);
        }
      } else ids = [resolveId(projection, 'dispatch', o.dispatchId!)];
      const { launches, failed, stopped } = await launchGroups(deps, ids);
      if (g.json && failed.length === 0) return printJson(ctx.io, { ok: true, grant, launches });
      if (!g.json) printLaunches(ctx.io, launches);
      const report = { grant, launches, failed, not_attempted: launches.filter((l) => l.outcome === 'not_attempted').map((l) => l.dispatch_id) };
      if (stopped !== null) throw new ReportedFailure(stopped, report);
      if (failed.length > 0) {
        throw new ProtocolError('launch_failed', `${failed.length} of ${launches.length} dispatch group(s) failed to launch: ${launches.filter((l) => l.outcome === 'failed').map((l) => `${l.dispatch_id} ${String(l.error?.code)}`).join(', ')}; the others were launched`, {}, report);
      }
    }));

  program.command('activate')
    .description('Worker step: verify this run\'s binding from its own job context, then write the immutable assignment.')
    .requiredOption('--assignment <file>', 'the work_queue_assignment input (JSON file; - reads stdin)')
    .option('--out <file>', 'where to write the verified assignment (default: stdout only)')
    .action(ctx.action(async (g, o: { assignment: string; out?: string }) => {
      const run = actionsRunFromEnv(process.env);
      if (run === null) throw new UsageError('activate runs inside the worker\'s GitHub Actions job (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_REPOSITORY)', 'context_missing');
      const raw = await readJsonInput(o.assignment, '--assignment', 'assignment_invalid');
      const { publisher } = writeTarget(g);
      const a = await activateWorker({ publisher, api: launchApi(await githubEnv(g)), run, assignment: raw });
      if (o.out !== undefined) await writeOutputFile(o.out, `${JSON.stringify(a.assignment)}\n`, { exclusive: true });
      const result = { ok: true, dispatch_id: a.assignment.dispatch_id, run_id: a.run_id, binding: a.binding, commit_id: a.commit_id, handles: a.assignment.claims.map((c) => c.handle), assignment: a.assignment };
      if (g.json) return printJson(ctx.io, result);
      ctx.io.out(`run ${a.run_id} holds ${a.assignment.dispatch_id} (${a.binding}): ${result.handles.join(', ')}`);
    }));
};

function printLaunches(io: Io, launches: readonly LaunchReport[]): void {
  for (const l of launches) {
    const error = l.error === undefined ? '' : ` ${String(l.error.code)}: ${String(l.error.message)}`;
    io.out(`${l.dispatch_id}: ${l.outcome} (${l.state})${l.run_id ? ` run ${l.run_id}` : ''}${l.reason ? ` ${l.reason}` : ''}${l.posted && l.outcome === 'failed' ? ' (its POST was sent)' : ''}${error}`);
    if (l.next_action !== null) io.out(`  next: ${l.next_action}`);
  }
  if (launches.length === 0) io.out('nothing to launch');
}
