/**
 * Where `fairway console` finds its server (docs/console.md "Installing the
 * console"): a clone's own app, or the console package installed beside an
 * installed CLI, of the same version; otherwise a stable code naming the
 * command that installs it. Real directory layouts as npm lays them out
 * (global prefix: `lib/node_modules/fairway` beside `lib/node_modules/@fairway/console`).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PACKAGE_FORMAT, consoleInstallCommand, locateConsole } from './locate.ts';

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

/** A global prefix with the CLI installed at lib/node_modules/fairway; optionally the console beside it. */
function prefix(console?: { version: string; format?: number; build?: boolean }): { cli: string; console: string } {
  const modules = join(mkdtempSync(join(tmpdir(), 'fairway-locate-')), 'lib', 'node_modules');
  const cli = join(modules, 'fairway');
  write(join(cli, 'package.json'), JSON.stringify({ name: 'fairway', version: '1.2.3' }));
  const root = join(modules, '@fairway', 'console');
  if (console !== undefined) {
    write(join(root, 'package.json'), JSON.stringify({ name: '@fairway/console', version: console.version, fairway: { console: console.format ?? CONSOLE_PACKAGE_FORMAT } }));
    if (console.build !== false) write(join(root, '.next', 'BUILD_ID'), 'b1\n');
  }
  return { cli, console: root };
}

describe('locateConsole', () => {
  it('an installed CLI without the console package: console_not_installed, naming the one install command for its own version', () => {
    const { cli } = prefix();
    const found = locateConsole(cli);
    expect(found).toMatchObject({ kind: 'unavailable', code: 'console_not_installed' });
    expect(consoleInstallCommand('1.2.3')).toBe('npm i -g ./fairway-console-1.2.3.tgz');
    expect((found as { message: string }).message).toContain('`npm i -g ./fairway-console-1.2.3.tgz`');
    expect((found as { message: string }).message).toContain('npm ci && npm start');
  });

  it('finds the console package installed beside the CLI (the same global prefix)', () => {
    const { cli, console } = prefix({ version: '1.2.3' });
    expect(locateConsole(cli)).toEqual({ kind: 'package', root: console, version: '1.2.3' });
  });

  it('refuses a console package of another version or layout (console_version_mismatch, naming the matching install)', () => {
    for (const c of [{ version: '1.2.4' }, { version: '1.2.3', format: CONSOLE_PACKAGE_FORMAT + 1 }]) {
      const found = locateConsole(prefix(c).cli);
      expect(found).toMatchObject({ kind: 'unavailable', code: 'console_version_mismatch' });
      expect((found as { message: string }).message).toContain('npm i -g ./fairway-console-1.2.3.tgz');
    }
  });

  it('a console package without its production build is not installed (reinstall)', () => {
    const found = locateConsole(prefix({ version: '1.2.3', build: false }).cli);
    expect(found).toMatchObject({ kind: 'unavailable', code: 'console_not_installed' });
    expect((found as { message: string }).message).toMatch(/no production build.*reinstall/);
  });

  it('a clone (app sources and Next.js beside the CLI) serves its own console, whatever is installed elsewhere', () => {
    const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
    expect(locateConsole(root)).toEqual({ kind: 'clone', root });
  });
});
