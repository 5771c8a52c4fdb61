/**
 * The browser check `npm test`, `npm run test:e2e` and `.ci/run` run before
 * Playwright (issue 19). Each case runs the real script as a child process in
 * a temporary root with a fake PATH: fake `apt-get`/`sudo` record their calls,
 * a fake `chromium` answers `--version`. Nothing is ever really installed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumChoice, DEFAULT_CHROMIUM } from '../../scripts/ensure-chromium.mjs';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/ensure-chromium.mjs');

const FAKE_CHROMIUM = '#!/bin/sh\necho "Chromium 999.0.1 fake"\n';

interface Root {
  dir: string;
  bin: string;
  chromium: string;
  aptLog: string;
  debianVersion: string;
}

/** A temporary root: bin/ (the only PATH entry), etc/debian_version, usr/bin/ for the browser. */
function makeRoot(opts: { debian?: boolean; aptGet?: 'installs' | 'installs-nothing' | 'fails' | 'absent'; sudo?: boolean } = {}): Root {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-ensure-chromium-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  mkdirSync(join(dir, 'usr', 'bin'), { recursive: true });
  mkdirSync(join(dir, 'etc'));
  const root: Root = { dir, bin, chromium: join(dir, 'usr', 'bin', 'chromium'), aptLog: join(dir, 'apt.log'), debianVersion: join(dir, 'etc', 'debian_version') };
  if (opts.debian !== false) writeFileSync(root.debianVersion, '12.11\n');
  const aptGet = opts.aptGet ?? 'installs';
  if (aptGet !== 'absent') {
    // Only shell built-ins and absolute paths: PATH holds nothing but this bin/.
    // The "package" the fake apt-get installs: a fake chromium copied into usr/bin/.
    writeFileSync(join(dir, 'package-chromium'), FAKE_CHROMIUM);
    const install = aptGet === 'installs'
      ? `  /bin/cp '${join(dir, 'package-chromium')}' '${root.chromium}'\n  /bin/chmod 755 '${root.chromium}'\n`
      : '';
    const body = aptGet === 'fails'
      ? `echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2\nexit 100\n`
      : `if [ "$1" = install ]; then\n${install}  :\nfi\n`;
    writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "DEBIAN_FRONTEND=$DEBIAN_FRONTEND apt-get $*" >> '${root.aptLog}'\n${body}`);
    chmodSync(join(bin, 'apt-get'), 0o755);
  }
  if (opts.sudo === true) {
    writeFileSync(join(bin, 'sudo'), `#!/bin/sh\necho "sudo $*" >> '${root.aptLog}'\nexit 1\n`);
    chmodSync(join(bin, 'sudo'), 0o755);
  }
  return root;
}

function putChromium(root: Root, mode = 0o755, text = FAKE_CHROMIUM): void {
  writeFileSync(root.chromium, text);
  chmodSync(root.chromium, mode);
}

/** Runs the check with only the variables given (never the caller's FAIRWAY_CHROMIUM & co.). */
function check(root: Root, env: { root: boolean; dryRun?: boolean; extra?: Record<string, string> }, script = SCRIPT) {
  const run = spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    cwd: root.dir,
    env: {
      NODE_ENV: 'test',
      PATH: root.bin,
      HOME: root.dir,
      FAIRWAY_CHROMIUM_CANDIDATES: root.chromium,
      FAIRWAY_ASSUME_ROOT: env.root ? '1' : '0',
      FAIRWAY_DEBIAN_VERSION_FILE: root.debianVersion,
      ...(env.dryRun === true ? { FAIRWAY_CHROMIUM_DRY_RUN: '1' } : {}),
      ...env.extra,
    },
  });
  return { status: run.status, out: run.stdout, err: run.stderr, apt: existsSync(root.aptLog) ? readFileSync(root.aptLog, 'utf8') : null };
}

