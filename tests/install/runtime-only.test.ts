/**
 * SLOW (about 10-20 s; needs the npm registry or a warm npm cache): a checkout
 * installed the way the reusable Action installs it (action.yml:
 * `npm ci --omit=dev --ignore-scripts`, no devDependencies) compiles the CLI on
 * first use and runs it. The build compiles the npm packages it runs into dist/
 * (bin/build.js); the TUI's ink and React are devDependencies, so there they
 * stay out and `fairway tui` answers tui_not_installed instead of failing the build.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'fairway-runtime-only-'));
const env = { PATH: process.env.PATH ?? '', HOME: work } as unknown as NodeJS.ProcessEnv;
const run = (...args: string[]) => spawnSync(process.execPath, ['bin/fairway.js', ...args], { cwd: work, encoding: 'utf8', env });

describe('a checkout installed without devDependencies (the Action\'s install)', () => {
  beforeAll(() => {
    // The checkout: the repository's files (tracked and new, not ignored), no node_modules, .next or dist/.
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => f !== '');
    for (const f of files) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(ROOT, f), join(work, f));
    }
    execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: work, stdio: 'ignore' });
  }, 240_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('compiles the CLI on first use and verifies a ledger it wrote', () => {
    expect(run('demo', '--out', 'demo.jsonl').status).toBe(0);
    const verified = run('verify', '--ledger', 'demo.jsonl', '--json');
    expect(verified.status).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
  }, 60_000);

  it('fairway tui answers tui_not_installed there (ink and React are devDependencies), naming what to run', () => {
    const tui = run('tui', '--ledger', 'demo.jsonl');
    expect(tui.status).toBe(2);
    expect(tui.stderr).toContain('tui_not_installed');
    expect(tui.stderr).toContain('npm ci');
  });
});
