/**
 * The global store options, `gh`-style (README "Global options"): `-R, --repo [HOST/]OWNER/REPO` (or
 * `--github`, its older alias) selects the GitHub store; the local repository is the
 * current directory or `--dir PATH`. An existing local path given to `--repo` still works
 * (its old meaning) with a deprecation note on stderr. `GH_HOST` names the host when
 * `--repo` gives none; a host other than github.com is GitHub Enterprise Server
 * (`https://HOST/api/v3`, token from GH_ENTERPRISE_TOKEN / GITHUB_ENTERPRISE_TOKEN).
 *
 * Tokens, like `gh`: GH_TOKEN, then GITHUB_TOKEN, then `gh auth token --hostname HOST`
 * when `gh` is installed. Nothing here fails for a missing token: only a command that
 * really calls GitHub does (`github_token_missing`, naming all three sources).
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDecimalId } from '../engine/identity/validate.ts';
import { cliApiRoot, cliHost, DOTCOM_API_ROOT, DOTCOM_HOST, isDotCom, type CliHost } from '../lib/github/host.ts';
import { UsageError, type Io } from './output.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** Global options as commander parses them. */
export interface RawGlobals {
  json?: boolean;
  ledger?: string;
  repo?: string;
  dir?: string;
  remote?: string;
  github?: string;
  branch?: string;
  /** `--branch` was given on the command line (not its default). */
  branchGiven?: boolean;
  requestId?: string;
  principal?: string;
}

/** Global options after normalisation: one store selection. */
export interface GlobalOptions {
  json?: boolean;
  ledger?: string;
  /** The local Git repository (`--dir`, or a deprecated `--repo PATH`); absent: the current directory. */
  dir?: string;
  remote?: string;
  /** The GitHub repository `OWNER/NAME` (`-R/--repo` or `--github`). */
  github?: string;
  /** The GitHub host of `github` (github.com unless `-R HOST/...` or GH_HOST names another). */
  host?: string;
  /** Where `host` came from (lib/github/host.ts `cliHost`). */
  hostFrom?: CliHost['from'];
  branch?: string;
  requestId?: string;
  principal?: string;
  /** The token resolved for the GitHub store (set before an action runs when `github` is). */
  token?: string;
}

export const DEFAULT_HOST = DOTCOM_HOST;

