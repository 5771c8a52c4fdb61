/**
 * Builds the Next.js app when the production build is missing or older than
 * its sources, so `npm start` works on a fresh clone. One `next build`
 * (Turbopack) child process; the caller's log gets what is running and roughly
 * how long it takes, progress while it runs and the time taken (README "Set-up: the two commands");
 * the build's own output is kept for the error when it fails: written whole to
 * `.next/fairway-build.log`, and its last lines quoted in one `console_build_failed` error.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';

const SOURCE_DIRS = ['app', 'components', 'lib', 'engine', 'public'];
const SOURCE_FILES = ['next.config.mjs', 'proxy.ts', 'postcss.config.mjs', 'tsconfig.next.json', 'package.json'];
const SKIP = /(^|\/)(node_modules|\.next|__snapshots__)(\/|$)|\.test\.ts$/;

function newestMtime(dir: string, path = ''): number {
  let newest = 0;
  const full = join(dir, path);
  if (!existsSync(full)) return 0;
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const rel = path === '' ? entry.name : `${path}/${entry.name}`;
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(dir, rel));
    else if (entry.isFile()) newest = Math.max(newest, statSync(join(dir, rel)).mtimeMs);
  }
  return newest;
}

/**
 * Whether `npm start` must build first: `first` when `.next` holds no
 * production build (a fresh clone), `stale` when a source is newer than it,
 * `fresh` when the build can be served as is.
 */
export type BuildNeed = 'fresh' | 'first' | 'stale';

export function buildNeed(root: string): BuildNeed {
  const id = join(root, '.next', 'BUILD_ID');
  if (!existsSync(id)) return 'first';
  const built = statSync(id).mtimeMs;
  let newest = 0;
  for (const d of SOURCE_DIRS) newest = Math.max(newest, newestMtime(root, d));
  for (const f of SOURCE_FILES) if (existsSync(join(root, f))) newest = Math.max(newest, statSync(join(root, f)).mtimeMs);
  return newest <= built ? 'fresh' : 'stale';
}

/** True when `.next` holds a production build at least as new as every source. */
export function buildIsFresh(root: string): boolean {
  return buildNeed(root) === 'fresh';
}

/** Measured: `next build` of this app takes about 48 s on a 2-core machine. */
const ESTIMATE = 'about 50 s on a 2-core machine';

/** The line printed before a build, saying what runs and roughly how long it takes. */
export function buildNotice(need: Exclude<BuildNeed, 'fresh'>): string {
  return need === 'first'
    ? `fairway console: first start: building the Next.js app (${ESTIMATE}; later starts reuse the build) ...`
    : `fairway console: sources changed since the last build: rebuilding the Next.js app (${ESTIMATE}) ...`;
}

export interface BuildOptions {
  /** Interval of the "still building" lines (default 15 s; 0: none). */
  progressMs?: number;
}

/**
 * Runs `next build` in root, printing the notice first, a "still building"
 * line every progressMs, and the time taken at the end: never a silent wait.
 */
export function buildConsole(root: string, log: (line: string) => void, need: Exclude<BuildNeed, 'fresh'> = 'stale', options: BuildOptions = {}): Promise<void> {
  log(buildNotice(need));
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const progressMs = options.progressMs ?? 15_000;
  return new Promise<void>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' };
    // A console served earlier in this process handed Next the previous build's configuration this
    // way (lib/console/locate.ts); the build must read next.config.mjs.
    delete env.__NEXT_PRIVATE_STANDALONE_CONFIG;
    const child = spawn(process.execPath, [join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const progress = progressMs > 0 ? setInterval(() => log(`fairway console: still building the Next.js app (${seconds()} s so far) ...`), progressMs) : null;
    const output: Buffer[] = [];
    let kept = 0;
    const collect = (chunk: Buffer) => {
      if (kept < OUTPUT_LIMIT) output.push(chunk);
      kept += chunk.length;
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error) => {
      if (progress !== null) clearInterval(progress);
      reject(new ProtocolError('console_build_failed', `could not run \`next build\` in ${resolvePath(root)} (${error.message}). Run \`npm ci\` in ${resolvePath(root)}, then \`fairway console\` again.`, {}, { root: resolvePath(root) }));
    });
    child.on('close', (code, signal) => {
      if (progress !== null) clearInterval(progress);
      if (code === 0) {
        log(`fairway console: built the Next.js app in ${seconds()} s`);
        resolve();
      } else reject(buildFailed(root, code === null ? `signal ${signal}` : `exit ${code}`, Buffer.concat(output).toString('utf8')));
    });
  });
}

/** The most of the build's output kept (and written to its log). */
const OUTPUT_LIMIT = 4 << 20;
/** Lines of the build's output quoted in the error. */
const QUOTED_LINES = 15;

/** Where a failed build's whole output is written. */
export function buildLogPath(root: string): string {
  return join(root, '.next', 'fairway-build.log');
}

/**
 * One coded error for a failed build: what failed, where the whole output is, its last lines
 * (stack frames left out: they are Next's, and only in the log), and what to do.
 */
function buildFailed(at: string, how: string, output: string): ProtocolError {
  const root = resolvePath(at);
  const log = buildLogPath(root);
  let written = true;
  try {
    mkdirSync(join(root, '.next'), { recursive: true });
    writeFileSync(log, output);
  } catch {
    written = false;
  }
  const lines = output.split(/\r?\n/).filter((line) => line.trim() !== '' && !/^\s+at\s/.test(line));
  const quoted = lines.slice(-QUOTED_LINES).map((line) => `  | ${line}`).join('\n');
  const where = written ? `the whole output is in ${log}` : 'its output could not be saved';
  return new ProtocolError(
    'console_build_failed',
    `\`next build\` of the console failed (${how}) in ${root}; ${where}.${quoted === '' ? '' : ` Its last lines:\n${quoted}\n`}` +
      `Fix what it names (when node_modules is missing, partial or a link, run \`npm ci\` in ${root}), then run \`fairway console\` again.`,
    {},
    { root, ...(written ? { log } : {}) },
  );
}
