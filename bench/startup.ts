/**
 * CLI start-up (docs/performance.md "CLI start-up"): whole processes against
 * `node -e 0` on the same machine, interleaved, medians, as wall time and as the
 * process's own CPU time (user + system, read at exit by a one-line preload that
 * every measured process gets, `node -e 0` included). The machine is shared, so
 * the ratios are the figures; absolute milliseconds are printed beside them.
 *
 * Rows: `fairway --help`, `fairway --version`, and each command's fixed start-up,
 * `fairway <command> --help` (node, the CLI's entry, the command's own module and
 * everything it imports, no I/O), of which the slowest and the median are
 * reported. `bin` chooses the entry: the clone's bin/fairway.js (what `npx
 * fairway` runs) or the one an installed tarball put on a prefix.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../cli/commands/index.ts';

export interface StartupRow {
  command: string;
  /** Wall time, median. */
  medianMs: number;
  nodeMs: number;
  overNode: number;
  extraMs: number;
  /** The process's own CPU time (user + system), median, and `node -e 0`'s. */
  cpuMs: number;
  nodeCpuMs: number;
  overNodeCpu: number;
}

export interface StartupOptions {
  /** The `fairway` entry script (default: root/bin/fairway.js); a bin symlink is followed. */
  bin?: string;
  /** Prefix of the row labels (e.g. `installed: `). */
  label?: string;
  /** Also measure `<command> --help` of every command (slowest and median rows). */
  commands?: boolean;
  /** With `commands`: a row for every command instead of the slowest and the median. */
  each?: boolean;
}

/** Prints the process's CPU time at exit; the same for every measured process. */
const PRELOAD = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

interface Sample { wall: number; cpu: number }

function time(args: string[], cwd: string): Sample {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', PRELOAD, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const cpu = /cpu-us (\d+)/.exec(r.stderr)?.[1];
  if (cpu === undefined) throw new Error(`node ${args.join(' ')} printed no CPU time`);
  return { wall, cpu: Number(cpu) / 1000 };
}

/** Every command name the CLI registers (aliases aside). */
export const COMMAND_NAMES: string[] = COMMANDS.flatMap((e) => e.commands.map((c) => c.name));

export function runStartupBench(root: string, runs = 7, options: StartupOptions = {}): StartupRow[] {
  const bin = realpathSync(options.bin ?? join(root, 'bin', 'fairway.js'));
  const label = options.label ?? '';
  const cases: Array<[string, string[]]> = [[`${label}fairway --help`, [bin, '--help']], [`${label}fairway --version`, [bin, '--version']]];
  if (options.commands === true) for (const name of COMMAND_NAMES) cases.push([`${label}fairway ${name} --help`, [bin, name, '--help']]);
  for (const [, args] of cases.slice(0, 2)) time(args, root); // the first run may build dist/ (bin/build.js)
  const node: Sample[] = [];
  const samples = cases.map(() => [] as Sample[]);
  for (let i = 0; i < runs; i++) {
    node.push(time(['-e', '0'], root));
    cases.forEach(([, args], k) => samples[k]!.push(time(args, root)));
  }
  const nodeMs = median(node.map((s) => s.wall));
  const nodeCpuMs = median(node.map((s) => s.cpu));
  const rows = cases.map(([command], k): StartupRow => {
    const m = median(samples[k]!.map((s) => s.wall));
    const c = median(samples[k]!.map((s) => s.cpu));
    return { command, medianMs: m, nodeMs, overNode: m / nodeMs, extraMs: m - nodeMs, cpuMs: c, nodeCpuMs, overNodeCpu: c / nodeCpuMs };
  });
  if (options.commands !== true || options.each === true) return rows;
  // Commands: the slowest (by CPU time, steadier than wall time on a shared machine) and the median.
  const perCommand = rows.slice(2).sort((a, b) => a.cpuMs - b.cpuMs);
  const slowest = perCommand[perCommand.length - 1]!;
  const mid = perCommand[perCommand.length >> 1]!;
  return [
    ...rows.slice(0, 2),
    { ...slowest, command: `${slowest.command} (slowest of ${perCommand.length} commands)` },
    { ...mid, command: `${mid.command} (median command)` },
  ];
}

/** The table `npm run bench` prints. */
export function startupTable(rows: StartupRow[]): string[][] {
  return rows.map((r) => [r.command, r.medianMs.toFixed(0), r.nodeMs.toFixed(0), `${r.overNode.toFixed(2)}×`, r.cpuMs.toFixed(0), r.nodeCpuMs.toFixed(0), `${r.overNodeCpu.toFixed(2)}×`]);
}
export const STARTUP_HEADER = ['command', 'wall ms', 'node -e 0 ms', 'wall ratio', 'CPU ms', 'node CPU ms', 'CPU ratio'];

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(new URL(import.meta.url).pathname)) {
  // npx tsx bench/startup.ts [--each] [--runs=N]: --each prints every command's row, not only the slowest and the median.
  const root = new URL('..', import.meta.url).pathname;
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
  const rows = runStartupBench(root, runs, { commands: true, each: process.argv.includes('--each') });
  const widths = STARTUP_HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => startupTable([r])[0]![i]!.length)));
  for (const cells of [STARTUP_HEADER, ...startupTable(rows)]) console.log(cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}
