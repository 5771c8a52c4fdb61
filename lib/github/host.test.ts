/**
 * lib/github/host.ts over every combination of its inputs: FAIRWAY_GITHUB_API_URL,
 * GITHUB_API_URL, GITHUB_SERVER_URL, GH_HOST, the host of `-R HOST/OWNER/REPO` and
 * GITHUB_ACTIONS, each absent, empty or set to a github.com or an Enterprise value. Each
 * derivation's expectation is its precedence written out as a list, plus named scenarios
 * (a developer's machine, a github.com runner, a GitHub Enterprise Server runner) with literal answers.
 */
import { describe, expect, it } from 'vitest';
import { cliApiRoot, cliHost, envApiRoot, explicitApiRoot, graphqlRoot, isDotComApiRoot, serverHostOf, type Env } from './host.ts';

const FAIRWAY = [undefined, '', 'https://ghe.fairway.example/api/v3', 'http://127.0.0.1:9/proxy'];
const API = [undefined, '', 'https://api.github.com', 'https://ghe.runner.example/api/v3'];
const SERVER = [undefined, 'https://github.com', 'https://ghe.runner.example'];
const GH_HOST = [undefined, '', 'GHE.gh-host.example'];
const REPO_HOST = [undefined, 'github.com', 'ghe.repo.example'];
const ACTIONS = [undefined, 'true'];

interface Combination {
  env: Env;
  repoHost: string | undefined;
}

function combinations(): Combination[] {
  const out: Combination[] = [];
  for (const f of FAIRWAY) for (const a of API) for (const s of SERVER) for (const h of GH_HOST) for (const r of REPO_HOST) for (const x of ACTIONS) {
    const env: Record<string, string> = {};
    for (const [name, value] of [['FAIRWAY_GITHUB_API_URL', f], ['GITHUB_API_URL', a], ['GITHUB_SERVER_URL', s], ['GH_HOST', h], ['GITHUB_ACTIONS', x]] as const) {
      if (value !== undefined) env[name] = value;
    }
    out.push({ env, repoHost: r });
  }
  return out;
}

const ALL = combinations();
const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/** The host each API root of the table serves, by GITHUB_SERVER_URL for the root that is neither GHES's nor api.github.com's. */
function served(root: string | undefined, server: string | undefined): string {
  switch (root) {
    case undefined:
    case 'https://api.github.com': return 'github.com';
    case 'https://ghe.fairway.example/api/v3': return 'ghe.fairway.example';
    case 'https://ghe.runner.example/api/v3': return 'ghe.runner.example';
    case 'http://127.0.0.1:9/proxy': return server === undefined ? 'github.com' : new URL(server).host;
    default: throw new Error(`no served host for ${root}`);
  }
}

describe('lib/github/host.ts over every input combination', () => {
  it(`covers ${ALL.length} combinations`, () => {
    expect(ALL).toHaveLength(FAIRWAY.length * API.length * SERVER.length * GH_HOST.length * REPO_HOST.length * ACTIONS.length);
  });

  it('envApiRoot: FAIRWAY_GITHUB_API_URL, else GITHUB_API_URL (empty is absent); serverHostOf: the host that root serves', () => {
    for (const { env } of ALL) {
      const root = [env.FAIRWAY_GITHUB_API_URL, env.GITHUB_API_URL].find(set);
      expect(envApiRoot(env), JSON.stringify(env)).toBe(root);
      expect(serverHostOf(env), JSON.stringify(env)).toBe(served(root, env.GITHUB_SERVER_URL));
    }
  });

  it('cliHost: the host of -R, else GH_HOST (lower-cased; empty is absent), else github.com; never GITHUB_SERVER_URL', () => {
    for (const { env, repoHost } of ALL) {
      const expected = repoHost !== undefined ? { host: repoHost, from: 'repo' }
        : set(env.GH_HOST) ? { host: env.GH_HOST.toLowerCase(), from: 'GH_HOST' }
          : { host: 'github.com', from: 'default' };
      expect(cliHost(repoHost, env), JSON.stringify({ env, repoHost })).toEqual(expected);
    }
  });

  it('cliApiRoot: FAIRWAY_GITHUB_API_URL, else inside Actions with no host named GITHUB_API_URL, else none for github.com, else https://HOST/api/v3', () => {
    for (const { env, repoHost } of ALL) {
      const host = cliHost(repoHost, env);
      const expected = set(env.FAIRWAY_GITHUB_API_URL) ? env.FAIRWAY_GITHUB_API_URL
        : env.GITHUB_ACTIONS === 'true' && repoHost === undefined && !set(env.GH_HOST) && set(env.GITHUB_API_URL) ? env.GITHUB_API_URL
        : host.host === 'github.com' ? undefined
          : `https://${host.host}/api/v3`;
      expect(cliApiRoot(host, env), JSON.stringify({ env, repoHost })).toBe(expected);
    }
  });

  it('explicitApiRoot (the console\'s store): FAIRWAY_GITHUB_API_URL only, empty is absent', () => {
    for (const { env } of ALL) expect(explicitApiRoot(env), JSON.stringify(env)).toBe(set(env.FAIRWAY_GITHUB_API_URL) ? env.FAIRWAY_GITHUB_API_URL : undefined);
  });
});

