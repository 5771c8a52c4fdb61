/**
 * Starts the console: picks the queue (or seeds the embedded demo), finds the
 * console's server (a clone's build, made current first, or the prebuilt
 * console package: lib/console/locate.ts), configures the server code through
 * the environment, and serves it with Next's request handler on one HTTP port.
 * Used by `fairway console`, the browser tests' web server and the benchmark.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TOKEN_TTL_MS, OBSERVER_TOKEN_HASH_ENV, TOKEN_EXPIRES_ENV, TOKEN_HASH_ENV, newLoginToken, parseTokenList, resetRedeemedTokens, tokenHash } from '../auth/token.ts';
import { ProtocolError } from '../../engine/errors.ts';
import { createDemoRepository } from '../demo/repo.ts';
import { buildConsole, buildNeed } from './build.ts';
import { CONFIG_ENV, encodeConfig, sourceLabel, type ConsoleConfig, type ConsoleSource } from './config.ts';
import { resetRuntime } from './context.ts';
import { guardHost, type HostPolicy } from './host.ts';
import { consoleGitHubHost } from './store.ts';
import { loadNextServer, locateConsole, type ConsoleInstall } from './locate.ts';

export const CONSOLE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StartOptions {
  /** The queue; absent: the embedded demo queue. */
  source?: ConsoleSource;
  port?: number;
  host?: string;
  pollMs?: number;
  mode?: 'local' | 'hosted';
  /** Local mode: the login tokens sign in as administrator (else observer). */
  admin?: boolean;
  principal?: string;
  /**
   * Fixed single-use login token(s) (tests); default: FAIRWAY_CONSOLE_TOKEN
   * (comma-separated) or one fresh random token.
   */
  token?: string;
  /** Fixed login token(s) that always sign in as observer; default FAIRWAY_CONSOLE_OBSERVER_TOKEN (comma-separated) or none. */
  observerToken?: string;
  /** How long the login tokens work after start-up; default FAIRWAY_CONSOLE_TOKEN_TTL_MS or one hour. */
  tokenTtlMs?: number;
  /** Fixed evaluation clock for live views (benchmarks, deterministic tests). */
  fixedNow?: number;
  /** Admit the XSS probe Work into the demo (browser tests). */
  probe?: boolean;
  /** Load the ledger and render the overview once before returning (default true). */
  warm?: boolean;
  /** `auto` builds when stale (default), `never` fails fast without a build. */
  build?: 'auto' | 'never';
  /** Which console to serve; default: the one beside this CLI (locateConsole). */
  install?: ConsoleInstall;
  log?: (line: string) => void;
}

export interface RunningConsole {
  url: string;
  loginUrl: string;
  token: string;
  config: ConsoleConfig;
  demoRepository: string | null;
  server: Server;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startConsole(options: StartOptions = {}): Promise<RunningConsole> {
  const log = options.log ?? ((line: string) => console.log(line));
  const host = options.host ?? '127.0.0.1';
  let install = options.install;
  if (install === undefined) {
    const located = locateConsole(CONSOLE_ROOT);
    if (located.kind === 'unavailable') throw new ProtocolError(located.code, located.message);
    install = located;
  }
  // A clone builds when its build is stale; the console package is prebuilt.
  const need = install.kind === 'clone' ? buildNeed(install.root) : 'fresh';
  if (need !== 'fresh') {
    if (options.build === 'never') throw new ProtocolError('console_not_built', 'the console has no current production build; run `npx next build`');
    await buildConsole(install.root, log, need);
  }

  let source = options.source;
  let demoRepository: string | null = null;
  let removeDemo: () => Promise<void> = async () => {};
  if (source === undefined) {
    const started = Date.now();
    const demo = await createDemoRepository({ now: Date.now(), probe: options.probe === true });
    demoRepository = demo.repo;
    removeDemo = demo.remove;
    source = { kind: 'repo', repo: demo.repo, branch: demo.branch };
    log(`Seeded the demo queue: ${demo.requests} requests through the publisher into ${demo.repo} (${Date.now() - started} ms)`);
  }

  const config: ConsoleConfig = {
    source,
    demo: demoRepository !== null,
    mode: options.mode ?? 'local',
    admin: options.admin === true,
    pollMs: options.pollMs ?? 5000,
    principal: options.principal ?? (demoRepository !== null ? '1001' : '1'),
    ...(options.fixedNow === undefined ? {} : { fixedNow: options.fixedNow }),
  };
  const tokens = parseTokenList(options.token ?? process.env.FAIRWAY_CONSOLE_TOKEN ?? '');
  if (tokens.length === 0) tokens.push(newLoginToken());
  const token = tokens[0]!;
  const envTtl = Number(process.env.FAIRWAY_CONSOLE_TOKEN_TTL_MS);
  const tokenTtlMs = options.tokenTtlMs ?? (Number.isInteger(envTtl) && envTtl > 0 ? envTtl : DEFAULT_TOKEN_TTL_MS);

  let handler: ((req: unknown, res: unknown) => Promise<void>) | null = null;
  // Hosted mode answers for the public URL the operator configured (read at request time: set below).
  const hostPolicy = (): HostPolicy => ({ mode: config.mode, listenHost: host, publicUrl: config.mode === 'hosted' ? process.env.NEXTAUTH_URL : undefined });
  const server = createServer((req, res) => {
    if (!guardHost(req, res, hostPolicy())) return;
    if (handler === null) {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('starting');
      return;
    }
    void handler(req, res);
  });
  const port = await listen(server, options.port ?? 3000, host);
  const url = `http://${host}:${port}`;

  resetRuntime();
  process.env[CONFIG_ENV] = encodeConfig(config);
  process.env[TOKEN_HASH_ENV] = tokens.map(tokenHash).join(',');
  process.env[OBSERVER_TOKEN_HASH_ENV] = parseTokenList(options.observerToken ?? process.env.FAIRWAY_CONSOLE_OBSERVER_TOKEN ?? '').map(tokenHash).join(',');
  process.env[TOKEN_EXPIRES_ENV] = String(Date.now() + tokenTtlMs);
  resetRedeemedTokens();
  process.env.NEXTAUTH_SECRET ??= randomBytes(32).toString('base64url');
  // Hosted mode keeps the public URL the operator configured (OAuth callbacks go there).
  if (config.mode !== 'hosted' || process.env.NEXTAUTH_URL === undefined) process.env.NEXTAUTH_URL = url;
  process.env.NEXT_TELEMETRY_DISABLED = '1';
  (process.env as Record<string, string>).NODE_ENV ??= 'production';

  const next = await loadNextServer(install);
  const app = next.factory({ dev: false, dir: install.root, hostname: host, port, httpServer: server, quiet: true, conf: next.conf });
  await app.prepare();
  handler = app.getRequestHandler();
  if (options.warm !== false) {
    // Replay the ledger and load the page code now, so the first operator request is fast.
    for (const path of ['/api/tip', '/']) await fetch(`${url}${path}`).then((r) => r.arrayBuffer()).catch(() => undefined);
  }

  log(`Fairway console on ${sourceLabel(source, consoleGitHubHost(source))}${config.demo ? ' (DEMO QUEUE)' : ''}`);
  return {
    url,
    loginUrl: `${url}/login?token=${encodeURIComponent(token)}`,
    token,
    config,
    demoRepository,
    server,
    // Stopping the console removes its demo repository (docs/console.md: nothing is left behind).
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => removeDemo()),
  };
}
