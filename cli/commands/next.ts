/**
 * `fairway next --pool P [--limit N] [--work-id ID] [--as-of MS] [--json]`
 * (docs/console.md "Pages", `/next`): the line — the order in which the pool's ready backlog would
 * be granted from the live fairness clocks, absent new arrivals, Results and
 * operator actions. It is `predictLine`, the real selector (`PrefixPlanner`,
 * as `dispatch-next` uses it) run forward on the live state: the same
 * function the console's `/next` page and the MCP `work_queue_read`
 * prediction use. With --work-id: that Work's position, the grants ahead of
 * it (in the pool and in its class), the Work just before it, and an estimate
 * in time from the pool's recent grant rate (labelled as an estimate); a Work
 * not in the line gets its eligibility reason instead, judged as the line judges
 * it (`lineEligibility`: a grants pause or a full pool does not hide it). Read-only.
 */
import { fail } from '../../engine/errors.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { lineEligibility, MAX_LINE, predictLine, type Line, type LineEntry } from '../../engine/scheduler/line.ts';
import { grantRate, ordinal, positionInLine, positionText, type GrantRate, type LinePosition } from '../../engine/scheduler/line-position.ts';
import { configuredPool } from '../../engine/scheduler/policy-view.ts';
import type { CommandModule } from '../context.ts';
import { resolveOptional } from '../ids.ts';
import { printJson, UsageError } from '../output.ts';
import { loadProjection } from './explain.ts';
import { asOfOption, parseAsOf } from '../parse.ts';
import { formatDuration } from '../../lib/console/views/format.ts';

export const DEFAULT_NEXT_LIMIT = 20;

export interface NextView {
  pool: string;
  as_of: number;
  source_tip: string | null;
  mode: string;
  paused: boolean;
  available: number;
  logical_outstanding: number;
  logical_limit: number;
  /** Shown entries (the first --limit of the line). */
  entries: LineEntry[];
  /** Entries of the whole line (counted up to MAX_LINE), and why it ends. */
  line_length: number;
  end: Line['end'];
  truncated: boolean;
  rate: { per_hour: number; grants: number; span_ms: number } | null;
  /** With --work-id. */
  work: null | {
    work_id: string;
    node_key: string;
    state: string;
    in_line: boolean;
    position: LinePosition | null;
    /** When not in the line: its eligibility reason code (or its state when it is not available). */
    reason: string | null;
    text: string;
  };
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_NEXT_LIMIT;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_LINE) throw new UsageError(`--limit must be an integer 1..${MAX_LINE}, not ${JSON.stringify(raw)}`, 'option_invalid');
  return n;
}

function rateView(rate: GrantRate | null): NextView['rate'] {
  return rate === null ? null : { per_hour: Number(rate.perHour.toFixed(3)), grants: rate.grants, span_ms: rate.spanMs };
}

function estimateText(p: LinePosition): string {
  if (p.estimateMs === null || p.rate === null) return 'no estimate in time (fewer than 2 recent grants in this pool)';
  return `estimate ~${formatDuration(p.estimateMs)} from now at ${p.rate.perHour.toFixed(1)} grants/h (from the last ${p.rate.grants} grants; an estimate, not a promise)`;
}

/** The line view of `pool` at `asOf` (first `limit` entries; the whole line when a Work is asked about). */
export function nextView(projection: Projection, pool: string, asOf: number, limit: number, workId?: string): NextView {
  if (projection.policy === null) fail('queue_uninitialized', 'the queue has no Policy yet: nothing can be granted');
  configuredPool(projection.policy, pool);
  const work = workId === undefined ? undefined : projection.work(workId);
  if (workId !== undefined && work === undefined) fail('unknown_work', `no Work ${workId} in this ledger`);
  if (work !== undefined && work.pool !== pool) fail('pool_mismatch', `Work ${work.workId} belongs to pool ${work.pool}, not ${pool}`);
  // Asking about one Work needs the line up to it: compute the whole line then.
  const line = predictLine(projection, pool, asOf, work === undefined ? limit : MAX_LINE);
  const rate = grantRate(projection, pool, asOf);
  let workView: NextView['work'] = null;
  if (work !== undefined) {
    const position = positionInLine(line, work.workId, rate);
    let reason: string | null = null;
    if (position === null) {
      if (work.state !== 'available') reason = work.state;
      else {
        // Judged as the line judges it (grants resumed, the pool's logical capacity unbounded), so a
        // pause or a full pool does not hide the Work's own reason; ready Work the line still leaves
        // out is held by its fairness key's per-account limit.
        const verdict = lineEligibility(projection, work, asOf, pool);
        reason = verdict.eligible ? 'account_capacity_blocked' : verdict.reason;
      }
    }
    const text = position === null
      ? `not in the line: ${reason}${reason === 'account_capacity_blocked' ? ' (its fairness key is at its per-account limit; it waits for one of the key\'s Claims to finish)' : ''}`
      : `${positionText(position)}; ${estimateText(position)}`;
    workView = { work_id: work.workId, node_key: work.nodeKey, state: work.state, in_line: position !== null, position, reason, text };
  }
  return {
    pool,
    as_of: asOf,
    source_tip: line.source_tip,
    mode: line.mode,
    paused: line.paused,
    available: line.available,
    logical_outstanding: line.logical_outstanding,
    logical_limit: line.logical_limit,
    entries: line.entries.slice(0, limit),
    line_length: line.entries.length,
    end: line.end,
    truncated: line.entries.length > limit || line.truncated,
    rate: rateView(rate),
    work: workView,
  };
}

