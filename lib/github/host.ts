/**
 * Which GitHub server Fairway talks to: the REST API root, the root GraphQL hangs off, and the
 * host whose Issues and pull requests that root serves. Every surface derives them here.
 *
 * Inputs, and who reads them:
 * - `FAIRWAY_GITHUB_API_URL`: Fairway's own override of the API root (every surface; the Action
 *   sets it from its `api-url` input, `${{ github.api_url }}` by default).
 * - `GITHUB_API_URL`, `GITHUB_SERVER_URL`: what GitHub Actions sets on every runner, GitHub
 *   Enterprise Server included (`GITHUB_ACTIONS=true`).
 * - `-R HOST/OWNER/REPO` and `GH_HOST`: the CLI's host, as `gh` names it.
 *
 * Pure: callers hand in the environment.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export const DOTCOM_HOST = 'github.com';
export const DOTCOM_API_ROOT = 'https://api.github.com';

/** A variable's value; an empty variable is an absent one (GitHub never sets them empty). */
function variable(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function parsedUrl(value: string | undefined): URL | null {
  if (value === undefined || value === '') return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** True for github.com (and its API host); anything else is GitHub Enterprise Server. */
export function isDotCom(host: string): boolean {
  return host === DOTCOM_HOST || host === 'api.github.com';
}

/** True when `root` is api.github.com's (absent: the default root, which is). An unparsable root is not. */
export function isDotComApiRoot(root: string | undefined): boolean {
  if (root === undefined) return true;
  return parsedUrl(root)?.hostname.toLowerCase() === 'api.github.com';
}

/**
 * The root of the GraphQL endpoint for a REST API root: api.github.com serves `/graphql` beside
 * REST, GitHub Enterprise Server serves REST under `https://HOST/api/v3` and GraphQL at
 * `https://HOST/api/graphql` (root `https://HOST/api`).
 */
export function graphqlRoot(restRoot: string | undefined): string {
  const base = (restRoot ?? DOTCOM_API_ROOT).replace(/\/+$/, '');
  return base.replace(/\/api\/v3$/, '/api');
}

/**
 * The API root a process configured by its environment uses (the Action's steps, the API clients
 * of lib/github and the Issues projector): FAIRWAY_GITHUB_API_URL, else GITHUB_API_URL; undefined
 * is api.github.com.
 */
export function envApiRoot(env: Env): string | undefined {
  return variable(env, 'FAIRWAY_GITHUB_API_URL') ?? variable(env, 'GITHUB_API_URL');
}

/**
 * The host whose Issues and pull requests the API root `root` serves (the `host` of their
 * resource identities, spec 7.16): a GitHub Enterprise Server root `https://HOST/api/v3` serves
 * HOST's, api.github.com (the default root) github.com's. Any other root (a proxy, a test
 * server) serves the host GITHUB_SERVER_URL names inside Actions, else github.com.
 */
export function servedHost(root: string | undefined, env: Env): string {
  const api = parsedUrl(root ?? DOTCOM_API_ROOT);
  if (api !== null && /^\/api\/v3\/*$/.test(api.pathname)) return api.host.toLowerCase();
  if (api !== null && api.hostname.toLowerCase() === 'api.github.com') return DOTCOM_HOST;
  const server = parsedUrl(env.GITHUB_SERVER_URL);
  return server !== null && server.host !== '' ? server.host.toLowerCase() : DOTCOM_HOST;
}

/** The host the API root of `env` (`envApiRoot`) serves. */
export function serverHostOf(env: Env): string {
  return servedHost(envApiRoot(env), env);
}

/** The CLI's GitHub host and whether the operator named it (`-R HOST/...` or GH_HOST) or it is the github.com default. */
export interface CliHost {
  host: string;
  from: 'repo' | 'GH_HOST' | 'default';
}

/** The CLI's host, like gh: the host of `-R HOST/OWNER/REPO`, else GH_HOST, else github.com (lower-cased). */
export function cliHost(repoHost: string | undefined, env: Env): CliHost {
  if (repoHost !== undefined) return { host: repoHost.toLowerCase(), from: 'repo' };
  const gh = variable(env, 'GH_HOST');
  return gh !== undefined ? { host: gh.toLowerCase(), from: 'GH_HOST' } : { host: DOTCOM_HOST, from: 'default' };
}

/**
 * The CLI's REST API root for its host (undefined: api.github.com), in this order:
 * 1. FAIRWAY_GITHUB_API_URL;
 * 2. inside GitHub Actions (GITHUB_ACTIONS=true), when neither `-R HOST/...` nor GH_HOST named
 *    a host, GITHUB_API_URL: the run's own server, which on a GitHub Enterprise Server runner
 *    is not api.github.com (GitHub sets GITHUB_API_URL there, not GH_HOST);
 * 3. none for github.com, `https://HOST/api/v3` (GitHub Enterprise Server) for another host.
 * Outside Actions GITHUB_API_URL is not read: like gh, GH_HOST names an Enterprise host. The
 * host (and so the token variables) stays github.com's in case 2: the Action passes its token as GH_TOKEN.
 */
export function cliApiRoot(host: CliHost, env: Env): string | undefined {
  const set = variable(env, 'FAIRWAY_GITHUB_API_URL');
  if (set !== undefined) return set;
  const runner = host.from === 'default' && env.GITHUB_ACTIONS === 'true' ? variable(env, 'GITHUB_API_URL') : undefined;
  if (runner !== undefined) return runner;
  return isDotCom(host.host) ? undefined : `https://${host.host}/api/v3`;
}

/**
 * The API root of the console's store: FAIRWAY_GITHUB_API_URL only (`fairway console` sets it to
 * the CLI's `cliApiRoot`); empty is absent, as everywhere else.
 */
export function explicitApiRoot(env: Env): string | undefined {
  return variable(env, 'FAIRWAY_GITHUB_API_URL');
}
