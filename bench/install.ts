/**
 * The packages people install (docs/performance.md "Installing"): what `npm pack`
 * makes, how long `npm i -g` of it takes and how much it puts on disk, for the CLI
 * alone and with the console package beside it; how long the installed
 * `fairway console` takes to serve its first page; the Action's dependency install;
 * and CLI start-up in the clone and from the installed tarball (bench/startup.ts).
 * Needs no replay ledger. The console is packed from the clone's console build,
 * built first only when stale (its time is then reported).
 *
 *   npx tsx bench/install.ts [--quick]      (also a section of `npm run bench`)
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packConsole } from '../scripts/pack-console.ts';
import { STARTUP_HEADER, runStartupBench, startupTable, type StartupRow } from './startup.ts';

export interface InstallStep {
  what: string;
  ms: number;
  /** Tarball or installed bytes (apparent size) and files. */
  bytes: number;
  files: number;
  note: string;
}

export interface InstallReport {
  steps: InstallStep[];
  consoleFirstPageMs: number | null;
  startup: StartupRow[];
  errors: string[];
}

const MiB = 2 ** 20;

/** Apparent bytes and file count of a tree (symlinks counted as links, not followed). */
export function treeSize(path: string): { bytes: number; files: number } {
  const st = lstatSync(path);
  if (!st.isDirectory()) return { bytes: st.size, files: 1 };
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(path)) {
    const sub = treeSize(join(path, entry));
    bytes += sub.bytes;
    files += sub.files;
  }
  return { bytes, files };
}

function timed<T>(f: () => T): { value: T; ms: number } {
  const t = performance.now();
  const value = f();
  return { value, ms: performance.now() - t };
}

