/**
 * Where `fairway console` finds the console's server. Two installations have one:
 *
 * - a clone after `npm ci`: the app sources and Next.js beside the CLI; the
 *   production build is made (or remade when stale) on start;
 * - the console package, `@fairway/console`, installed beside an installed CLI
 *   (globally, with `npx -p`, or in a project's node_modules): a prebuilt
 *   standalone Next.js server with its traced runtime files, served as is.
 *
 * Anything else is `console_not_installed`, with the command that installs it
 * (docs/console.md "Installing the console").
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CONSOLE_PACKAGE = '@fairway/console';
/** The layout of the console package this CLI serves (packages/console/package.json `fairway.console`). */
export const CONSOLE_PACKAGE_FORMAT = 1;

export type ConsoleInstall =
  | { kind: 'clone'; root: string }
  | { kind: 'package'; root: string; version: string };

export interface ConsoleUnavailable {
  kind: 'unavailable';
  code: 'console_not_installed' | 'console_version_mismatch';
  message: string;
}

/** The package people install beside `fairway-<version>.tgz`, named as `npm pack` names it. */
export const consoleTarball = (version: string): string => `fairway-console-${version}.tgz`;

/** The one command that installs the console beside a CLI of `version`. */
export const consoleInstallCommand = (version: string): string => `npm i -g ./${consoleTarball(version)}`;

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function resolves(from: string, specifier: string): string | undefined {
  try {
    return createRequire(join(from, 'package.json')).resolve(specifier);
  } catch {
    return undefined;
  }
}

/**
 * The console that `cliRoot` (the root of the running CLI: a clone, or the
 * installed `fairway` package) can serve, or why there is none.
 */
export function locateConsole(cliRoot: string): ConsoleInstall | ConsoleUnavailable {
  if (existsSync(join(cliRoot, 'app', 'layout.tsx')) && resolves(cliRoot, 'next/package.json') !== undefined) return { kind: 'clone', root: cliRoot };
  const version = String(readJson(join(cliRoot, 'package.json'))?.version ?? '0.0.0');
  const install = consoleInstallCommand(version);
  const found = resolves(cliRoot, `${CONSOLE_PACKAGE}/package.json`);
  if (found === undefined) {
    return {
      kind: 'unavailable',
      code: 'console_not_installed',
      message: `the web console is an optional package (${CONSOLE_PACKAGE}) that is not installed beside this CLI. Install it with \`${install}\` (the release tarball beside fairway-${version}.tgz; \`npm run pack:console\` makes it in a clone), then run \`fairway console\` again; or start it from a clone of Fairway with \`npm ci && npm start\`.`,
    };
  }
  const root = dirname(found);
  const pkg = readJson(found) ?? {};
  const format = (pkg.fairway as { console?: unknown } | undefined)?.console;
  if (pkg.version !== version || format !== CONSOLE_PACKAGE_FORMAT) {
    return {
      kind: 'unavailable',
      code: 'console_version_mismatch',
      message: `${CONSOLE_PACKAGE} ${String(pkg.version)} at ${root} does not match this CLI (fairway ${version}); the two are released together. Install the matching console with \`${install}\`.`,
    };
  }
  if (!existsSync(join(root, '.next', 'BUILD_ID'))) {
    return { kind: 'unavailable', code: 'console_not_installed', message: `${CONSOLE_PACKAGE} at ${root} has no production build (.next/BUILD_ID): reinstall it with \`${install}\`.` };
  }
  return { kind: 'package', root, version };
}

export interface NextServerOptions {
  dev: false;
  dir: string;
  hostname: string;
  port: number;
  httpServer: import('node:http').Server;
  quiet?: boolean;
  conf?: Record<string, unknown>;
}

export type NextFactory = (options: NextServerOptions) => {
  prepare(): Promise<void>;
  getRequestHandler(): (req: unknown, res: unknown) => Promise<void>;
  close?(): Promise<void>;
};

/** The variable through which Next's standalone server.js hands its server the build's configuration. */
export const STANDALONE_CONFIG_ENV = '__NEXT_PRIVATE_STANDALONE_CONFIG';

/**
 * Next.js's server factory from the installation's own `next`, and the
 * configuration to serve with: the one the build serialised
 * (`.next/required-server-files.json`), handed over as Next's standalone
 * server.js does. The console package carries no next.config; a clone serves
 * only a current build, made from the same next.config.
 */
export async function loadNextServer(install: ConsoleInstall): Promise<{ factory: NextFactory; conf: Record<string, unknown> }> {
  const conf = readJson(join(install.root, '.next', 'required-server-files.json'))?.config as Record<string, unknown> | undefined;
  if (conf === undefined) throw new Error(`the console build at ${install.root} has no .next/required-server-files.json`);
  process.env[STANDALONE_CONFIG_ENV] = JSON.stringify(conf);
  const entry = resolves(install.root, 'next');
  if (entry === undefined) throw new Error(`cannot resolve Next.js from ${install.root}`);
  const mod = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  const factory = (typeof mod.default === 'function' ? mod.default : (mod.default as { default?: unknown } | undefined)?.default) as NextFactory | undefined;
  if (typeof factory !== 'function') throw new Error('cannot load the Next.js server');
  return { factory, conf };
}
