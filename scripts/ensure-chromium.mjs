#!/usr/bin/env node
/**
 * Makes sure the browser tests have a usable Chromium before Playwright runs
 * (README "Set-up: the two commands"): `npm test`, `npm run test:e2e` and `.ci/run` all run this check.
 *
 * - A browser named by FAIRWAY_CHROMIUM, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH or
 *   CHROMIUM_PATH (first one set wins) must exist, be executable and answer
 *   `--version`; otherwise a clear error names it. Nothing is installed for it.
 * - Otherwise the system package at /usr/bin/chromium is used. When it is
 *   missing and this process may install system packages (root on a
 *   Debian-family system with apt-get), Debian's `chromium` is installed
 *   (`apt-get update -qq` once, then the install, quietly) and checked.
 *   Otherwise one message names the exact command to run.
 * - A browser build is never downloaded: `npx playwright install` cannot work here.
 *
 * Plain Node, no dependencies: it runs before `npm ci` too. Injectable for tests:
 *   FAIRWAY_CHROMIUM_CANDIDATES  path-delimiter list replacing /usr/bin/chromium
 *   FAIRWAY_ASSUME_ROOT          1 or 0 instead of process.getuid() === 0
 *   FAIRWAY_DEBIAN_VERSION_FILE  instead of /etc/debian_version
 *   FAIRWAY_CHROMIUM_DRY_RUN=1   print the install commands instead of running them
 *   PATH                         where apt-get (and sudo, for the message) are looked up
 *
 * Exit 0: a usable browser (or, in a dry run, the install it would run); exit 1: none.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
/** Environment variables that name the browser explicitly, first set wins. */
export const CHROMIUM_OVERRIDES = ['FAIRWAY_CHROMIUM', 'PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH', 'CHROMIUM_PATH'];

const APT_UPDATE = ['update', '-qq'];
const APT_INSTALL = ['install', '-y', '-qq', 'chromium'];
const NOTICE = "fairway: installing Debian's chromium for the browser tests (about a minute) ...";
const NO_DOWNLOAD = 'No browser build is ever downloaded: `npx playwright install` cannot work here.';

const defaultIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

function set(value) {
  return value !== undefined && value !== '';
}

function candidates(env) {
  const list = set(env.FAIRWAY_CHROMIUM_CANDIDATES) ? env.FAIRWAY_CHROMIUM_CANDIDATES.split(delimiter).filter((p) => p !== '') : [];
  return list.length > 0 ? list : [DEFAULT_CHROMIUM];
}

/**
 * The browser the tests use: `{ path, override }` where override is the
 * variable that named it, or null for the first existing candidate (else the first candidate).
 */
export function chromiumChoice(env = process.env) {
  for (const name of CHROMIUM_OVERRIDES) if (set(env[name])) return { path: env[name], override: name };
  const list = candidates(env);
  return { path: list.find((p) => existsSync(p)) ?? list[0], override: null };
}

/** The executable Playwright launches (playwright.config.ts). */
export function chromiumExecutable(env = process.env) {
  return chromiumChoice(env).path;
}

function onPath(command, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const full = join(dir, command);
    try {
      if (statSync(full).isFile()) {
        accessSync(full, constants.X_OK);
        return full;
      }
    } catch {
      // not here
    }
  }
  return null;
}

function tail(text, lines = 15) {
  return text.split('\n').filter((l) => l.trim() !== '').slice(-lines).join('\n');
}

/** `{ ok: true, version }` or `{ ok: false, problem }` for the binary at path. */
function probe(path) {
  if (!existsSync(path)) return { ok: false, problem: 'missing' };
  if (!statSync(path).isFile()) return { ok: false, problem: 'is not a file' };
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return { ok: false, problem: 'is not executable' };
  }
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const version = (run.stdout ?? '').trim().split('\n').pop() ?? '';
  if (run.error !== undefined || run.status !== 0 || version === '') {
    const why = run.error !== undefined ? run.error.message : `exit ${run.status ?? run.signal}`;
    return { ok: false, problem: `does not run \`--version\` (${why})${run.stderr ? `:\n${tail(run.stderr)}` : ''}` };
  }
  return { ok: true, version };
}

