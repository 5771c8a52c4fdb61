/**
 * SLOW (about 1-2 min, more when the console's build is stale; needs the npm
 * registry or a warm npm cache for the CLI's unbundled dependencies): the
 * packages people install, installed as people install them.
 *
 * `npm pack` builds the CLI tarball through `prepack` (the compiled CLI under
 * dist/, no TypeScript); it is installed into a temporary global prefix exactly
 * as `npm i -g ./fairway-*.tgz` does, and the installed `fairway` runs from
 * there: --version, demo + verify of a ledger, the console's help, the keyboard
 * browser. Then the console package (`npm run pack:console`: the clone's console
 * build, reused when current, in its standalone form) is installed beside it
 * with the npm registry switched off (`--offline`), and the installed
 * `fairway console` serves its pages, signs an administrator in and publishes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { CONSOLE_PACKAGE } from '../../lib/console/locate.ts';
import { enginesRefused, packConsole } from '../../scripts/pack-console.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; engines: { node: string } };
const work = mkdtempSync(join(tmpdir(), 'fairway-pack-'));
const prefix = join(work, 'prefix');
const fairway = join(prefix, 'bin', 'fairway');
const installed = join(prefix, 'lib', 'node_modules', pkg.name);
const consoleRoot = join(prefix, 'lib', 'node_modules', ...CONSOLE_PACKAGE.split('/'));
/** Only the installed packages: no repository node_modules, no TypeScript loader, a scratch HOME. */
const ENV = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: work } as unknown as NodeJS.ProcessEnv;
let packed: string[] = [];
let cliInstall = '';

function npm(args: string[], cwd = ROOT): { out: string; err: string } {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return { out: r.stdout, err: r.stderr };
}

function run(...args: string[]) {
  const r = spawnSync(fairway, args, { cwd: work, encoding: 'utf8', env: ENV });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function git(...args: string[]): Buffer {
  return spawnSync('git', args, { env: ENV }).stdout;
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed CLI installs and runs from a global prefix (slow: npm pack + npm i -g)', () => {
  beforeAll(() => {
    const report = JSON.parse(npm(['pack', '--json', '--pack-destination', work]).out) as { filename: string; files: { path: string }[] }[];
    packed = report[0]!.files.map((f) => f.path);
    cliInstall = npm(['install', '--global', '--prefix', prefix, '--prefer-offline', join(work, report[0]!.filename)], work).err;
  }, 240_000);

  it('ships the compiled CLI and no tests, e2e, bench, fixtures or TypeScript sources', () => {
    expect(packed).toContain('bin/fairway.js');
    expect(packed).toContain('dist/cli.json');
    expect(packed.some((p) => /^dist\/cli-[0-9a-f]+\/main\.js$/.test(p))).toBe(true);
    const own = packed.filter((p) => !p.startsWith('node_modules/'));
    expect(own.filter((p) => /^(tests|e2e|bench|examples|engine|lib|cli|mcp|app|components|packages|scripts)\//.test(p) || /\.test\.|fixtures|\.tsx?$/.test(p))).toEqual([]);
  });

  it('installs without an engines warning: every installed package accepts the oldest Node that engines.node admits', () => {
    expect(cliInstall).not.toContain('EBADENGINE');
    expect(enginesRefused(installed, pkg.engines.node)).toEqual([]);
    // The GitHub client travels in the tarball with the lockfile's versions (its content-type is the
    // Node 20 one the root `overrides` pins; resolved afresh it would be content-type@3, Node >= 22).
    expect(packed).toContain('node_modules/@octokit/request/node_modules/content-type/package.json');
  });

  it('fairway --version prints the package version', () => {
    expect(run('--version')).toMatchObject({ code: 0, out: `${pkg.version}\n` });
  });

  it('fairway verify validates a ledger written by the installed CLI and rejects a tampered copy', () => {
    expect(run('demo', '--out', 'demo.jsonl').code).toBe(0);
    const bytes = readFileSync(join(work, 'demo.jsonl'));
    const expected = replayLedger(new Uint8Array(bytes));
    const ok = run('verify', '--ledger', 'demo.jsonl', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ ok: true, tip: expected.tip, commits: expected.commitCount });
    writeFileSync(join(work, 'tampered.jsonl'), bytes.toString('utf8').replace('"work_id":"', '"work_id":"x'));
    const bad = run('verify', '--ledger', 'tampered.jsonl', '--json');
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.out)).toMatchObject({ ok: false });
  });

  it('fairway console --help works; without the console package it answers console_not_installed and names the one install command', () => {
    const help = run('console', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: fairway console');
    expect(help.out).toContain('@fairway/console');
    const started = run('console', '--json', '--port', '0');
    expect(started.code).toBe(2);
    const error = JSON.parse(started.out).error as { code: string; message: string };
    expect(error.code).toBe('console_not_installed');
    expect(error.message).toContain(`\`npm i -g ./fairway-console-${pkg.version}.tgz\``);
  });

  it('fairway tui runs from the installed CLI alone: ink and React come with it (terminal check without a TTY; first screen and quit in a pseudo-terminal)', () => {
    const piped = run('tui', '--ledger', 'demo.jsonl', '--json');
    expect(JSON.parse(piped.out).error.code).toBe('option_invalid');
    const noTty = run('tui', '--ledger', 'demo.jsonl');
    expect(noTty.code).not.toBe(0);
    expect(noTty.err).toContain('terminal_not_interactive');
    // util-linux `script` gives the TUI a real terminal; `q` quits it.
    const tty = spawnSync('script', ['-qec', `stty cols 100 rows 30; ${fairway} tui --ledger demo.jsonl`, '/dev/null'], {
      cwd: work, env: ENV, encoding: 'utf8', input: 'q', timeout: 60_000,
    });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain('q quit');
  }, 90_000);

  it('installs without Next.js, React, ink or Mermaid', () => {
    const modules = join(installed, 'node_modules');
    for (const name of ['next', 'react', 'react-dom', 'mermaid', 'ink', 'tsx', 'typescript']) expect(existsSync(join(modules, name)), name).toBe(false);
    expect(existsSync(join(modules, 'commander'))).toBe(true);
  });
});