describe('named scenarios', () => {
  it('a developer\'s machine: github.com unless GH_HOST or -R names an Enterprise host', () => {
    expect(cliApiRoot(cliHost(undefined, {}), {})).toBeUndefined();
    expect(cliApiRoot(cliHost(undefined, { GH_HOST: 'GHE.example.com' }), { GH_HOST: 'GHE.example.com' })).toBe('https://ghe.example.com/api/v3');
    expect(cliApiRoot(cliHost('ghe.example.com:8443', {}), {})).toBe('https://ghe.example.com:8443/api/v3');
    expect(serverHostOf({})).toBe('github.com');
    // GITHUB_API_URL outside Actions is not the CLI's (gh ignores it too).
    const stray = { GITHUB_API_URL: 'https://ghe.example.com/api/v3' };
    expect(cliApiRoot(cliHost(undefined, stray), stray)).toBeUndefined();
  });

  it('a github.com runner: api.github.com, github.com', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://api.github.com', GITHUB_SERVER_URL: 'https://github.com' };
    expect(envApiRoot(env)).toBe('https://api.github.com');
    expect(cliApiRoot(cliHost(undefined, env), env)).toBe('https://api.github.com');
    expect(serverHostOf(env)).toBe('github.com');
  });

  it('a GitHub Enterprise Server runner, no GH_HOST, no FAIRWAY_GITHUB_API_URL (or the Action\'s api-url: \'\'): the CLI uses the runner\'s server', () => {
    const runner = { GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://ghe.example.com/api/v3', GITHUB_SERVER_URL: 'https://ghe.example.com' };
    for (const env of [runner, { ...runner, FAIRWAY_GITHUB_API_URL: '' }]) {
      expect(cliHost(undefined, env), JSON.stringify(env)).toEqual({ host: 'github.com', from: 'default' });
      expect(cliApiRoot(cliHost(undefined, env), env), JSON.stringify(env)).toBe('https://ghe.example.com/api/v3');
      expect(envApiRoot(env), JSON.stringify(env)).toBe('https://ghe.example.com/api/v3');
      expect(serverHostOf(env), JSON.stringify(env)).toBe('ghe.example.com');
    }
    // A host the operator names still wins: -R github.com/OWNER/REPO on that runner is github.com.
    expect(cliApiRoot(cliHost('github.com', runner), runner)).toBeUndefined();
    expect(cliApiRoot(cliHost(undefined, { ...runner, GH_HOST: 'other.example' }), { ...runner, GH_HOST: 'other.example' })).toBe('https://other.example/api/v3');
  });

  it('the Action on a GitHub Enterprise Server runner (api-url: github.api_url): the runner\'s server everywhere', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_API_URL: 'https://ghe.example.com/api/v3', GITHUB_SERVER_URL: 'https://ghe.example.com', FAIRWAY_GITHUB_API_URL: 'https://ghe.example.com/api/v3' };
    expect(cliApiRoot(cliHost(undefined, env), env)).toBe('https://ghe.example.com/api/v3');
    expect(envApiRoot(env)).toBe('https://ghe.example.com/api/v3');
    expect(serverHostOf(env)).toBe('ghe.example.com');
  });
});

describe('the store\'s API', () => {
  it('graphqlRoot: /graphql beside api.github.com\'s REST, /api/graphql on GHES, beside any other root', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'https://api.github.com'],
      ['https://api.github.com/', 'https://api.github.com'],
      ['https://ghe.example.com/api/v3', 'https://ghe.example.com/api'],
      ['https://ghe.example.com/api/v3//', 'https://ghe.example.com/api'],
      ['http://127.0.0.1:9', 'http://127.0.0.1:9'],
      ['http://127.0.0.1:9/api/v3/x', 'http://127.0.0.1:9/api/v3/x'],
    ];
    for (const [rest, root] of cases) expect(graphqlRoot(rest), String(rest)).toBe(root);
  });

  it('isDotComApiRoot: the default root and api.github.com (any case, any path); nothing else, an unparsable root neither', () => {
    const cases: Array<[string | undefined, boolean]> = [
      [undefined, true], ['https://api.github.com', true], ['https://API.GitHub.com/x', true],
      ['https://ghe.example.com/api/v3', false], ['http://127.0.0.1:9', false], ['not a url', false], ['https://github.com', false],
    ];
    for (const [root, dotcom] of cases) expect(isDotComApiRoot(root), String(root)).toBe(dotcom);
  });
});
