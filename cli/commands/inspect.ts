/**
 * Read-only views: `stats` (counts by pool, class and key), `state` (a
 * paginated tree of graphs, Work and Claims; metadata only, never payloads),
 * `inspect` (one Work or Claim in full) and `trace` (the causal events of a
 * request or Claim).
 */
import { Option } from 'commander';
import { queueMetrics } from '../../engine/metrics/queue-metrics.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { CommandModule } from '../context.ts';
import { formatOf, formatOption, printableJson, printJsonl } from '../format.ts';
import { resolveId, resolveOptional } from '../ids.ts';
import { asOfOption, intIn, parseAsOf } from '../parse.ts';
import { printJson, UsageError } from '../output.ts';
import { ledgersBackTo, memoizedHistory } from '../history.ts';
import { readSource } from '../source.ts';
import { traceAnchor, traceView } from '../trace.ts';
import { claimDetail, statsRecords, statsView, treeRows, workDetail, WORK_STATES } from '../views.ts';

/** Backlog buckets (class, fairness key) the text of `stats` lists per pool. */
const BACKLOG_SHOWN = 20;

/** `inspect` fields whose text a producer or operator chose (printed quoted and escaped). */
const SUBMITTED = new Set(['graph_id', 'node_key', 'pool', 'worker_profile', 'fairness_key', 'request_id', 'handle']);

