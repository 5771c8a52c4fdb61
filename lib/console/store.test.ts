/**
 * The GitHub host the console names and links runs on: the host its GitHub store's API root
 * serves (lib/github/host.ts), github.com for a local Git or file store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_ENV, encodeConfig, sourceLabel, type ConsoleSource } from './config.ts';
import { consoleRuntime, resetRuntime } from './context.ts';
import { consoleGitHubHost } from './store.ts';

const GITHUB: ConsoleSource = { kind: 'github', github: 'acme/queue', branch: 'work-queue' };
const LOCAL: ConsoleSource[] = [
  { kind: 'repo', repo: '/srv/queue', branch: 'work-queue' },
  { kind: 'remote', repo: '/srv/queue', remote: 'origin', branch: 'work-queue' },
  { kind: 'ledger', ledger: '/srv/queue.jsonl' },
];
const GHES = 'https://ghe.example.com/api/v3';

describe('consoleGitHubHost', () => {
  it('is the host the GitHub store\'s API root serves: a GitHub Enterprise Server root serves its own host, api.github.com github.com', () => {
    expect(consoleGitHubHost(GITHUB, {})).toBe('github.com');
    expect(consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: '' })).toBe('github.com');
    expect(consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: 'https://api.github.com' })).toBe('github.com');
    expect(consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: GHES })).toBe('ghe.example.com');
    expect(consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: 'https://GHE.Example.com:8443/api/v3/' })).toBe('ghe.example.com:8443');
    // The console's store reads FAIRWAY_GITHUB_API_URL only: a GITHUB_API_URL it ignores names no host either.
    expect(consoleGitHubHost(GITHUB, { GITHUB_API_URL: GHES })).toBe('github.com');
    // A root that is neither (a proxy): the host GITHUB_SERVER_URL names, as lib/github/host.ts servedHost says.
    expect(consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: 'http://127.0.0.1:9000', GITHUB_SERVER_URL: 'https://ghe.example.com' })).toBe('ghe.example.com');
  });

  it('is github.com for a local Git or file store, which names no server', () => {
    for (const source of LOCAL) expect(consoleGitHubHost(source, { FAIRWAY_GITHUB_API_URL: GHES }), source.kind).toBe('github.com');
  });
});

describe('sourceLabel', () => {
  it('names a GitHub-backed queue on the host its store talks to; local sources keep their labels', () => {
    expect(sourceLabel(GITHUB, consoleGitHubHost(GITHUB, { FAIRWAY_GITHUB_API_URL: GHES }))).toBe('ghe.example.com/acme/queue @ work-queue');
    expect(sourceLabel(GITHUB, consoleGitHubHost(GITHUB, {}))).toBe('github.com/acme/queue @ work-queue');
    expect(LOCAL.map((s) => sourceLabel(s, consoleGitHubHost(s, { FAIRWAY_GITHUB_API_URL: GHES })))).toEqual([
      '/srv/queue @ work-queue',
      '/srv/queue → origin/work-queue',
      '/srv/queue.jsonl (read-only file)',
    ]);
  });
});

describe('the console runtime', () => {
  const saved = { config: process.env[CONFIG_ENV], api: process.env.FAIRWAY_GITHUB_API_URL, token: process.env.GH_TOKEN };
  const restore = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  afterEach(() => {
    resetRuntime();
    restore(CONFIG_ENV, saved.config);
    restore('FAIRWAY_GITHUB_API_URL', saved.api);
    restore('GH_TOKEN', saved.token);
  });

  it('links runs on the host of the API root `fairway console` hands its GitHub store', () => {
    // What `fairway console -R ghe.example.com/acme/queue` leaves in the process environment.
    process.env[CONFIG_ENV] = encodeConfig({ source: GITHUB, demo: false, mode: 'local', pollMs: 5000, principal: '1' });
    process.env.FAIRWAY_GITHUB_API_URL = GHES;
    process.env.GH_TOKEN = 'test-token';
    resetRuntime();
    expect(consoleRuntime().githubHost).toBe('ghe.example.com');
    process.env.FAIRWAY_GITHUB_API_URL = 'https://api.github.com';
    resetRuntime();
    expect(consoleRuntime().githubHost).toBe('github.com');
  });
});
