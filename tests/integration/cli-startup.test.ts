/**
 * The `fairway` bin as users run it (`node bin/fairway.js`): the compiled
 * build under dist/ (no TypeScript at run time), `--version`, and `--help`
 * listing every command without loading any command module.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { locateConsole } from '../../lib/console/locate.ts';
import { CONSOLE_ROOT } from '../../lib/console/server.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const run = (...args: string[]) => execFileSync(process.execPath, ['bin/fairway.js', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('fairway bin start-up', () => {
  it('prints the package version for --version', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    expect(run('--version').trim()).toBe(pkg.version);
  });

  it('lists every registered command in --help', () => {
    const help = run('--help');
    for (const c of COMMANDS.flatMap((e) => e.commands)) expect(help).toContain(c.term);
  });

  it('runs the compiled build under dist/: plain JavaScript, no TypeScript loader', () => {
    run('--version'); // builds dist/ first if a source changed
    const manifest = JSON.parse(readFileSync(`${ROOT}dist/cli.json`, 'utf8')) as { dir: string; inputs: Record<string, unknown> };
    expect(Object.keys(manifest.inputs)).toContain('cli/main.ts');
    const main = readFileSync(`${ROOT}dist/${manifest.dir}/main.js`, 'utf8');
    expect(main).not.toMatch(/(from|import\() ?['"][^'"]+\.tsx?['"]/);
    expect(readFileSync(`${ROOT}bin/fairway.js`, 'utf8')).not.toMatch(/tsx/);
  });

  it('a clone after npm ci has the optional console part (app sources and Next.js); a directory without it or the console package does not', () => {
    expect(locateConsole(CONSOLE_ROOT)).toEqual({ kind: 'clone', root: CONSOLE_ROOT });
    expect(locateConsole(`${ROOT}dist`)).toMatchObject({ kind: 'unavailable', code: 'console_not_installed' });
  });
});
