/**
 * CLI start-up (issue 13 §2): `fairway --help` and `fairway --version` as whole processes
 * against `node -e 0` on the same machine, interleaved, medians; reported as ratios because the
 * machine is shared (absolute times are noisy).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface StartupRow { command: string; medianMs: number; nodeMs: number; overNode: number; extraMs: number }

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export function runStartupBench(root: string, runs = 7): StartupRow[] {
  const bin = join(root, 'bin', 'fairway.js');
  const commands: Array<[string, string[]]> = [['fairway --help', [bin, '--help']], ['fairway --version', [bin, '--version']]];
  const time = (args: string[]): number => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    return performance.now() - t;
  };
  for (const [, args] of commands) time(args); // first run may build dist/ (bin/build.js)
  const node: number[] = [];
  const samples = commands.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    node.push(time(['-e', '0']));
    commands.forEach(([, args], k) => samples[k]!.push(time(args)));
  }
  const nodeMs = median(node);
  return commands.map(([command], k) => {
    const m = median(samples[k]!);
    return { command, medianMs: m, nodeMs, overNode: m / nodeMs, extraMs: m - nodeMs };
  });
}
