/**
 * `fairway console [--repo|--remote|--github|--ledger] [--port]`: serves the
 * web console. With no queue configured and none on the current repository's
 * queue branch, it starts on the embedded demo queue (a fresh local Git
 * repository seeded through the publisher), clearly labelled as a demo.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ConsoleSource } from '../../lib/console/config.ts';
import { locateConsole } from '../../lib/console/locate.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { githubEnv } from '../globals.ts';
import { UsageError, type Io } from '../output.ts';
import { intIn } from '../parse.ts';

const run = promisify(execFile);

async function hasQueueBranch(dir: string, branch: string): Promise<boolean> {
  try {
    await run('git', ['-C', dir, 'rev-parse', '--verify', '-q', `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
}

export async function resolveSource(g: GlobalOptions, cwd = process.cwd()): Promise<ConsoleSource | undefined> {
  const branch = g.branch ?? 'work-queue';
  const chosen = [g.ledger, g.github, g.remote !== undefined ? 'remote' : undefined].filter((v) => v !== undefined);
  if (chosen.length > 1) throw new UsageError('choose one of --ledger, --github and --remote', 'usage_error');
  if (g.ledger !== undefined) return { kind: 'ledger', ledger: g.ledger };
  if (g.github !== undefined) return { kind: 'github', github: g.github, branch };
  if (g.remote !== undefined) return { kind: 'remote', repo: g.dir ?? cwd, remote: g.remote, branch };
  if (g.dir !== undefined) return { kind: 'repo', repo: g.dir, branch };
  return (await hasQueueBranch(cwd, branch)) ? { kind: 'repo', repo: cwd, branch } : undefined;
}

export async function consoleCommand(io: Io, g: GlobalOptions, opts: { port: string; portFromEnv?: boolean; host: string; pollMs: string; demo?: boolean; hosted?: boolean; admin?: boolean }): Promise<void> {
  // Decimal digits only (parse.ts intIn): `''`, `0x50` and `1e3` are option_invalid.
  // The default comes from PORT when it is set: an error then names the variable.
  const port = intIn(opts.portFromEnv === true ? 'PORT (the --port default)' : '--port', 0, 65535)(opts.port);
  const pollMs = intIn('--poll-ms', 500, 86_400_000)(opts.pollMs);
  const source = opts.demo === true ? undefined : await resolveSource(g);
  if (source?.kind === 'github') {
    // The console's store reads the process environment: hand it the token the CLI resolved
    // (GH_TOKEN, GITHUB_TOKEN, `gh auth token`) and an Enterprise host's API root.
    const env = await githubEnv(g);
    for (const name of ['GH_TOKEN', 'FAIRWAY_GITHUB_API_URL'] as const) if (env[name] !== undefined) process.env[name] = env[name];
  }
  // Loaded on demand: the console server pulls in Next.js, which other commands never need.
  const { CONSOLE_ROOT, startConsole } = await import('../../lib/console/server.ts');
  // The console is an optional part: a clone has it, an installed CLI has it when the console package is installed beside it.
  const install = locateConsole(CONSOLE_ROOT);
  if (install.kind === 'unavailable') throw new UsageError(install.message, install.code);
  const running = await startConsole({
    install,
    ...(source === undefined ? {} : { source }),
    port,
    host: opts.host,
    pollMs,
    mode: opts.hosted === true ? 'hosted' : 'local',
    admin: opts.admin === true,
    ...(g.principal === undefined ? {} : { principal: g.principal }),
    probe: process.env.FAIRWAY_DEMO_PROBE === '1',
    log: (line) => io.out(line),
  });
  io.out('');
  io.out(`  Console:     ${running.url}/`);
  if (opts.hosted !== true) {
    io.out(`  Sign in with this single-use login link (it works once and expires; default one hour).`);
    io.out(opts.admin === true
      ? '  It signs in as administrator (started with --admin): whoever holds it can cancel, reprioritise and pause.'
      : '  It signs in as observer (read-only); start with --admin for a link that signs in as administrator.');
    io.out(`  ${running.loginUrl}`);
  }
  if (running.demoRepository !== null) io.out(`  Demo queue:  git -C ${running.demoRepository} show work-queue:work-queue.jsonl`);
  io.out('');
  // For scripts and browser tests: where the console runs and which repository it serves (never the token).
  const stateFile = process.env.FAIRWAY_CONSOLE_STATE_FILE;
  if (stateFile !== undefined && stateFile !== '') {
    await writeFile(stateFile, JSON.stringify({ url: running.url, demo_repository: running.demoRepository, source: running.config.source }));
  }
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await new Promise<void>(() => {}); // serve until stopped
}

export const registerConsole: CommandModule = (program, ctx) => {
  const command = program.command('console')
    .description('Serve the web console (explorer, DAGs, fairness, receipts, admin). Without a queue: the embedded demo queue.')
    .option('--port <port>', 'HTTP port (0: any free port)', process.env.PORT ?? '3000')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--poll-ms <ms>', 'browser polling interval of the ledger tip', '5000')
    .option('--demo', 'start on the embedded demo queue even if a queue is configured')
    .option('--hosted', 'hosted mode: GitHub OAuth (GITHUB_ID, GITHUB_SECRET, FAIRWAY_ROLES_FILE) instead of the login token')
    .option('--admin', 'local mode: the login link signs in as administrator (default: observer, read-only)')
    .addHelpText('after', `
Sign-in (local mode): the console prints a single-use login link that expires (FAIRWAY_CONSOLE_TOKEN_TTL_MS,
default one hour). Its role is decided here, not on the sign-in form: administrator with --admin, else
observer. FAIRWAY_CONSOLE_TOKEN and FAIRWAY_CONSOLE_OBSERVER_TOKEN (comma-separated) fix the tokens for
scripts; observer tokens always sign in read-only. Hosted mode maps GitHub user ids to roles with
FAIRWAY_ROLES_FILE.

Installation: a clone serves its own build (made on first start). An installed CLI serves the
optional console package installed beside it, @fairway/console of the same version
(npm i -g ./fairway-console-VERSION.tgz); without it this command answers console_not_installed.`)
    .action(ctx.action(async (g, opts: { port: string; host: string; pollMs: string; demo?: boolean; hosted?: boolean; admin?: boolean }) =>
      consoleCommand(ctx.io, g, { ...opts, portFromEnv: process.env.PORT !== undefined && command.getOptionValueSource('port') === 'default' })));
};