/** `[HOST/]OWNER/REPO` or `https://HOST/OWNER/REPO[.git]`, or null when `value` is neither. */
export function parseRepoSpec(value: string): { host?: string; owner: string; name: string } | null {
  let v = value.trim();
  const url = /^(?:https?:\/\/|git@)([^/:\s]+)[/:](.+)$/.exec(v);
  let host: string | undefined;
  if (url !== null) {
    host = url[1]!;
    v = url[2]!;
  }
  v = v.replace(/\.git$/, '').replace(/\/+$/, '');
  const m = /^(?:([A-Za-z0-9.-]+(?::\d+)?)\/)?([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(v);
  if (m === null) return null;
  if (m[1] !== undefined) {
    if (host !== undefined) return null;
    host = m[1];
  }
  if (m[2] === '.' || m[2] === '..' || m[3] === '.' || m[3] === '..') return null;
  return { ...(host !== undefined && { host: host.toLowerCase() }), owner: m[2]!, name: m[3]! };
}

function looksLikePath(value: string, cwd: string): boolean {
  if (/^(?:\/|\.{1,2}(?:\/|$)|~)/.test(value) || value.includes('\\')) return true;
  try {
    return statSync(resolve(cwd, value)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * One store selection from the raw flags. Conflicting flags are usage errors
 * (`store_options_invalid`); a malformed `--repo` is `repo_invalid`.
 */
export function normalizeGlobals(raw: RawGlobals, io: Io, env: Env = process.env, cwd = process.cwd()): GlobalOptions {
  const { repo, github, dir, branchGiven, ...rest } = raw;
  const g: GlobalOptions = { ...rest };
  // A file has no branch: `--ledger F --branch B` would read F and silently ignore B.
  if (g.ledger !== undefined && branchGiven === true) throw new UsageError('--ledger reads a file offline; --branch names a queue branch of a repository (--dir, --remote or -R): give one of them', 'source_conflict');
  // Checked for every command, also those that never act as it (a typo should not pass silently).
  if (g.principal !== undefined) checkedPrincipal(g.principal);
  if (dir !== undefined) {
    if (dir === '') throw new UsageError('--dir needs a path', 'store_options_invalid');
    g.dir = dir;
  }
  let spec: string | undefined;
  if (repo !== undefined && looksLikePath(repo, cwd)) {
    if (dir !== undefined) throw new UsageError('--dir and --repo PATH both name a local repository; give only --dir', 'store_options_invalid');
    io.err(`fairway: note: --repo ${repo} names a local directory; --repo now selects a GitHub repository ([HOST/]OWNER/REPO) like gh. Use --dir ${repo} for a local repository (this form is deprecated).`);
    g.dir = repo;
  } else if (repo !== undefined) {
    spec = repo;
  }
  if (github !== undefined) {
    if (spec !== undefined && spec !== github) throw new UsageError('--github is an alias of --repo OWNER/REPO; give only one', 'store_options_invalid');
    spec = github;
  }
  if (spec !== undefined) {
    const parsed = parseRepoSpec(spec);
    if (parsed === null) throw new UsageError(`--repo expects [HOST/]OWNER/REPO (a GitHub repository), not ${JSON.stringify(spec)}; a local repository is --dir PATH`, 'repo_invalid');
    if (g.dir !== undefined) throw new UsageError('--dir names a local repository and --repo a GitHub one; give only one', 'store_options_invalid');
    if (g.remote !== undefined) throw new UsageError('--remote works with a local clone (--dir CLONE), not with a GitHub repository', 'store_options_invalid');
    g.github = `${parsed.owner}/${parsed.name}`;
    const host = cliHost(parsed.host, env);
    g.host = host.host;
    g.hostFrom = host.from;
    // A host name (and port): a bad GH_HOST is named as such, not as the API URL built from it.
    if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/i.test(g.host)) {
      throw new UsageError(`${host.from === 'GH_HOST' ? 'GH_HOST' : 'the host of --repo'} must be a host name like github.example.com, not ${JSON.stringify(g.host)}`, 'store_options_invalid');
    }
  }
  return g;
}

/** `principal` when it is a positive decimal id (the local operator's principal); else `principal_invalid`. */
export function checkedPrincipal(principal: string, from = '--principal'): string {
  if (!isDecimalId(principal)) throw new UsageError(`${from} must be a positive decimal id, not ${JSON.stringify(principal)}`, 'principal_invalid');
  return principal;
}

/** The GitHub host the global options select (lib/github/host.ts `cliHost`): `-R HOST/...`, else GH_HOST, else github.com. */
export function hostOf(g: GlobalOptions, env: Env = process.env): CliHost {
  return g.host !== undefined ? { host: g.host, from: g.hostFrom ?? 'repo' } : cliHost(undefined, env);
}

/** The REST API root of the global options' host (lib/github/host.ts `cliApiRoot`; undefined: api.github.com). */
export function apiUrlFor(g: GlobalOptions, env: Env = process.env): string | undefined {
  return cliApiRoot(hostOf(g, env), env);
}

/** The environment variables that hold a token for `host`, in the order `gh` reads them. */
export function tokenVariables(host: string): string[] {
  return isDotCom(host) ? ['GH_TOKEN', 'GITHUB_TOKEN'] : ['GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'];
}

/** `gh auth token --hostname HOST`, or undefined when gh is missing, logged out or silent. */
export function ghAuthToken(host: string, env: Env = process.env): Promise<string | undefined> {
  return new Promise((done) => {
    execFile('gh', ['auth', 'token', '--hostname', host], { env: { ...env } as NodeJS.ProcessEnv, timeout: 10_000, encoding: 'utf8' }, (error, stdout) => {
      const token = stdout.trim();
      done(error === null && token !== '' && !/\s/.test(token) ? token : undefined);
    });
  });
}

export interface ResolvedToken {
  token: string;
  source: string;
}

/** The token for `host`: its environment variables, then `gh auth token`; undefined when none. */
export async function resolveToken(host: string, env: Env = process.env): Promise<ResolvedToken | undefined> {
  for (const name of tokenVariables(host)) {
    const v = env[name];
    if (v !== undefined && v !== '') return { token: v, source: name };
  }
  const token = await ghAuthToken(host, env);
  return token === undefined ? undefined : { token, source: 'gh auth token' };
}

/** The one message every missing-token error gives: all three sources, in order. */
export function missingTokenMessage(host: string): string {
  const [a, b] = tokenVariables(host);
  const login = isDotCom(host) ? 'gh auth login' : `gh auth login --hostname ${host}`;
  return `no GitHub token for ${host}: set ${a} or ${b}, or log in with \`${login}\` (fairway reads \`gh auth token\` when gh is installed)`;
}

const envCache = new WeakMap<GlobalOptions, Promise<Env>>();

/**
 * The environment the GitHub API clients (launch, observe, reconcile, deploy) read: the
 * process environment, plus GH_TOKEN from `gh auth token` when no variable holds a token,
 * plus FAIRWAY_GITHUB_API_URL set to the store's API root (`apiUrlFor`), so that every client
 * of a run talks to the server its queue store does. Resolved once per run and only when a
 * command is about to build a GitHub client; it never fails by itself.
 */
export function githubEnv(g: GlobalOptions, env: Env = process.env): Promise<Env> {
  let cached = envCache.get(g);
  if (cached === undefined) {
    cached = (async () => {
      const { host } = hostOf(g, env);
      const overlay: Record<string, string | undefined> = { ...env };
      const explicit = ['FAIRWAY_DISPATCH_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'].some((n) => env[n] !== undefined && env[n] !== '');
      if (!explicit || !isDotCom(host)) {
        const found = g.token !== undefined ? { token: g.token } : await resolveToken(host, env);
        if (found !== undefined) overlay.GH_TOKEN = found.token;
      }
      // The store's root, always: the clients would otherwise fall back to GITHUB_API_URL, which the CLI reads only as cliApiRoot says.
      overlay.FAIRWAY_GITHUB_API_URL = apiUrlFor(g, env) ?? DOTCOM_API_ROOT;
      return overlay;
    })();
    envCache.set(g, cached);
  }
  return cached;
}

/**
 * `make()` on first use: a GitHub client that a command may not need (e.g. `reconcile
 * --cancel-reserved` of an unstarted group makes no API call) is built, and its token
 * demanded, only when a method of it is actually called.
 */
export function lazy<T extends object>(make: () => T): T {
  let real: T | undefined;
  const target = () => (real ??= make());
  return new Proxy({} as T, {
    get: (_t, prop) => {
      const value = Reflect.get(target(), prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target()) : value;
    },
    has: (_t, prop) => Reflect.has(target(), prop),
  });
}

/** True when `env` holds a token the GitHub API clients read (lib/github/context.ts). */
export function hasToken(env: Env): boolean {
  return [env.FAIRWAY_DISPATCH_TOKEN, env.GH_TOKEN, env.GITHUB_TOKEN].some((t) => t !== undefined && t !== '');
}
