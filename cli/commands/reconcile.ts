/**
 * `fairway reconcile --dispatch-id ID | --work-id ID | --all`: trusted, bounded
 * reconciliation (spec 7.8, 7.18). Binds lost launches, releases once with exact terminal
 * or nonlaunch evidence, keeps every possibly running reservation, and ends an exhausted
 * budget in `launch_unresolved`. A reserved group (no start marker) is prelaunch-cancelled
 * once the dispatcher run attempt that granted it is terminal (or on `--cancel-reserved`),
 * and kept while that run may still start it. `--receipts DIR` then settles completed members' delivery
 * barriers from `DIR/<claim_id>.json` (Result, or a guarded DeliveryFailure) without
 * rerunning effects. A recorded run binding conflict is released once every candidate run is
 * reported completed; `--resolve-conflict RUN_ID` is the administrator's explicit
 * reconciliation binding one candidate (never a release). There is no force-release option.
 * A pass that leaves a group's launch unresolved (`launch_unresolved`, a run binding conflict,
 * a mismatching run) or its evidence unreadable is not a success: after the per-group report
 * it fails with exit 3 and the stable code `launch_unresolved` (or `evidence_unavailable`),
 * the reports in `error.details` under --json. Each group is reconciled on its own
 * (lib/lifecycle/reconcile-batch.ts, the policy of `launch --next`): one whose own request is
 * refused with nothing written (or whose receipts cannot be read) is reported `failed` and the
 * next is reconciled, the pass then exiting 3 with `reconcile_failed`; an error that leaves the
 * queue in doubt (it cannot be written, a publication may have landed, the ledger cannot be
 * read, an internal error) stops the pass, the rest reported `not_attempted`, and the command
 * exits with that error's own code (3, or 70 for internal_error).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, ProtocolError } from '../../engine/errors.ts';
import { isDecimalId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { unresolvedCode } from '../../engine/lifecycle/reconcile.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { debugEvent } from '../../lib/debug/log.ts';
import { parseJsonInput } from '../../lib/json-input.ts';
import { launchApi, lifecycleActors } from '../../lib/github/context.ts';
import type { DeliveryReport } from '../../lib/lifecycle/delivery.ts';
import { resolveConflict } from '../../lib/lifecycle/conflict-exits.ts';
import { reconcileGroups } from '../../lib/lifecycle/reconcile-batch.ts';
import type { ReconcileReport } from '../../lib/lifecycle/reconciler.ts';
import type { CommandModule } from '../context.ts';
import { githubEnv, lazy } from '../globals.ts';
import { resolveId } from '../ids.ts';
import { checkInputDirectory } from '../input.ts';
import { intIn } from '../parse.ts';
import { printJson, ReportedFailure, UsageError, type Io } from '../output.ts';
import { principalOf, writeTarget } from '../source.ts';

interface ReconcileOptions {
  dispatchId?: string;
  workId?: string;
  all?: boolean;
  cancelReserved?: boolean;
  cancelRunning?: boolean;
  maxPolls?: number;
  intervalMs: number;
  receipts?: string;
  resolveConflict?: string;
}

function targets(p: Projection, o: ReconcileOptions): string[] {
  if (o.dispatchId !== undefined) return [resolveId(p, 'dispatch', o.dispatchId)];
  if (o.workId !== undefined) {
    const work = p.work(resolveId(p, 'work', o.workId));
    if (work === undefined) fail('unknown_work', `Work ${o.workId} is not admitted`);
    return [...new Set(work.claims.map((c) => p.claim(c)!.dispatchId))];
  }
  // --all: every group that still holds a reservation (an unstarted one too: a dispatcher that
  // died mid-launch leaves its later groups reserved, spec 7.8) or a pending delivery barrier.
  return [...p.dispatches()].filter((d) => !d.released || d.claimIds.some((c) => {
    const claim = p.claim(c)!;
    return claim.state === 'completed' && p.work(claim.workId)?.barrier === 'pending';
  })).map((d) => d.dispatchId);
}

/**
 * A Claim's receipts and optional descriptor from `dir`, parsed within the wire profile as
 * `result --evidence/--descriptor` are (lib/json-input.ts): the descriptor is published in the
 * Result as read, so a duplicated key or `1e3` is refused (`input_invalid`), not quietly changed.
 */