function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-4).join(' | ')}`);
  return r.stdout;
}

/** Starts the installed console on the demo queue; resolves with the time until GET / answered 200. */
async function firstPage(fairway: string, work: string, env: NodeJS.ProcessEnv): Promise<number> {
  const state = join(work, 'bench-console-state.json');
  const started = performance.now();
  const child = spawn(fairway, ['console', '--demo', '--port', '0'], { cwd: work, env: { ...env, FAIRWAY_CONSOLE_STATE_FILE: state }, stdio: 'ignore' });
  try {
    while (!existsSync(state)) {
      if (child.exitCode !== null) throw new Error(`fairway console exited ${child.exitCode}`);
      if (performance.now() - started > 180_000) throw new Error('fairway console did not start in 180 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const { url } = JSON.parse(readFileSync(state, 'utf8')) as { url: string };
    const page = await fetch(`${url}/`);
    await page.arrayBuffer();
    if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
    return performance.now() - started;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function runInstallBench(root: string, options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<InstallReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const runs = options.quick === true ? 3 : 5;
  const work = mkdtempSync(join(tmpdir(), 'fairway-install-bench-'));
  const prefix = join(work, 'prefix');
  const modules = join(prefix, 'lib', 'node_modules');
  const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: work } as unknown as NodeJS.ProcessEnv;
  const steps: InstallStep[] = [];
  const errors: string[] = [];
  let consoleFirstPageMs: number | null = null;
  const startup: StartupRow[] = [];
  try {
    log('install: npm pack (CLI) ...');
    const pack = timed(() => JSON.parse(npm(['pack', '--json', '--pack-destination', work], root)) as Array<{ filename: string; size: number; entryCount: number }>);
    const cliTarball = join(work, pack.value[0]!.filename);
    steps.push({ what: 'npm pack: CLI tarball', ms: pack.ms, bytes: pack.value[0]!.size, files: pack.value[0]!.entryCount, note: 'prepack compiles dist/' });

    log('install: npm i -g the CLI tarball ...');
    const cli = timed(() => npm(['install', '--global', '--prefix', prefix, '--prefer-offline', cliTarball], work));
    const cliSize = treeSize(join(modules, 'fairway'));
    steps.push({ what: 'npm i -g fairway-*.tgz (CLI alone)', ms: cli.ms, ...cliSize, note: 'warm npm cache (--prefer-offline)' });

    log('install: pack the console package (reuses the console build when current) ...');
    const consolePack = await (async () => {
      const t = performance.now();
      const p = await packConsole({ root, destination: work, log });
      return { p, ms: performance.now() - t };
    })();
    steps.push({
      what: 'npm run pack:console: console tarball',
      ms: consolePack.ms,
      bytes: consolePack.p.packedBytes,
      files: consolePack.p.files,
      note: consolePack.p.built ? `includes next build ${(consolePack.p.buildMs / 1000).toFixed(0)} s` : 'console build reused',
    });

    log('install: npm i -g the console tarball beside the CLI (--offline) ...');
    const con = timed(() => npm(['install', '--global', '--prefix', prefix, '--offline', consolePack.p.tarball], work));
    const consoleSize = treeSize(join(modules, '@fairway', 'console'));
    steps.push({ what: 'npm i -g fairway-console-*.tgz (offline)', ms: con.ms, ...consoleSize, note: 'nothing fetched: bundled' });
    steps.push({ what: 'CLI + console installed', ms: cli.ms + con.ms, bytes: cliSize.bytes + consoleSize.bytes, files: cliSize.files + consoleSize.files, note: 'sum of the two' });

    log('install: installed fairway console, time to the first page ...');
    try {
      consoleFirstPageMs = await firstPage(join(prefix, 'bin', 'fairway'), work, env);
    } catch (e) {
      errors.push(`console first page: ${(e as Error).message}`);
    }

    log('install: the Action\'s dependencies (npm ci --omit=dev --ignore-scripts) ...');
    const action = join(work, 'action');
    mkdirSync(action);
    for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(root, f), join(action, f));
    const ci = timed(() => npm(['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline'], action));
    steps.push({ what: 'Action: npm ci --omit=dev --ignore-scripts', ms: ci.ms, ...treeSize(join(action, 'node_modules')), note: 'warm npm cache; uncached: +download' });

    log('install: start-up, clone and installed ...');
    startup.push(...runStartupBench(root, runs, { commands: true }));
    startup.push(...runStartupBench(root, runs, { bin: join(prefix, 'bin', 'fairway'), label: 'installed: ', commands: true }));
  } catch (e) {
    errors.push((e as Error).message);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { steps, consoleFirstPageMs, startup, errors };
}

export function formatInstallBench(r: InstallReport, table: (header: string[], body: string[][]) => string): string {
  const out = [
    'Installing (npm pack, npm i -g into a temporary prefix; sizes are apparent bytes on disk)',
    table(['step', 'seconds', 'MiB', 'files', 'note'], r.steps.map((s) => [s.what, (s.ms / 1000).toFixed(1), (s.bytes / MiB).toFixed(1), String(s.files), s.note])),
    `Installed \`fairway console\` (demo queue): first page served ${r.consoleFirstPageMs === null ? 'n/a' : `${(r.consoleFirstPageMs / 1000).toFixed(1)} s`} after start (seeding the demo queue included)`,
  ];
  if (r.startup.length > 0) {
    out.push('', 'CLI start-up: whole processes, interleaved with `node -e 0`, medians; CPU = the process\'s own user+system time (goal: --help ≤ 0.15 s, any command\'s fixed start-up ≤ 0.2 s, i.e. about 3× and 4× `node -e 0` at 0.05 s)');
    out.push(table(STARTUP_HEADER, startupTable(r.startup)));
  }
  for (const e of r.errors) out.push(`! ${e}`);
  return out.join('\n');
}

if (process.argv[1] !== undefined && process.argv[1].endsWith('bench/install.ts')) {
  const root = new URL('..', import.meta.url).pathname;
  const report = await runInstallBench(root, { quick: process.argv.includes('--quick') });
  const table = (header: string[], body: string[][]) => {
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
    return [header, widths.map((w) => '-'.repeat(w)), ...body].map((row) => row.map((c, i) => (i === 0 || i === row.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
  };
  console.log(formatInstallBench(report, table));
}
