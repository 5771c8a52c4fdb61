/**
 * SLOW (about 30-60 s; needs the npm registry or a warm npm cache): the package
 * people install. `npm pack` builds the tarball through `prepack` (the compiled
 * CLI under dist/, no TypeScript); it is installed into a temporary global
 * prefix exactly as `npm i -g ./fairway-*.tgz` does, and the installed
 * `fairway` runs from there: --version, demo + verify of a ledger, and the
 * console's help. The CLI alone installs without Next.js, React or Mermaid.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const work = mkdtempSync(join(tmpdir(), 'fairway-pack-'));
const prefix = join(work, 'prefix');
const fairway = join(prefix, 'bin', 'fairway');
let packed: string[] = [];

function npm(args: string[], cwd = ROOT): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
}

function run(...args: string[]) {
  // A clean environment without the repository's node_modules on any path: only the installed package.
  const r = spawnSync(fairway, args, { cwd: work, encoding: 'utf8', env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: work } as unknown as NodeJS.ProcessEnv });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the packed CLI installs and runs from a global prefix (slow: npm pack + npm i -g)', () => {
  beforeAll(() => {
    const report = JSON.parse(npm(['pack', '--json', '--pack-destination', work])) as { filename: string; files: { path: string }[] }[];
    packed = report[0]!.files.map((f) => f.path);
    npm(['install', '--global', '--prefix', prefix, '--prefer-offline', join(work, report[0]!.filename)], work);
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships the compiled CLI and no tests, e2e, bench, fixtures or TypeScript sources', () => {
    expect(packed).toContain('bin/fairway.js');
    expect(packed).toContain('dist/cli.json');
    expect(packed.some((p) => /^dist\/cli-[0-9a-f]+\/main\.js$/.test(p))).toBe(true);
    expect(packed.filter((p) => /^(tests|e2e|bench|examples|engine|lib|cli|mcp|app|components)\//.test(p) || /\.test\.|fixtures|\.tsx?$/.test(p))).toEqual([]);
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

  it('fairway console --help works; the console itself is an optional part not installed with the CLI (console_not_installed)', () => {
    const help = run('console', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: fairway console');
    const started = run('console', '--json', '--port', '0');
    expect(started.code).toBe(2);
    expect(JSON.parse(started.out)).toMatchObject({ ok: false, error: { code: 'console_not_installed' } });
  });

  it('installs without Next.js, React or Mermaid', () => {
    const modules = join(prefix, 'lib', 'node_modules', pkg.name, 'node_modules');
    for (const name of ['next', 'react', 'react-dom', 'mermaid', 'ink', 'tsx', 'typescript']) expect(existsSync(join(modules, name)), name).toBe(false);
    expect(existsSync(join(modules, 'commander'))).toBe(true);
  });
});
