/**
 * `fairway issues sync [--work-id ID...] [--dry-run]`: project Work into backing Issues
 * (operator reference "Backing Issues", "Synchronization and recovery"). A run that leaves a
 * target pending (uncertain creation, missing Issue or comment, no target authority) or a write
 * not done (uncertain, refused, not sent) is not a success: after its report it fails with exit 3
 * and the stable code `issues_sync_incomplete`, the report in `error.details` under --json (as
 * `reconcile` does with `launch_unresolved`). A dry run attempts nothing and exits 0.
 */
import type { Command } from 'commander';
import { fail, ProtocolError } from '../../engine/errors.ts';
import { lifecycleActors } from '../../lib/github/context.ts';
import { issueSettings, issuesClient, journalFor, projectorDeps } from '../../lib/issues/hook.ts';
import { syncIssues, syncScope } from '../../lib/issues/projector.ts';
import { incompleteTargets, type SyncReport } from '../../lib/issues/report.ts';
import { resolvePending } from '../../lib/issues/resolve.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError } from '../output.ts';
import { githubEnv, lazy } from '../globals.ts';
import { principalOf, storeOptionsFor, writeTarget } from '../source.ts';

const SYNC_HELP = `
Projects admitted Work into GitHub Issues of the queue repository, when aw.json enables it:
  {"work_queue": {"issues": true}}             labels work, work:queued, ...
  {"work_queue": {"issues": {"label": "cookie"}}}  labels cookie, cookie:queued, ...

For each Work (at most 25 per run; the rest are listed as deferred):
  - one Issue, labelled <prefix> and <prefix>:<status>, where status is
    queued | running | verifying | needs-review | done | failed | cancelled,
    derived from the ledger only (human label edits and closure change nothing);
  - one canonical summary comment and one comment per Claim (run, ledger, outcome);
  - IssueLink / IssueComment bindings published to the ledger.

Closure: Issues stay open. A projector rule with "completion_policy": "close-on-result",
installed in the Policy (fairway policy --file) before the Work's admission, closes the
Issue once a verified non-PR Result exists, if a rule still names this run (principal,
workflow GITHUB_WORKFLOW_REF, revision FAIRWAY_PROJECTOR_REF / GITHUB_WORKFLOW_SHA /
GITHUB_SHA). A Work admitted with a granted "backing_issue" is mirrored in that existing
Issue (any of its pool's allowed repositories) instead of a new one.

Crash safety: before any Issue or comment is created, its intent is written to the
projection journal (branch <queue-branch>-issues). A creation whose answer was lost,
timed out or was a 5xx stays "pending" and is never created again automatically; see
docs/backing-issues.md for how an operator resolves it. Unrelated labels, titles, bodies
and Issue state are never changed.

A run that leaves any target pending (targets[].pending: an uncertain creation, a missing
Issue or comment, no target authority) or any write not done (an outcome uncertain_*,
rejected_* or not_sent_*) is not a success: after the report it exits 3 with the code
issues_sync_incomplete; under --json the report is in error.details, with
error.details.incomplete listing those targets (pending reasons, journal keys, failed writes).
--dry-run attempts nothing and exits 0.

The queue and every --work-id are checked first, whether projection is on or not: a --work-id
that names no admitted Work is unknown_work (exit 2), a queue branch that is absent
queue_uninitialized and one that cannot be read the store's own error (exit 3). With projection
off, valid input answers {"ok": true, "enabled": false} and changes nothing.

Credentials: FAIRWAY_ISSUES_TOKEN, else GH_TOKEN / GITHUB_TOKEN (issues: write).
API root: FAIRWAY_GITHUB_API_URL. Writes are paced (1 s, Issues/comments 3 s;
FAIRWAY_ISSUES_WRITE_INTERVAL_MS overrides) and stop at an exhausted rate limit.

Examples:
  fairway --github acme/queue issues sync --dry-run     what would change, nothing written
  fairway --github acme/queue issues sync --json        receipts and request counts (exit 3 if incomplete)
  fairway --dir . issues sync --work-id ID --work-id ID2
`;

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

