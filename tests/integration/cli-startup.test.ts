/**
 * The `fairway` bin as users run it (`node bin/fairway.js`): the compiled
 * build under dist/ (no TypeScript at run time), `--version`, and `--help`
 * listing every command without loading any command module.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/commands/index.ts';
import { locateConsole } from '../../lib/console/locate.ts';
import { CONSOLE_ROOT } from '../../lib/console/server.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const run = (...args: string[]) => execFileSync(process.execPath, ['bin/fairway.js', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('fairway bin start-up', () => {
  it('prints the package version for --version (a JSON object under --json)', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    expect(run('--version').trim()).toBe(pkg.version);
    // Under --json, one JSON object like every other answer.
    expect(JSON.parse(run('--json', '--version'))).toEqual({ ok: true, version: pkg.version });
    expect(JSON.parse(run('-V', '--json'))).toEqual({ ok: true, version: pkg.version });
    // --json with no command at all: a JSON usage error (exit 2), not the help text.
    const bare = spawnSync(process.execPath, ['bin/fairway.js', '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(bare.status).toBe(2);
    expect(JSON.parse(bare.stdout)).toMatchObject({ ok: false, error: { code: 'command_missing' } });
    // `help X` for a command that does not exist is a usage error like `X` itself; `help verify` is help.
    const unknown = spawnSync(process.execPath, ['bin/fairway.js', '--json', 'help', 'bogus'], { cwd: ROOT, encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, error: { code: 'usage_error' } });
    expect(run('help', 'verify')).toContain('Usage: fairway verify');
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

  it('keeps the console, MCP, TUI, metrics and GitHub client packages off every other command\'s start-up path (static imports of the compiled modules)', () => {
    run('--version');
    const manifest = JSON.parse(readFileSync(`${ROOT}dist/cli.json`, 'utf8')) as { dir: string; modules: Record<string, string> };
    const dir = join(ROOT, 'dist', manifest.dir);
    /** The files and packages a compiled module loads before it runs (static imports only). */
    const closure = (file: string) => {
      const files = new Set<string>();
      const packages = new Set<string>();
      const walk = (f: string) => {
        if (files.has(f)) return;
        files.add(f);
        for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/^import\b[^'"]*?['"]([^'"]+)['"]/gm)) {
          if (m[1]!.startsWith('./')) walk(m[1]!.slice(2));
          else packages.add(m[1]!);
        }
      };
      walk(file);
      // Bundled packages (the TUI's ink and React) show in esbuild's per-file comments.
      const bundled = [...files].flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map((m) => m[1]!));
      return { files, packages: new Set([...packages, ...bundled]) };
    };
    // Octokit loads with a command's first GitHub request (lib/store/github-lazy.ts, GitHubApi, IssuesClient), never at start-up.
    const heavy = /^(next|react|react-dom|ink|mermaid|prom-client|@modelcontextprotocol\/.*|@octokit\/.*)$/;
    const main = closure(manifest.modules['cli/main.ts']!);
    expect([...main.packages].filter((p) => !p.startsWith('node:'))).toEqual(['commander']);
    const commandModules = Object.keys(manifest.modules).filter((m) => m.startsWith('cli/commands/'));
    expect(commandModules.length).toBeGreaterThanOrEqual(COMMANDS.length);
    for (const module of commandModules) {
      const loaded = [...closure(manifest.modules[module]!).packages].filter((p) => heavy.test(p));
      expect(loaded, module).toEqual([]); // the tui, mcp and console commands load theirs by dynamic import
    }
    // The parts themselves do load them, lazily: the TUI's chunk carries ink and React.
    expect([...closure(manifest.modules['cli/tui/run.ts']!).packages]).toEqual(expect.arrayContaining(['ink', 'react']));
  });

  it('a clone after npm ci has the optional console part (app sources and Next.js); a directory without it or the console package does not', () => {
    expect(locateConsole(CONSOLE_ROOT)).toEqual({ kind: 'clone', root: CONSOLE_ROOT });
    expect(locateConsole(`${ROOT}dist`)).toMatchObject({ kind: 'unavailable', code: 'console_not_installed' });
  });
});