function unusable(path, problem, named) {
  const what = named === null ? path : `${named}=${path}`;
  if (problem === 'missing') {
    return named === null
      ? `fairway: the browser tests need Chromium at ${path}, and it is missing.`
      : `fairway: ${what} names no file. Point ${named} at a Chromium binary, or unset it to use ${DEFAULT_CHROMIUM}.`;
  }
  return `fairway: the browser tests cannot use ${what}: it ${problem}.`;
}

function mayInstall(env, uid) {
  const root = set(env.FAIRWAY_ASSUME_ROOT) ? env.FAIRWAY_ASSUME_ROOT === '1' : uid === 0;
  const debian = existsSync(set(env.FAIRWAY_DEBIAN_VERSION_FILE) ? env.FAIRWAY_DEBIAN_VERSION_FILE : '/etc/debian_version');
  const aptGet = debian ? onPath('apt-get', env) : null;
  return { root, debian: debian && aptGet !== null, aptGet };
}

function howToInstall(path, env, decision) {
  const lines = [`fairway: the browser tests need Chromium at ${path}, and it is missing.`];
  if (decision.debian) {
    const command = onPath('sudo', env) !== null
      ? 'sudo apt-get update && sudo apt-get install -y chromium'
      : "su -c 'apt-get update && apt-get install -y chromium'";
    lines.push(
      "  Install Debian's package (needs root), then run `npm test` again:",
      `    ${command}`,
      '  (Run as root, `npm test` installs it itself. Or set FAIRWAY_CHROMIUM=/path/to/chromium.)',
    );
  } else {
    lines.push(
      "  Install Chromium with your system's package manager, then point the tests at it:",
      '    FAIRWAY_CHROMIUM=/path/to/chromium npm test',
    );
  }
  lines.push(`  ${NO_DOWNLOAD}`, '  The unit tests alone need no browser: npm run test:unit');
  return lines.join('\n');
}

function install(decision, env, io) {
  const steps = [
    { args: APT_UPDATE, shown: `apt-get ${APT_UPDATE.join(' ')}` },
    { args: APT_INSTALL, shown: `DEBIAN_FRONTEND=noninteractive apt-get ${APT_INSTALL.join(' ')}` },
  ];
  io.out(NOTICE);
  for (const step of steps) {
    if (env.FAIRWAY_CHROMIUM_DRY_RUN === '1') {
      io.out(`fairway: dry run: ${step.shown}`);
      continue;
    }
    const run = spawnSync(decision.aptGet, step.args, {
      encoding: 'utf8',
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.error !== undefined || run.status !== 0) {
      const why = run.error !== undefined ? run.error.message : `exit ${run.status ?? run.signal}`;
      const output = tail(`${run.stdout ?? ''}\n${run.stderr ?? ''}`);
      io.err(`fairway: \`${step.shown}\` failed (${why})${output === '' ? '.' : `:\n${output}`}\n  ${NO_DOWNLOAD}`);
      return false;
    }
  }
  return true;
}

/**
 * Runs the check. `io` receives whole messages; `uid` is the process's user
 * id (undefined where the platform has none). Returns the exit code.
 */
export function ensureChromium({ env = process.env, uid = process.getuid?.(), io = defaultIo } = {}) {
  const choice = chromiumChoice(env);
  const found = probe(choice.path);
  if (found.ok) {
    io.out(`fairway: browser tests use ${choice.path} (${found.version})`);
    return 0;
  }
  if (choice.override !== null || found.problem !== 'missing') {
    io.err(unusable(choice.path, found.problem, choice.override));
    return 1;
  }
  const decision = mayInstall(env, uid);
  if (!decision.root || !decision.debian) {
    io.err(howToInstall(choice.path, env, decision));
    return 1;
  }
  if (!install(decision, env, io)) return 1;
  if (env.FAIRWAY_CHROMIUM_DRY_RUN === '1') {
    io.out(`fairway: dry run: then check that ${choice.path} runs \`--version\``);
    return 0;
  }
  const after = chromiumChoice(env);
  const installed = probe(after.path);
  if (!installed.ok) {
    io.err(`fairway: \`apt-get install chromium\` finished, but ${after.path} ${installed.problem === 'missing' ? 'is still missing' : installed.problem}.`);
    return 1;
  }
  io.out(`fairway: installed ${after.path} (${installed.version}); browser tests use it`);
  return 0;
}

/** Run as a script (not imported by playwright.config.ts); realpath, so a symlinked checkout still runs the check. */
function isMain() {
  if (process.argv[1] === undefined) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  process.exitCode = ensureChromium();
}
