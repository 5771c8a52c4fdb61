/**
 * `fairway replay`: replay a ledger and print the projection. Table: a summary.
 * `--json` / `--format json`: the full authoritative projection (`fairway.projection/1`,
 * docs/projection-json.md); `--format jsonl`: the same records one per line;
 * `--output FILE` writes the document to FILE instead of stdout (large ledgers).
 */
import { summarize, type Projection } from '../../engine/replay/index.ts';
import type { CommandModule } from '../context.ts';
import { formatOf, formatOption } from '../format.ts';
import { printJson, type Io } from '../output.ts';
import { writeOutputFile } from '../output-file.ts';
import { parseAsOf } from '../parse.ts';
import { projectionDocument, projectionRecords } from '../projection-json.ts';
import { readSource } from '../source.ts';

export function replaySummaryLines(projection: Projection): string[] {
  const s = summarize(projection);
  const states = Object.entries(s.works.by_state).map(([k, v]) => `${k} ${v}`).join(', ');
  const native = Object.values(s.reservations.native_outstanding).reduce((a, b) => a + b, 0);
  const logical = Object.values(s.reservations.logical_outstanding).reduce((a, b) => a + b, 0);
  return [
    `tip         ${s.tip ?? '(empty)'} (${s.commits} commits)`,
    `policy      ${s.policy ? `${s.policy.epoch} (${s.policy.mode})` : '-'}`,
    `controls    admission ${s.controls.admission_paused ? 'PAUSED' : 'open'}, grants ${s.controls.grants_paused ? 'PAUSED' : 'open'}`,
    `work        ${s.works.total}: ${states}`,
    `claims      ${s.claims.total}: open ${s.claims.open}, completed ${s.claims.completed}, cancelled ${s.claims.cancelled}`,
    `reserved    logical ${logical}, native ${native}`,
    `barriers    pending ${s.barriers.pending}, verified ${s.barriers.verified}, failed ${s.barriers.failed}`,
  ];
}

/** `at` of the tip commit (null for an empty projection). */
function tipAt(p: Projection): number | null {
  const last = p.commits.at(-1);
  return last === undefined ? null : last.at;
}

export async function replay(io: Io, opts: { projection: Projection; format: string; output?: string; payloads?: boolean; asOf?: number }): Promise<void> {
  const { projection } = opts;
  // Readiness is evaluated at the tip's decision time unless --as-of says otherwise: the
  // document is then a function of the ledger alone (any process prints the same bytes).
  const asOf = opts.asOf ?? tipAt(projection) ?? 0;
  let text: string;
  if (opts.format === 'table') text = `${replaySummaryLines(projection).join('\n')}\n`;
  else {
    const doc = projectionDocument(projection, asOf, { payloads: opts.payloads === true });
    text = opts.format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : `${[...projectionRecords(doc)].map((r) => JSON.stringify(r)).join('\n')}\n`;
  }
  if (opts.output === undefined) {
    io.out(text);
    return;
  }
  await writeOutputFile(opts.output, text);
  const bytes = Buffer.byteLength(text);
  if (opts.format === 'table') io.out(`wrote ${bytes} bytes to ${opts.output}`);
  else printJson(io, { ok: true, output: opts.output, format: opts.format, bytes, tip: projection.tip });
}

export const registerReplay: CommandModule = (program, ctx) => {
  program.command('replay')
    .alias('read')
    .description('Replay a ledger and print the projection: a summary, or with --json the full authoritative state (Work, Claims, groups, reservations, barriers, observations, controls, policy, requests).')
    .addOption(formatOption())
    .option('--output <file>', 'write the output to <file> instead of stdout (stdout then gets a one-line confirmation)')
    .option('--with-payloads', 'include each Work\'s admitted definition (payload) in the JSON projection')
    .option('--as-of <ms|now>', 'evaluate readiness at this time (Unix ms, or now; default: the tip commit\'s time, so the output depends on the ledger only)')
    .addHelpText('after', `
--json (or --format json) prints the full authoritative projection, schema fairway.projection/1
(docs/projection-json.md): {"ok", "schema", "as_of", "tip", "commits", "repository", "summary",
"policy", "policy_history", "controls", "envelope", "works" [state, readiness, reason, blocking_path,
owner, ...], "graphs", "claims", "dispatch_groups", "reservations", "barriers", "observations",
"latest_observations", "deployments", "fairness", "requests"}. --format jsonl prints one
{"type": "queue" | "graph" | "work" | "claim" | "dispatch_group" | "barrier" | "observation" | "request", ...}
record per line.`)
    .action(ctx.action(async (g, o: { format?: string; output?: string; withPayloads?: boolean; asOf?: string }) => {
      const format = formatOf(g, o);
      // One --as-of rule for every command (cli/parse.ts parseAsOf: invalid_as_of), plus `now`.
      const asOf = o.asOf === undefined ? undefined : o.asOf === 'now' ? Date.now() : parseAsOf(o.asOf, Date.now());
      await replay(ctx.io, { projection: await readSource(g).load(), format, ...(o.output !== undefined && { output: o.output }), ...(asOf !== undefined && { asOf }), payloads: o.withPayloads === true });
    }));
};
