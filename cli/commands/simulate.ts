/**
 * `fairway simulate --settings FILE --workload FILE --grants N [--json]`
 * (design/INTERFACES.md): what-if runs of the real scheduler (the packer,
 * planNext and the fairness clocks) over a synthetic workload. The console's
 * what-if view is built on the same JSON.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseLossless } from 'lossless-json';
import { ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { simulate, type SimulationResult, type SimulationShare } from '../../engine/scheduler/simulate.ts';
import { MAX_SIMULATED_GRANTS, parseWorkload } from '../../engine/scheduler/workload.ts';
import { readWorkQueueSettingsFile, type WorkQueueSettings } from '../../lib/config/aw.ts';
import type { CommandModule } from '../context.ts';
import { readStdin, STDIN } from '../input.ts';
import { printJson, UsageError, type Io } from '../output.ts';

export interface SimulateOptions {
  settings: string;
  workload: string;
  grants: number;
  json: boolean;
}

async function readInput(path: string, what: 'settings' | 'workload'): Promise<Uint8Array> {
  if (path === STDIN) return readStdin(`--${what}`);
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ProtocolError(code === 'ENOENT' ? `${what}_not_found` : `${what}_unreadable`, `cannot read ${what} file ${path}: ${code ?? String(e)}`);
  }
}

function parseWorkloadFile(bytes: Uint8Array): ReturnType<typeof parseWorkload> {
  let value: unknown;
  try {
    // Like --settings (lib/config/aw.ts parseSettingsJson): a key given twice is refused, where
    // JSON.parse would quietly keep the last one (`"count": 5, "count": 0` simulating no Work).
    value = parseLossless(new TextDecoder('utf-8', { fatal: true }).decode(bytes), null, Number);
  } catch (e) {
    throw new ProtocolError('workload_invalid', `workload: not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { path: 'workload' });
  }
  return parseWorkload(value);
}

/** The scheduling economics of validated settings (capacity settings never bind in a simulation). */
export function schedulingOf(settings: WorkQueueSettings): JsonObject {
  return { mode: settings.mode, class_weights: [...settings.class_weights], accounting_weights: { ...settings.accounting_weights } };
}

export function parseGrants(raw: string): number {
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_SIMULATED_GRANTS) {
    throw new UsageError(`--grants must be an integer in 0..${MAX_SIMULATED_GRANTS}, not ${JSON.stringify(raw)}`, 'invalid_grants');
  }
  return n;
}

function label(key: string | null): string {
  if (key === null) return '*';
  if (key === '') return '(default)';
  return /^[\w.:@/-]{1,32}$/.test(key) ? key : JSON.stringify(key).slice(0, 34);
}

const pct = (x: number): string => (x * 100).toFixed(2);

/** The compact human share table. */
export function shareTable(result: SimulationResult): string {
  const header = ['class', 'key', 'weight', 'grants', 'target%', 'actual%', 'max dev', 'longest wait'];
  const rows = result.shares.map((s: SimulationShare) => [
    s.level === 'class' ? String(s.priority) : '',
    s.level === 'class' ? '*' : label(s.key),
    String(s.weight),
    String(s.grants),
    pct(s.target_share),
    pct(s.actual_share),
    s.max_prefix_deviation.toFixed(2),
    String(s.longest_zero_service),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export async function runSimulate(io: Io, opts: SimulateOptions): Promise<SimulationResult> {
  const settings = readWorkQueueSettingsFile(await readInput(opts.settings, 'settings'));
  const workload = parseWorkloadFile(await readInput(opts.workload, 'workload'));
  const started = performance.now();
  const result = simulate(schedulingOf(settings), workload, opts.grants);
  const ms = Math.round(performance.now() - started);
  if (opts.json) {
    printJson(io, {
      ok: true,
      mode: result.mode,
      requested: result.requested,
      granted: result.grants.length,
      stopped: result.stopped,
      grants: result.grants,
      shares: result.shares,
    });
  } else {
    const lines = [`simulated ${result.grants.length} of ${result.requested} grants (${result.mode}) in ${ms} ms`];
    if (result.stopped !== null) lines.push(`stopped early: ${result.stopped} (nothing eligible remained)`);
    lines.push('', shareTable(result), '', '* = the class row; max dev = max |granted - owed| over every prefix, in grants; longest wait = decisions eligible but unserved');
    io.out(lines.join('\n'));
  }
  return result;
}

export const registerSimulate: CommandModule = (program, ctx) => {
  program.command('simulate')
    .description('What-if: grant a synthetic workload with the real scheduler (packer, planNext, fairness clocks); print the grant sequence and a per-class/per-key share table.')
    .requiredOption('--settings <file>', 'an aw.json work_queue object (mode, class_weights, accounting_weights, ...), validated like aw.json')
    .requiredOption('--workload <file>', 'workload JSON: {"nodes": [...], "events": [...]} (see below)')
    .requiredOption('--grants <n>', `number of grant decisions, 0..${MAX_SIMULATED_GRANTS}`)
    .addHelpText('after', `
Workload:
  {"nodes":  [{"key": "a", "priority": 3, "count": 5000}, ...],
   "events": [{"after_grants": 1000, "admit": {"key": "b", "priority": 3, "count": 100}},
              {"after_grants": 2000, "pause_key": "b"},
              {"after_grants": 3000, "resume_key": "b"}]}
  nodes are admitted in order before the first grant; an event fires once N grants were made.
  Each grant is one decision whose Work completes at once (capacity never binds). A key is
  eligible while it has backlog and is not paused; a resumed or refilled key re-enters at the
  current virtual time (no idle credit).

Output (--json): {"ok": true, "mode", "requested", "granted", "stopped",
  "grants": [{"priority", "key"}, ...]   the full sequence in grant order,
  "shares": [{"level": "class"|"key", "priority", "key", "weight", "grants", "target_share",
              "actual_share", "max_prefix_deviation", "longest_zero_service"}, ...]}
  target_share: the weighted share owed over the decisions at which the row was eligible;
  max_prefix_deviation: max |granted - owed| over all prefixes, in grants;
  longest_zero_service: the longest run of decisions at which the row was eligible but unserved.

Errors: usage (exit 2: missing option, bad --grants); settings_invalid / workload_invalid with the
property path, settings_not_found / workload_not_found (exit 3).`)
    .action(ctx.action(async (g, opts: { settings: string; workload: string; grants: string }) => {
      await runSimulate(ctx.io, { settings: opts.settings, workload: opts.workload, grants: parseGrants(opts.grants), json: g.json === true });
    }));
};