async function readReceipts(dir: string, claimId: string): Promise<{ receipts: unknown; descriptor?: JsonObject }> {
  const read = async (name: string): Promise<unknown> => {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(join(dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return fail('input_invalid', `cannot read ${name}: ${(e as Error).message}`);
    }
    return parseJsonInput(bytes, `--receipts file ${name}`);
  };
  const descriptor = await read(`${claimId}.descriptor.json`);
  return { receipts: await read(`${claimId}.json`), ...(descriptor === null ? {} : { descriptor: descriptor as JsonObject }) };
}

export const registerReconcile: CommandModule = (program, ctx) => {
  program.command('reconcile')
    .description('Reconcile launches and releases with exact evidence; keeps capacity otherwise. Never force-releases.')
    .option('--dispatch-id <id>', 'one dispatch group')
    .option('--work-id <id>', 'every group this Work was granted in')
    .option('--all', 'every unreleased group (reserved ones too) and every pending delivery barrier')
    .option('--cancel-reserved', 'release a group with no start marker even while its granting dispatcher run may still start it (prelaunch cancellation, CAS-raced against a start)')
    .option('--cancel-running', 'ask GitHub to cancel a bound running worker (a request; the slot is kept until it is terminal)')
    .option('--max-polls <n>', 'discovery polls at most, 1..4096 (default: the pool\'s reconciliation.max_attempts)', intIn('--max-polls', 1, 4096))
    .option('--interval-ms <n>', 'pause between polls', intIn('--interval-ms', 0, 3_600_000), 5000)
    .option('--receipts <dir>', 'settle delivery barriers from <dir>/<claim_id>.json (and optional .descriptor.json)')
    .option('--resolve-conflict <run_id>', 'administrator: bind one candidate of the recorded run binding conflict of --dispatch-id (the group then follows that run and is released only on its exact terminal evidence)')
    .addHelpText('after', `
A reserved group (granted, no start marker) is released by prelaunch cancellation once GitHub
reports terminal the dispatcher run attempt that granted it (a launch that died or failed
before starting it), its still-open Claims cancelled with the pool's retry backoff; while that
run may still start it, or when its grant names no run, it is kept (--cancel-reserved releases
it anyway). A start marker that wins the race is reconciled as a started launch.

--receipts DIR must be a directory, checked before anything is read or written: a missing one
is receipts_not_found, a file (or one that cannot be searched) receipts_unreadable (exit 3). In
it, a Claim without <claim_id>.json keeps its delivery barrier pending.

A run binding conflict (several runs carry one dispatch id; none gets authority) keeps its
capacity reserved. Plain reconcile releases it once GitHub reports every candidate run
completed (exact terminal evidence of each). An administrator may instead bind the one
candidate that is the real launch:
  fairway reconcile --dispatch-id D --resolve-conflict RUN_ID
The run must be a candidate the conflict recorded and still match the approved launch
(repository, workflow, ref, event, principal, attempt 1). Nothing is force-released.

A pass that leaves some group's launch unresolved (launch_unresolved, run_binding_conflict,
run_identity_invalid) exits 3 with the code launch_unresolved; one that could only not read
some group's evidence exits 3 with evidence_unavailable. Every group's report is printed first
(under --json: error.details.reconciled, and error.details.unresolved lists those groups).

Each group is reconciled on its own. A group whose own request is refused (nothing written),
or whose receipts cannot be read, is reported failed, with its error, and the next group is
reconciled; the pass then exits 3 with reconcile_failed (before launch_unresolved and
evidence_unavailable). An error that leaves the queue in doubt (the queue cannot be written, a
publication may have landed, the ledger cannot be read) stops the pass: the remaining groups
are reported not_attempted and keep their reservations, and the command exits with that
error's code. Under --json error.details also lists failed and not_attempted.`)
    .action(ctx.action(async (g, o: ReconcileOptions) => {
      const chosen = [o.dispatchId, o.workId, o.all].filter((v) => v !== undefined && v !== false).length;
      if (chosen !== 1) throw new UsageError('give exactly one of --dispatch-id, --work-id or --all', 'option_invalid');
      if (o.resolveConflict !== undefined && (o.dispatchId === undefined || !isDecimalId(o.resolveConflict))) {
        throw new UsageError('--resolve-conflict RUN_ID needs --dispatch-id and a decimal run id', 'option_invalid');
      }
      const { publisher } = writeTarget(g);
      // Before anything is read or written: a receipts directory that is not there would
      // otherwise read as one without receipts, every barrier quietly left pending.
      if (o.receipts !== undefined) await checkInputDirectory(o.receipts, '--receipts', 'receipts');
      const { projection } = await publisher.cache.load();
      if (projection === null) fail('queue_uninitialized', 'there is no queue to reconcile');
      const env = await githubEnv(g);
      const actors = lifecycleActors(principalOf(g), env);
      // Built on first use: cancelling an unstarted group (--cancel-reserved) makes no GitHub call.
      const api = lazy(() => launchApi(env));
      const resolution = o.resolveConflict === undefined ? null : await resolveConflict(publisher, api, actors.administrator, resolveId(projection, 'dispatch', o.dispatchId!), o.resolveConflict);
      const { reconciled: reports, deliveries, failed, stopped } = await reconcileGroups({
        publisher, api, reconciler: actors.reconciler, intervalMs: o.intervalMs, cancelReserved: o.cancelReserved === true, cancelRunning: o.cancelRunning === true,
        ...(o.maxPolls === undefined ? {} : { maxPolls: o.maxPolls }),
      }, targets(projection, o), o.receipts === undefined ? undefined : (claimId) => readReceipts(o.receipts!, claimId));
      debugEvent('reconciler', 'pass', { groups: reports.length, released: reports.filter((r) => r.outcome === 'released').length });
      const code = unresolvedCode(reports.map((r) => r.outcome));
      const answer = { ...(resolution === null ? {} : { resolution }), reconciled: reports, deliveries };
      if (g.json && code === null && failed.length === 0) return printJson(ctx.io, { ok: true, ...answer });
      if (!g.json) {
        // Nothing in scope is said, not an empty screen (--json: "reconciled": []).
        if (reports.length === 0) ctx.io.out(o.all === true ? 'nothing to reconcile: no unreleased dispatch group and no pending delivery barrier' : `Work ${o.workId} has no dispatch group: it was never granted`);
        printReports(ctx.io, reports, deliveries, resolution);
      }
      // Spec 7.18: an unresolved launch or unavailable evidence is reported, never success.
      const unresolved = reports.filter((r) => unresolvedCode([r.outcome]) !== null).map((r) => ({ dispatch_id: r.dispatch_id, outcome: r.outcome, last_error: r.last_error, next_action: r.next_action }));
      const report = { unresolved, ...answer, failed, not_attempted: reports.filter((r) => r.outcome === 'not_attempted').map((r) => r.dispatch_id) };
      if (stopped !== null) throw new ReportedFailure(stopped, report);
      if (failed.length > 0) {
        throw new ProtocolError('reconcile_failed', `${failed.length} of ${reports.length} dispatch group(s) failed to reconcile: ${reports.filter((r) => r.outcome === 'failed').map((r) => `${r.dispatch_id} ${String(r.error?.code)}`).join(', ')}; the others were reconciled`, {}, report);
      }
      if (code !== null) {
        throw new ProtocolError(code, `${unresolved.length} dispatch group(s) left unresolved, their reservations kept: ${unresolved.map((u) => `${u.dispatch_id} ${u.outcome}`).join(', ')}`, {}, report);
      }
    }));
};

function printReports(io: Io, reports: readonly ReconcileReport[], deliveries: readonly DeliveryReport[], resolution: Awaited<ReturnType<typeof resolveConflict>> | null): void {
  if (resolution !== null) io.out(`${resolution.dispatch_id}: conflict ${resolution.status}, bound to run ${resolution.run_id} (commit ${resolution.commit_id})`);
  for (const r of reports) {
    const granter = r.dispatcher_run === null ? '' : ` dispatcher run ${r.dispatcher_run.run_id} attempt ${r.dispatcher_run.run_attempt} ${r.dispatcher_run.status ?? 'unknown'}`;
    const error = r.error === undefined ? '' : ` ${String(r.error.code)}: ${String(r.error.message)}`;
    io.out(`${r.dispatch_id}: ${r.outcome} (${r.state})${r.run_id ? ` run ${r.run_id}` : ''}${r.conclusion ? ` native conclusion ${r.conclusion}` : ''}${granter}${r.last_error ? ` last error ${r.last_error}` : ''}${error}`);
    if (r.next_action !== null) io.out(`  next: ${r.next_action}`);
  }
  for (const d of deliveries) io.out(`  ${d.claim_id}: ${d.outcome}${d.reason ? ` (${d.reason})` : ''}`);
}