const q = (s: string): string => JSON.stringify(s);

const ENDS: Record<string, string> = {
  limit: 'more ready Work follows (raise --limit)',
  no_work: 'every ready Work of the pool is in the line',
  no_eligible_work: 'the rest of the ready Work is held (a fairness key at its per-account limit) or gated',
};

export function nextLines(v: NextView): string[] {
  const lines = [
    `line of pool ${q(v.pool)} at ${new Date(v.as_of).toISOString()} (as-of ${v.as_of}), tip ${v.source_tip ?? '-'}, ${v.mode}`,
    `${v.available} available; ${v.logical_outstanding} of ${v.logical_limit} logical Claims outstanding (the line assumes they finish as needed)`,
  ];
  if (v.paused) lines.push('GRANTS ARE PAUSED: this is the order resuming would grant in');
  if (v.work !== null) lines.push(`Work ${v.work.work_id} (node ${q(v.work.node_key)}, ${v.work.state}): ${v.work.text}`);
  if (v.entries.length === 0) lines.push('nothing in the line');
  for (const e of v.entries) {
    const mark = v.work !== null && e.work_id === v.work.work_id ? '>' : ' ';
    const klass = e.class_pass === null ? '' : ` class pass ${e.class_pass}`;
    lines.push(`${mark}${ordinal(e.position).padStart(6)}  P${e.priority} key ${q(e.fairness_key)}  ${e.node_key}  (graph ${e.graph_id}, Work ${e.work_id})  ${e.reason}${klass} key pass ${e.key_pass}`);
  }
  const shown = v.entries.length < v.line_length ? `showing ${v.entries.length} of ${v.line_length}; ` : '';
  lines.push(`${shown}the line ends: ${v.truncated && v.end !== 'limit' ? ENDS.limit : ENDS[v.end] ?? v.end}`);
  if (v.rate !== null) lines.push(`recent grant rate: ${v.rate.per_hour.toFixed(1)}/h over the last ${v.rate.grants} grants, ${formatDuration(v.rate.span_ms)} apart (a short span extrapolates far)`);
  lines.push('What could change it: new Work in a higher-weight class or of a key with a lower pass, a priority change, a pause, Results unblocking dependants, retries coming due.');
  return lines;
}

export const registerNext: CommandModule = (program, ctx) => {
  program.command('next')
    .description('The line: the predicted grant order of a pool\'s ready backlog from the live fairness clocks (the real selector run forward), or where one Work stands in it.')
    .requiredOption('--pool <name>', 'the scheduling pool')
    .option('--limit <n>', `entries to show (default ${DEFAULT_NEXT_LIMIT}, at most ${MAX_LINE})`)
    .option('--work-id <id>', 'where this Work stands: position, grants ahead (in the pool and its class), the Work before it, an estimate in time')
    .addOption(asOfOption())
    .addHelpText('after', `
Reads the queue branch (of the repository in the current directory, --dir PATH, --remote NAME or
-R OWNER/REPO) or a --ledger FILE. Nothing is charged or written.

How it is computed: the scheduler is deterministic, so the order in which today's ready backlog
would be granted is the real selector (the PrefixPlanner dispatch-next uses) run forward from the live
class and key clocks, one grant after another. Its first entry is \`fairway explain --pool P\`'s pick.
It assumes: no new arrivals, Results or operator actions; running Claims finish as needed (the
pool's logical limit never stops the line); grants are not paused (a paused pool shows what resuming
would do); the decision time stays --as-of (Work in a retry backoff is not in the line). Work of a
fairness key at its per-account limit waits for one of the key's Claims to finish, which cannot be
dated: it is left out and the line ends with no_eligible_work.
The estimate in time divides the grants ahead by the pool's rate over its last 20 grants; it is an
estimate, not a promise.

Output (--json): {"ok": true, "pool", "as_of", "source_tip", "mode", "paused", "available",
  "logical_outstanding", "logical_limit", "entries": [{"position", "work_id", "graph_id", "node_key",
  "priority", "fairness_key", "reason", "class_pass", "key_pass", "classes_eligible", "keys_eligible"}],
  "line_length", "end", "truncated", "rate": {"per_hour", "grants", "span_ms"} | null,
  "work": null | {"work_id", "node_key", "state", "in_line", "position": {"position", "ahead",
  "aheadInClass", "priority", "after", "estimateMs", "rate", "reason"} | null, "reason", "text"}}
  end is limit | no_work | no_eligible_work; reason of an entry is the spec 7.13 selection code.
Errors: unknown_pool, unknown_work, pool_mismatch (the Work is in another pool), queue_uninitialized,
  option_invalid (--limit), invalid_as_of.

Examples:
  fairway next --pool default
  fairway next --pool default --work-id 3f2a... --json`)
    .action(ctx.action(async (g, opts: { pool: string; limit?: string; workId?: string; asOf?: string }) => {
      const limit = parseLimit(opts.limit);
      const asOf = parseAsOf(opts.asOf, Date.now());
      const projection = await loadProjection(g);
      // A unique prefix of 8+ characters names a Work, as everywhere else.
      const view = nextView(projection, opts.pool, asOf, limit, resolveOptional(projection, 'work', opts.workId));
      if (g.json) return printJson(ctx.io, { ok: true, ...view });
      ctx.io.out(nextLines(view).join('\n'));
    }));
};
