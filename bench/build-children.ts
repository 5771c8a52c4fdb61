/**
 * The bench's replay children compiled as the CLI is (bin/build.js: one esbuild ESM bundle for
 * Node 20, the replay worker an entry beside its chunks), so their ratios measure the code users
 * run. Run from source through tsx instead, the process also holds tsx's transformed sources
 * with their inline source maps, megabytes of script text, and with that much more text loaded
 * threaded replay measured 8-10% faster than the CLI's code on this machine (docs/performance.md,
 * "Replay: twelfth round").
 * Dependencies stay in node_modules (the hot path uses none of them). Rebuilt on every bench
 * run, into dist/bench (not committed).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export interface BenchChildren {
  /** bench/replay-child.ts, compiled. */
  child: string;
  /** bench/replay-threads.ts, compiled. */
  threads: string;
}

export async function buildChildren(root: string): Promise<BenchChildren> {
  const outdir = join(root, 'dist', 'bench');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { 'replay-child': 'bench/replay-child.ts', 'replay-threads': 'bench/replay-threads.ts', 'verify-worker': 'lib/replay/verify-worker.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir,
    logLevel: 'warning',
  });
  return { child: join(outdir, 'replay-child.js'), threads: join(outdir, 'replay-threads.js') };
}