export const registerInspect: CommandModule = (program, ctx) => {
  program.command('stats')
    .description('Counts by state, pool, priority class and fairness key; outstanding reservations, the ids of unresolved launches, and barriers; the operating envelope (ledger bytes, watermark, admission budget, reserve owed), with a warning from 80% of the watermark.')
    .addOption(formatOption(['prometheus', 'openmetrics']))
    .addOption(asOfOption())
    .addHelpText('after', `
Backlog, retained reservations, unresolved launches and pending delivery barriers are shown apart
(spec 7.18): works.available and each pool's backlog are Work waiting for a grant; a pool's
native_outstanding counts every unreleased dispatch group (reservations retained until exact
terminal or nonlaunch evidence); unresolved_launches lists those groups whose launch is uncertain
or unresolved (dispatch_id, pool, state, reason; --format jsonl: type "unresolved_launch"
records), for fairway reconcile --dispatch-id ID; barriers.pending counts completed Work awaiting
its Result or DeliveryFailure.
--as-of is when readiness is evaluated (a retry backoff or an Observation's freshness depends on
it): each pool's eligible count, and in the metrics formats the ready and waiting gauges and the
oldest eligible age; as_of in --json.
Formats: prometheus is the Prometheus text format (0.0.4), which node_exporter's textfile collector
and the Pushgateway read; openmetrics is OpenMetrics 1.0 text, the exposition of the console's
/metrics. Both carry the same metrics and values.
Example (write beside the file, then rename: a failed read never leaves an empty .prom behind):
  d=/var/lib/node_exporter/textfile
  fairway stats --format prometheus > $d/fairway.prom.tmp && mv $d/fairway.prom.tmp $d/fairway.prom`)
    .action(ctx.action(async (g, o: { format?: string; asOf?: string }) => {
      const format = formatOf(g, o);
      const asOf = parseAsOf(o.asOf, Date.now());
      const projection = await readSource(g).load();
      if (format === 'prometheus' || format === 'openmetrics') {
        // prom-client only for these formats: it is not on the start-up path of the other formats.
        const { renderOpenMetrics, renderPrometheusText } = await import('../../lib/metrics/exposition.ts');
        const metrics = queueMetrics(projection, asOf);
        ctx.io.out(await (format === 'prometheus' ? renderPrometheusText(metrics) : renderOpenMetrics(metrics)));
        return;
      }
      const view = statsView(projection, asOf);
      if (format === 'json') return printJson(ctx.io, { ok: true, ...view });
      if (format === 'jsonl') return printJsonl(ctx.io, statsRecords(view));
      ctx.io.out(`tip ${view.tip} (${view.commits} commits), epoch ${view.policy_epoch}`);
      const e = view.envelope;
      // Admission is bounded by the watermark and by watermark + reserve (docs/operating-envelope.md): the
      // owed reserve may exceed the reserve itself, so reserve_remaining is not what admission has left.
      ctx.io.out(`ledger ${e.bytes} of ${e.ledger_bytes} bytes (${Math.round(e.used_fraction * 100)}%), admission budget ${e.admission_remaining} bytes; worst-case lifecycle bytes owed ${e.reserve}, ${e.closure_remaining} bytes left under the watermark + ${e.recovery_bytes}-byte reserve bound`);
      if (e.warning !== null) ctx.io.err(`warning: ledger ${e.warning === 'at_watermark' ? 'is at its envelope limit (admission watermark, or watermark + reserve with the lifecycle bytes owed): new Work and Claims are refused (ledger_limit); compact to reclaim' : 'is past 80% of its admission watermark or of watermark + reserve with the lifecycle bytes owed; compact soon'}`);
      const paused = [view.controls.grants_paused && 'grants', view.controls.admission_paused && 'admission'].filter(Boolean);
      if (paused.length > 0) ctx.io.out(`PAUSED: ${paused.join(' and ')} (fairway control to resume)`);
      const w = view.works;
      const b = view.barriers;
      ctx.io.out(`Work: available ${w.available}, claimed ${w.claimed}, completed ${w.completed}, cancelled ${w.cancelled}; delivery barriers: pending ${b.pending}, verified ${b.verified}, failed ${b.failed}`);
      const u = view.unresolved_launches;
      if (u.length > 0) ctx.io.out(`unresolved launches: ${u.length} (reservations kept; fairway reconcile --dispatch-id ID)`);
      for (const d of u) ctx.io.out(`  ${d.dispatch_id} ${d.state}${d.reason === null ? '' : ` ${d.reason}`} (pool ${printableJson(d.pool)})`);
      for (const p of view.pools) {
        ctx.io.out(`pool ${p.pool}: available ${p.available} (eligible ${p.eligible}), claimed ${p.claimed}, logical ${p.logical_outstanding}/${p.logical_limit}, native ${p.native_outstanding}/${p.native_limit}`);
        for (const k of p.backlog.slice(0, BACKLOG_SHOWN)) ctx.io.out(`  P${k.priority} ${printableJson(k.fairness_key).padEnd(14)} available ${k.available}`);
        if (p.backlog.length > BACKLOG_SHOWN) ctx.io.out(`  ... ${p.backlog.length - BACKLOG_SHOWN} more (class, key) buckets: stats --json lists them all`);
      }
    }));

  program.command('state')
    .description('An ASCII tree of graphs, Work and Claims (metadata only). Paginated: at most 256 rows and 64 KiB a page.')
    .option('--graph <id>', 'only this graph')
    .option('--pool <name>', 'only this pool')
    .addOption(new Option('--state <state>', 'only Work in this state').choices(WORK_STATES))
    .option('--search <text>', 'case-insensitive match on ids and metadata')
    .option('--offset <n>', 'rows to skip (0..1000000)', intIn('--offset', 0, 1_000_000), 0)
    .option('--limit <n>', 'rows to show (1..256; a page also stops at 64 KiB of rows, then next_offset continues)', intIn('--limit', 1, 256), 80)
    .addOption(formatOption())
    .addOption(asOfOption())
    .addHelpText('after', `
--json rows: {"depth", "kind": "graph" | "work" | "claim", "id", "label", ...}; a work row carries the full
work_id, graph_id, node_key, state, readiness (ready | waiting | running | terminal), reason, pool,
worker_profile, priority, effective_priority, fairness_key, barrier, owner {claim_id, dispatch_id,
handle, run_id} | null, attempts and the timestamps admitted_at, retry_not_before, completed_at,
cancelled_at (Unix ms); a claim row its claim_id, work_id, dispatch_id, handle, state, charged
priority and fairness_key, request_id, granted_at and terminal_at. --format jsonl: one row per line.
--as-of is when each work row's readiness and reason are evaluated (a retry backoff or an
Observation's freshness depends on it).`)
    .action(ctx.action(async (g, o: { graph?: string; pool?: string; state?: string; search?: string; offset: number; limit: number; format?: string; asOf?: string }) => {
      const format = formatOf(g, o);
      const asOf = parseAsOf(o.asOf, Date.now());
      const projection = await readSource(g).load();
      const page = treeRows(projection, o, asOf);
      if (format === 'json') return printJson(ctx.io, { ok: true, tip: projection.tip, ...page });
      if (format === 'jsonl') return printJsonl(ctx.io, page.rows);
      for (const r of page.rows) ctx.io.out(`${'  '.repeat(r.depth)}${r.label}`);
      const range = page.rows.length === 0 ? `no rows at offset ${page.offset}` : `rows ${page.offset + 1}-${page.offset + page.rows.length}`;
      ctx.io.out(`${range} of ${page.total}${page.next_offset === null ? '' : ` (next: --offset ${page.next_offset})`}`);
    }));

  program.command('inspect')
    .description('One Work (definition metadata, readiness, dependencies, Claims, barriers) or one Claim (group, lifecycle).')
    .option('--work-id <id>', 'the Work (full id or a unique prefix of 8+ characters)')
    .option('--claim-id <id>', 'the Claim (full id or a unique prefix of 8+ characters)')
    .addOption(formatOption())
    .addOption(asOfOption())
    .addHelpText('after', `
--as-of is when a Work's readiness, reason and blocking path are evaluated (a retry backoff or
an Observation's freshness depends on it); a Claim's view does not depend on the time.`)
    .action(ctx.action(async (g, o: { workId?: string; claimId?: string; format?: string; asOf?: string }) => {
      const format = formatOf(g, o);
      if ((o.workId === undefined) === (o.claimId === undefined)) throw new UsageError('give exactly one of --work-id or --claim-id', 'option_invalid');
      const asOf = parseAsOf(o.asOf, Date.now());
      const source = readSource(g);
      const projection = await source.load();
      // A Work or Claim older than the checkpoint: what it does not keep is read from the ledgers at
      // the checkpoints' prior Git commits, back to the admission or grant (as evidence and trace do).
      const history = memoizedHistory(source.history);
      let view;
      if (o.workId !== undefined) {
        const id = resolveId(projection, 'work', o.workId);
        const back = projection.work(id)?.admittedCommit;
        view = workDetail(projection, id, asOf, back === undefined ? [projection] : await ledgersBackTo(projection, back, history));
      } else {
        const id = resolveId(projection, 'claim', o.claimId!);
        const back = projection.claim(id)?.commitId;
        view = claimDetail(projection, id, back === undefined ? [projection] : await ledgersBackTo(projection, back, history));
      }
      if (format === 'json') return printJson(ctx.io, { ok: true, tip: projection.tip, ...view });
      if (format === 'jsonl') return printJsonl(ctx.io, [{ tip: projection.tip, ...view }]);
      // Submitted metadata is quoted and escaped (an empty fairness key shows as ""); ids and states print as they are.
      const { compacted, ...fields } = view as typeof view & { compacted?: { checkpoint: string; prior_git_sha: string } };
      for (const [k, v] of Object.entries(fields)) ctx.io.out(`${k.padEnd(18)} ${typeof v === 'string' && !SUBMITTED.has(k) ? v : printableJson(v)}`);
      if (compacted !== undefined) ctx.io.out(`(commits before checkpoint ${compacted.checkpoint} are in the ledger at Git commit ${compacted.prior_git_sha}, which this source does not have)`);
    }));

  program.command('trace')
    .description('The causal events of a request (global --request-id) or a Claim (no payloads), paginated.')
    .option('--claim-id <id>', 'a Claim')
    .option('--offset <n>', 'events to skip (0..1000000)', intIn('--offset', 0, 1_000_000), 0)
    .option('--limit <n>', 'events to show (1..256)', intIn('--limit', 1, 256), 64)
    .addOption(formatOption())
    .action(ctx.action(async (g, o: { claimId?: string; offset: number; limit: number; format?: string }) => {
      const format = formatOf(g, o);
      const requestId = (ctx.globals().requestId);
      if ((requestId === undefined) === (o.claimId === undefined)) throw new UsageError('give exactly one of --request-id or --claim-id', 'option_invalid');
      const source = readSource(g);
      const projection: Projection = await source.load();
      const sel = { requestId: resolveOptional(projection, 'request', requestId), claimId: resolveOptional(projection, 'claim', o.claimId) };
      // A request or Claim compacted away is traced through the pre-compaction ledgers Git history
      // still has: each checkpoint's prior ledger (the one holding its prior tip), back to the anchor.
      const earlier = (await ledgersBackTo(projection, traceAnchor(projection, sel), source.history)).slice(0, -1);
      const view = traceView(projection, sel, o.offset, o.limit, earlier);
      if (format === 'json') return printJson(ctx.io, { ok: true, tip: projection.tip, ...view });
      if (format === 'jsonl') return printJsonl(ctx.io, view.events);
      for (const e of view.events) ctx.io.out(`#${String(e.ordinal).padStart(6)} ${e.commit_id}  ${e.kind.padEnd(16)} ${e.summary}`);
      // Where the page is, as `state` says it: a page past the last event, or one with more after it.
      if (view.events.length === 0) ctx.io.out(view.total === 0 ? 'no events' : `no events at offset ${view.offset} of ${view.total}`);
      else if (view.offset > 0 || view.next_offset !== null) ctx.io.out(`events ${view.offset + 1}-${view.offset + view.events.length} of ${view.total}${view.next_offset === null ? '' : ` (next: --offset ${view.next_offset})`}`);
      if ('compacted' in view) ctx.io.out(`(events before checkpoint ${view.compacted.checkpoint} are in the ledger at Git commit ${view.compacted.prior_git_sha}, which this clone does not have)`);
    }));
};