describe('scripts/ensure-chromium.mjs (the browser check before Playwright)', () => {
  it('a usable browser present: exit 0, names it and its version, runs no apt-get', () => {
    const root = makeRoot();
    putChromium(root);
    const r = check(root, { root: true });
    expect(r.status).toBe(0);
    expect(r.out).toBe(`fairway: browser tests use ${root.chromium} (Chromium 999.0.1 fake)\n`);
    expect(r.err).toBe('');
    expect(r.apt).toBeNull();
  });

  it('missing, root on Debian, dry run: prints the one-line notice and the exact apt-get commands, runs none', () => {
    const root = makeRoot();
    const r = check(root, { root: true, dryRun: true });
    expect(r.status).toBe(0);
    expect(r.out.split('\n')).toEqual([
      "fairway: installing Debian's chromium for the browser tests (about a minute) ...",
      'fairway: dry run: apt-get update -qq',
      'fairway: dry run: DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium',
      `fairway: dry run: then check that ${root.chromium} runs \`--version\``,
      '',
    ]);
    expect(r.apt).toBeNull();
    expect(existsSync(root.chromium)).toBe(false);
  });

  it('missing, root on Debian: runs apt-get update once, then the quiet non-interactive install, then checks the installed binary', () => {
    const root = makeRoot({ aptGet: 'installs' });
    const r = check(root, { root: true });
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.apt).toBe('DEBIAN_FRONTEND=noninteractive apt-get update -qq\nDEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium\n');
    expect(r.out).toBe(
      "fairway: installing Debian's chromium for the browser tests (about a minute) ...\n"
      + `fairway: installed ${root.chromium} (Chromium 999.0.1 fake); browser tests use it\n`,
    );
  });

  it('missing, root on Debian, the install leaves no binary: exit 1 naming the path still missing', () => {
    const root = makeRoot({ aptGet: 'installs-nothing' });
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.apt).toContain('apt-get install -y -qq chromium');
    expect(r.err).toBe(`fairway: \`apt-get install chromium\` finished, but ${root.chromium} is still missing.\n`);
  });

  it('missing, root on Debian, apt-get fails (dpkg lock): exit 1 with the failed command and apt output, no install attempted after it', () => {
    const root = makeRoot({ aptGet: 'fails' });
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.apt).toBe('DEBIAN_FRONTEND=noninteractive apt-get update -qq\n');
    expect(r.err).toContain('fairway: `apt-get update -qq` failed (exit 100):\nE: Could not get lock /var/lib/dpkg/lock-frontend');
    expect(r.err).toContain('`npx playwright install` cannot work here');
  });

  it('missing, not root, on Debian: exit 1 with one message naming the exact sudo apt-get command; nothing run', () => {
    const root = makeRoot({ sudo: true });
    const r = check(root, { root: false });
    expect(r.status).toBe(1);
    expect(r.out).toBe('');
    expect(r.apt).toBeNull();
    expect(r.err).toContain(`fairway: the browser tests need Chromium at ${root.chromium}, and it is missing.`);
    expect(r.err).toContain('\n    sudo apt-get update && sudo apt-get install -y chromium\n');
    expect(r.err).toContain('No browser build is ever downloaded: `npx playwright install` cannot work here.');
    expect(r.err).toContain('npm run test:unit');
  });

  it('missing, not root, on Debian without sudo: the command to run as root is su -c', () => {
    const root = makeRoot({ sudo: false });
    const r = check(root, { root: false });
    expect(r.status).toBe(1);
    expect(r.err).toContain("\n    su -c 'apt-get update && apt-get install -y chromium'\n");
    expect(r.apt).toBeNull();
  });

  it('missing, root but not Debian-family (no /etc/debian_version): exit 1 asking for FAIRWAY_CHROMIUM; no apt-get run', () => {
    const root = makeRoot({ debian: false });
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.apt).toBeNull();
    expect(r.err).toContain("Install Chromium with your system's package manager");
    expect(r.err).toContain('FAIRWAY_CHROMIUM=/path/to/chromium npm test');
  });

  it('missing, root with /etc/debian_version but no apt-get on PATH: exit 1, nothing installed', () => {
    const root = makeRoot({ aptGet: 'absent' });
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.err).toContain('FAIRWAY_CHROMIUM=/path/to/chromium npm test');
  });

  it('FAIRWAY_CHROMIUM naming a missing file: exit 1 with an error naming it, no install even as root', () => {
    const root = makeRoot();
    const named = join(root.dir, 'opt', 'chrome');
    const r = check(root, { root: true, extra: { FAIRWAY_CHROMIUM: named } });
    expect(r.status).toBe(1);
    expect(r.apt).toBeNull();
    expect(r.err).toBe(`fairway: FAIRWAY_CHROMIUM=${named} names no file. Point FAIRWAY_CHROMIUM at a Chromium binary, or unset it to use /usr/bin/chromium.\n`);
  });

  it('FAIRWAY_CHROMIUM wins over PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH and the default, and is the browser checked', () => {
    const root = makeRoot();
    putChromium(root);
    const r = check(root, { root: true, extra: { FAIRWAY_CHROMIUM: root.chromium, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: join(root.dir, 'nope') } });
    expect(r.status).toBe(0);
    expect(r.out).toBe(`fairway: browser tests use ${root.chromium} (Chromium 999.0.1 fake)\n`);
  });

  it('PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH naming a missing file: exit 1 naming the variable and the path', () => {
    const root = makeRoot();
    putChromium(root);
    const named = join(root.dir, 'nope');
    const r = check(root, { root: true, extra: { PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: named } });
    expect(r.status).toBe(1);
    expect(r.err).toContain(`PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH=${named} names no file`);
  });

  it('present but not executable: exit 1 with a clear error, no reinstall', () => {
    const root = makeRoot();
    putChromium(root, 0o644);
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.apt).toBeNull();
    expect(r.err).toBe(`fairway: the browser tests cannot use ${root.chromium}: it is not executable.\n`);
  });

  it('present and executable but `--version` fails: exit 1 with its exit code and output', () => {
    const root = makeRoot();
    putChromium(root, 0o755, '#!/bin/sh\necho "error while loading shared libraries: libnss3.so" >&2\nexit 127\n');
    const r = check(root, { root: true });
    expect(r.status).toBe(1);
    expect(r.err).toBe(`fairway: the browser tests cannot use ${root.chromium}: it does not run \`--version\` (exit 127):\nerror while loading shared libraries: libnss3.so.\n`);
  });

  it('run through a symlinked checkout, the check still runs (never a silent exit 0)', () => {
    const root = makeRoot({ sudo: true });
    const link = join(root.dir, 'checkout-scripts');
    symlinkSync(dirname(SCRIPT), link);
    const r = check(root, { root: false }, join(link, 'ensure-chromium.mjs'));
    expect(r.status).toBe(1);
    expect(r.err).toContain('sudo apt-get update && sudo apt-get install -y chromium');
  });

  it('chromiumChoice (what playwright.config.ts launches): overrides in order, else the first existing candidate, else /usr/bin/chromium', () => {
    const root = makeRoot();
    putChromium(root);
    const missing = join(root.dir, 'missing');
    expect(chromiumChoice({ FAIRWAY_CHROMIUM: 'a', PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: 'b', CHROMIUM_PATH: 'c' })).toEqual({ path: 'a', override: 'FAIRWAY_CHROMIUM' });
    expect(chromiumChoice({ FAIRWAY_CHROMIUM: '', PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: 'b', CHROMIUM_PATH: 'c' })).toEqual({ path: 'b', override: 'PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH' });
    expect(chromiumChoice({ CHROMIUM_PATH: 'c' })).toEqual({ path: 'c', override: 'CHROMIUM_PATH' });
    expect(chromiumChoice({ FAIRWAY_CHROMIUM_CANDIDATES: `${missing}:${root.chromium}` })).toEqual({ path: root.chromium, override: null });
    expect(chromiumChoice({ FAIRWAY_CHROMIUM_CANDIDATES: missing })).toEqual({ path: missing, override: null });
    expect(chromiumChoice({})).toEqual({ path: DEFAULT_CHROMIUM, override: null });
  });
});