describe('the console package installed beside it starts with `fairway console` (slow: reuses or makes the console build)', () => {
  const token = 'install-test-admin-token-0123456789';
  let url = '';
  let demo = '';
  let child: ReturnType<typeof spawn> | null = null;
  let consoleInstall = '';
  let startOutput = '';

  beforeAll(async () => {
    const made = await packConsole({ destination: work, log: () => {} });
    // --offline: nothing may be fetched; everything the console runs is in its tarball.
    consoleInstall = npm(['install', '--global', '--prefix', prefix, '--offline', made.tarball], work).err;
    const state = join(work, 'console-state.json');
    child = spawn(fairway, ['console', '--demo', '--admin', '--port', '0'], {
      cwd: work,
      env: { ...ENV, FAIRWAY_CONSOLE_TOKEN: token, FAIRWAY_CONSOLE_STATE_FILE: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    const started = Date.now();
    while (!existsSync(state)) {
      if (child.exitCode !== null) throw new Error(`fairway console exited ${child.exitCode}:\n${output}`);
      if (Date.now() - started > 120_000) throw new Error(`fairway console did not start in 120 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    ({ url, demo_repository: demo } = JSON.parse(readFileSync(state, 'utf8')) as { url: string; demo_repository: string });
    startOutput = output;
  }, 600_000);

  afterAll(() => {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL');
  });

  it('installs offline with no dependency to fetch and no install script, beside the CLI, and carries no devDependencies', () => {
    expect(consoleInstall).not.toMatch(/EBADENGINE|install-scripts/);
    const manifest = JSON.parse(readFileSync(join(consoleRoot, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; bundleDependencies: string[]; engines: { node: string } };
    expect(manifest.version).toBe(pkg.version);
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...manifest.bundleDependencies].sort());
    for (const name of ['next', 'react', 'react-dom']) expect(existsSync(join(consoleRoot, 'node_modules', name, 'package.json')), name).toBe(true);
    for (const name of ['typescript', 'tailwindcss', '@tailwindcss/postcss', 'postcss', 'mermaid', 'eslint', 'sharp', 'fairway']) {
      expect(existsSync(join(consoleRoot, 'node_modules', name)), name).toBe(false);
    }
    expect(existsSync(join(installed, 'node_modules', 'next')), 'the CLI itself still has no Next.js').toBe(false);
  });

  it('every package the console ships accepts the oldest Node its engines.node admits, which is no older than the CLI\'s', () => {
    const range = (JSON.parse(readFileSync(join(consoleRoot, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(enginesRefused(consoleRoot, range)).toEqual([]);
    expect(enginesRefused(consoleRoot, pkg.engines.node).length, 'Next.js needs a newer Node than the CLI: the console says so in its own engines').toBeGreaterThan(0);
  });

  it('starts without Next.js warnings (it is handed the build\'s own configuration, as the standalone server is)', () => {
    expect(startOutput).toContain('Fairway console on');
    expect(startOutput).not.toMatch(/⚠|does not work with|warn/i);
  });

  it('serves the overview and the live tip of the demo queue, the same tip the ledger replays to', async () => {
    const ledger = git('-C', demo, 'show', 'work-queue:work-queue.jsonl');
    const tip = await fetch(`${url}/api/tip`);
    expect(tip.status).toBe(200);
    const body = (await tip.json()) as { ok: boolean; tip: string; commits: number };
    expect(body).toMatchObject({ ok: true, tip: replayLedger(new Uint8Array(ledger)).tip });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="demo-banner"');
    const css = /href="(\/_next\/static\/[^"]+\.css)"/.exec(html)?.[1];
    expect(css, 'the page links its stylesheet').toBeDefined();
    expect((await fetch(`${url}${css}`)).status).toBe(200);
  }, 60_000);

  it('signs in with the start-up login token (administrator, started with --admin) and publishes an administrator action', async () => {
    const headers = { origin: url, 'content-type': 'application/json' };
    const action = JSON.stringify({ control: 'admission_paused', value: true, reason: 'install.check' });
    expect((await fetch(`${url}/api/admin/control`, { method: 'POST', headers, body: action })).status).toBe(401);

    const jar = new Map<string, string>();
    const keep = (r: Response) => {
      for (const c of r.headers.getSetCookie()) jar.set(c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1).split(';')[0]!);
      return r;
    };
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const { csrfToken } = (await keep(await fetch(`${url}/api/auth/csrf`)).json()) as { csrfToken: string };
    const form = new URLSearchParams({ token, csrfToken, callbackUrl: '/', json: 'true' });
    keep(await fetch(`${url}/api/auth/callback/token`, { method: 'POST', headers: { origin: url, cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' }, body: form, redirect: 'manual' }));
    const session = (await (await fetch(`${url}/api/auth/session`, { headers: { cookie: cookie() } })).json()) as { user?: { role?: string } };
    expect(session.user?.role).toBe('administrator');

    const published = await fetch(`${url}/api/admin/control`, { method: 'POST', headers: { ...headers, cookie: cookie() }, body: action });
    expect(published.status).toBe(200);
    expect(await published.json()).toMatchObject({ ok: true, status: 'committed' });
    const bytes = git('-C', demo, 'show', 'work-queue:work-queue.jsonl');
    const after = replayLedger(new Uint8Array(bytes));
    expect(after.state.controls.admission_paused).toBe(true);
    writeFileSync(join(work, 'published.jsonl'), bytes);
    const verified = run('verify', '--ledger', 'published.jsonl', '--json');
    expect(JSON.parse(verified.out)).toMatchObject({ ok: true, tip: after.tip });
  }, 60_000);

  it('stops on SIGTERM and removes its demo repository', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(demo)).toBe(false);
  }, 30_000);
});