export const registerIssues: CommandModule = (program: Command, ctx) => {
  const issues = program.command('issues')
    .description('Backing GitHub Issues of admitted Work: sync labels, summaries and per-Claim comments (crash-safe).');
  issues.command('sync')
    .description('Project Work in scope into backing Issues: status labels, summary and Claim comments, IssueLink/IssueComment bindings.')
    .option('--work-id <id>', 'project only this Work (repeatable or comma-separated; default: every admitted Work, 25 per run)', collect, [])
    .option('--dry-run', 'read GitHub and print the mutations it would make; write nothing')
    .addHelpText('after', SYNC_HELP)
    .action(ctx.action(async (g, o: { workId: string[]; dryRun?: boolean }) => {
      if (g.ledger !== undefined) throw new UsageError('issues sync needs a queue store (--dir, --remote or -R OWNER/REPO), not --ledger', 'ledger_read_only');
      const { publisher } = writeTarget(g);
      // The queue and the Work named first, projection on or off: an unreadable or absent queue
      // (a --branch that is not there) and an unknown --work-id are errors, not "projection is off".
      const { projection, snapshot } = await publisher.cache.load();
      if (projection === null) fail('queue_uninitialized', 'there is no queue to project Issues for');
      syncScope(projection, o.workId);
      const settings = await issueSettings(publisher);
      if (!settings.enabled) {
        const off = { ok: true, enabled: false, message: 'backing-Issue projection is off: set work_queue.issues in .github/workflows/aw.json' };
        return g.json ? printJson(ctx.io, off) : ctx.io.out(off.message);
      }
      const env = await githubEnv(g);
      const actor = lifecycleActors(principalOf(g), env).reconciler;
      const journal = journalFor(storeOptionsFor(g));
      const deps = projectorDeps({ publisher, journal, client: issuesClient(env), actor, prefix: settings.label, env, ledgerVersion: snapshot.version });
      const report = await syncIssues(deps, { workIds: o.workId, dryRun: o.dryRun === true });
      const incomplete = report.dry_run ? [] : incompleteTargets(report);
      const answer = { enabled: true, label: settings.label, ...report };
      if (g.json && incomplete.length === 0) return printJson(ctx.io, { ok: true, ...answer });
      if (!g.json) printReport(ctx.io.out, report);
      if (incomplete.length > 0) {
        const what = incomplete.map((t) => `${t.work_id} ${[...t.pending, ...t.failed.map((f) => `${f.key} ${f.outcome}`)].join(', ')}`).join('; ');
        throw new ProtocolError('issues_sync_incomplete', `${incomplete.length} of ${report.targets.length} Work left pending or not written: ${what}; pending targets wait for fairway issues resolve (docs/backing-issues.md), the others for the next sync`, {}, { incomplete, ...answer });
      }
    }));
  issues.command('resolve')
    .description('Operator: resolve a pending Issue/comment creation after checking GitHub (adopt what exists, or attest nothing was created).')
    .requiredOption('--target <key>', 'the pending journal target: issue:<work_id>, summary:<work_id> or claim:<claim_id>')
    .option('--issue <number>', 'adopt this existing Issue number for an issue target')
    .option('--comment-id <id>', 'adopt this existing comment for a summary or claim target')
    .option('--not-created', 'attest that nothing was created: release the intent')
    .addHelpText('after', RESOLVE_HELP)
    .action(ctx.action(async (g, o: { target: string; issue?: string; commentId?: string; notCreated?: boolean }) => {
      const given = [o.issue !== undefined, o.commentId !== undefined, o.notCreated === true].filter(Boolean).length;
      if (given !== 1) throw new UsageError('give exactly one of --issue, --comment-id or --not-created', 'option_invalid');
      if (o.issue !== undefined && !/^[1-9][0-9]{0,9}$/.test(o.issue)) throw new UsageError('--issue must be an Issue number', 'option_invalid');
      if (o.commentId !== undefined && !/^[1-9][0-9]{0,19}$/.test(o.commentId)) throw new UsageError('--comment-id must be a comment id', 'option_invalid');
      if (g.ledger !== undefined) throw new UsageError('issues resolve needs a queue store (--dir, --remote or -R OWNER/REPO), not --ledger', 'ledger_read_only');
      const journal = journalFor(storeOptionsFor(g));
      const resolution = o.notCreated === true ? { kind: 'not_created' as const } : o.issue !== undefined ? { kind: 'adopt_issue' as const, number: Number(o.issue) } : { kind: 'adopt_comment' as const, commentId: o.commentId! };
      // Built on first use: --not-created is a journal write alone (no GitHub call, no token), and
      // a target the journal does not hold is named as such before any token is asked for.
      const env = await githubEnv(g);
      const client = lazy(() => issuesClient(env));
      const report = await resolvePending({ journal, client, principal: principalOf(g) }, o.target, resolution);
      if (g.json) return printJson(ctx.io, { ok: true, ...report });
      ctx.io.out(`${report.key}: ${report.resolution}${report.resource ? ` #${report.resource.number}` : ''}${report.comment_id ? ` comment ${report.comment_id}` : ''}; the next issues sync continues from here`);
    }));
};

const RESOLVE_HELP = `
A pending target is a creation whose outcome nobody can know: its intent is durable, but
the answer was lost (crash, timeout, dropped connection, 5xx). Sync never recreates it.
Look in GitHub first, then record what you found (one checked journal write):

  --issue N        the Issue the lost answer created is #N: bind it (checked: it exists in
                   the queue repository, is not a pull request, backs no other Work)
  --comment-id ID  the comment exists: bind it (checked: it is on the Work's backing Issue)
  --not-created    nothing was created (or you deleted the duplicate): release the intent;
                   the next sync creates the target anew

Pending targets are listed by 'issues sync --json' (which then exits 3,
issues_sync_incomplete) in error.details.incomplete[].pending_targets, e.g.
  fairway --github acme/queue issues resolve --target issue:WORK_ID --issue 42
  fairway --github acme/queue issues resolve --target summary:WORK_ID --not-created
`;

function printReport(out: (s: string) => void, r: SyncReport): void {
  out(`${r.dry_run ? 'dry run: ' : ''}${r.targets.length} Work in ${r.repository}${r.deferred.length > 0 ? `, ${r.deferred.length} deferred to the next run` : ''}`);
  for (const t of r.targets) {
    const where = t.repository === r.repository ? '' : t.repository;
    const closure = t.closure === null ? '' : `  closure: ${t.closure}`;
    out(`  ${t.work_id.slice(0, 16)}  ${t.status.padEnd(12)} issue ${t.issue.number === null ? '-' : `${where}#${t.issue.number}`}  ${t.issue.outcome}${closure}${t.pending.length > 0 ? `  PENDING: ${t.pending.join(', ')}` : ''}`);
  }
  if (r.labels_created.length > 0) out(`labels created: ${r.labels_created.join(', ')}`);
  for (const w of r.would) out(`  would ${w.method} ${w.what}`);
  if (r.bindings !== null) out(`bindings: ${r.bindings.operations} operation(s), ${r.bindings.status}${r.bindings.commit_id ? ` in ${r.bindings.commit_id}` : ''}`);
  if (r.stopped !== null) out(`stopped: ${r.stopped}`);
  out(`requests: ${r.requests.github_reads} GitHub read(s), ${r.requests.github_writes} write(s), ${r.requests.journal_writes} journal write(s), ${r.requests.ledger_publications} ledger publication(s)`);
}
