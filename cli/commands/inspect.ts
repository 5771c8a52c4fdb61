/**
 * Read-only views: `stats` (counts by pool, class and key), `state` (a
 * paginated tree of graphs, Work and Claims; metadata only, never payloads),
 * `inspect` (one Work or Claim in full) and `trace` (the causal events of a
 * request or Claim).
 */
import { Option } from 'commander';
import { queueMetrics } from '../../engine/metrics/queue-metrics.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { renderOpenMetrics } from '../../lib/metrics/exposition.ts';
import type { CommandModule } from '../context.ts';
import { printJson, UsageError } from '../output.ts';
import { readSource } from '../source.ts';
import { claimDetail, statsView, traceView, treeRows, workDetail } from '../views.ts';

function bounded(name: string, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > max) throw new UsageError(`${name} must be an integer 0..${max}`, 'option_invalid');
    return n;
  };
}

export const registerInspect: CommandModule = (program, ctx) => {
  program.command('stats')
    .description('Counts by state, pool, priority class and fairness key; outstanding reservations and barriers; the operating envelope (ledger bytes, watermark, admission budget, reserve owed), with a warning from 80% of the watermark.')
    .addOption(new Option('--format <format>', 'table (default), json (same as --json) or prometheus (OpenMetrics text: the console\'s /metrics)').choices(['table', 'json', 'prometheus']))
    .addHelpText('after', `
Example:
  fairway stats --format prometheus > /var/lib/node_exporter/textfile/fairway.prom`)
    .action(ctx.action(async (g, o: { format?: 'table' | 'json' | 'prometheus' }) => {
      const projection = await readSource(g).load();
      const asOf = Date.now();
      if (o.format === 'prometheus') {
        ctx.io.out(await renderOpenMetrics(queueMetrics(projection, asOf)));
        return;
      }
      const view = statsView(projection, asOf);
      if (g.json || o.format === 'json') return printJson(ctx.io, { ok: true, ...view });
      ctx.io.out(`tip ${view.tip} (${view.commits} commits), epoch ${view.policy_epoch}`);
      const e = view.envelope;
      ctx.io.out(`ledger ${e.bytes} of ${e.ledger_bytes} bytes (${Math.round(e.used_fraction * 100)}%), admission budget ${e.admission_remaining} bytes; worst-case lifecycle bytes owed ${e.reserve} of the ${e.recovery_bytes}-byte reserve (${e.reserve_remaining} left for new admission)`);
      if (e.warning !== null) ctx.io.err(`warning: ledger ${e.warning === 'at_watermark' ? 'is at its admission watermark: new Work and Claims are refused (ledger_limit); compact to reclaim' : 'is past 80% of its admission watermark; compact soon'}`);
      for (const p of view.pools) {
        ctx.io.out(`pool ${p.pool}: available ${p.available} (eligible ${p.eligible}), claimed ${p.claimed}, logical ${p.logical_outstanding}/${p.logical_limit}, native ${p.native_outstanding}/${p.native_limit}`);
        for (const b of p.backlog.slice(0, 20)) ctx.io.out(`  P${b.priority} ${JSON.stringify(b.fairness_key).padEnd(14)} available ${b.available}`);
      }
    }));

  program.command('state')
    .description('An ASCII tree of graphs, Work and Claims (metadata only). Paginated: at most 256 rows.')
    .option('--graph <id>', 'only this graph')
    .option('--pool <name>', 'only this pool')
    .option('--state <state>', 'available | claimed | completed | cancelled')
    .option('--search <text>', 'case-insensitive match on ids and metadata')
    .option('--offset <n>', 'rows to skip', bounded('--offset', 1_000_000), 0)
    .option('--limit <n>', 'rows to show (max 256)', bounded('--limit', 256), 80)
    .action(ctx.action(async (g, o: { graph?: string; pool?: string; state?: string; search?: string; offset: number; limit: number }) => {
      const projection = await readSource(g).load();
      const page = treeRows(projection, o);
      if (g.json) return printJson(ctx.io, { ok: true, tip: projection.tip, ...page });
      for (const r of page.rows) ctx.io.out(`${'  '.repeat(r.depth)}${r.label}`);
      ctx.io.out(`rows ${page.offset + 1}-${page.offset + page.rows.length} of ${page.total}${page.next_offset === null ? '' : ` (next: --offset ${page.next_offset})`}`);
    }));

  program.command('inspect')
    .description('One Work (definition metadata, readiness, dependencies, Claims, barriers) or one Claim (group, lifecycle).')
    .option('--work-id <id>')
    .option('--claim-id <id>')
    .action(ctx.action(async (g, o: { workId?: string; claimId?: string }) => {
      if ((o.workId === undefined) === (o.claimId === undefined)) throw new UsageError('give exactly one of --work-id or --claim-id', 'option_invalid');
      const projection = await readSource(g).load();
      const view = o.workId !== undefined ? workDetail(projection, o.workId, Date.now()) : claimDetail(projection, o.claimId!);
      if (g.json) return printJson(ctx.io, { ok: true, tip: projection.tip, ...view });
      for (const [k, v] of Object.entries(view)) ctx.io.out(`${k.padEnd(18)} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
    }));

  program.command('trace')
    .description('The causal events of a request (global --request-id) or a Claim (no payloads), paginated.')
    .option('--claim-id <id>', 'a Claim')
    .option('--offset <n>', 'events to skip', bounded('--offset', 1_000_000), 0)
    .option('--limit <n>', 'events to show (max 256)', bounded('--limit', 256), 64)
    .action(ctx.action(async (g, o: { claimId?: string; offset: number; limit: number }) => {
      const requestId = (ctx.globals().requestId);
      if ((requestId === undefined) === (o.claimId === undefined)) throw new UsageError('give exactly one of --request-id or --claim-id', 'option_invalid');
      const projection: Projection = await readSource(g).load();
      const view = traceView(projection, { requestId, claimId: o.claimId }, o.offset, o.limit);
      if (g.json) return printJson(ctx.io, { ok: true, tip: projection.tip, ...view });
      for (const e of view.events) ctx.io.out(`#${String(e.ordinal).padStart(6)} ${e.commit_id}  ${e.kind.padEnd(16)} ${e.summary}`);
    }));
};
