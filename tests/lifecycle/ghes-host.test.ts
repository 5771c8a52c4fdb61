/**
 * Issue/PR gates on GitHub Enterprise Server (spec 7.16 "host identity errors never imply
 * closed"): the observer's host is the server its API root serves. Against a GHES API root
 * (`https://HOST/api/v3`, here the fake in GHES mode) a gate naming HOST is read, and a gate
 * naming github.com is `host_mismatch` — never read from the enterprise server, whose
 * repository and Issue ids are another numbering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchPostOptions, launchApi, observeApi } from '../../lib/github/context.ts';
import { envApiRoot, serverHostOf } from '../../lib/github/host.ts';
import { readResource } from '../../lib/github/resources.ts';
import { issuesClient } from '../../lib/issues/hook.ts';
import type { ResourceIdentity } from '../../engine/state/state.ts';
import { issueRoutes, seedIssue } from '../fake-github/routes-issues.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import type { FakeRepository } from '../fake-github/state.ts';

const ISSUE_ID = '9007199254740995';
let fake: FakeGitHub;
let repo: FakeRepository;

beforeAll(async () => {
  fake = await createFakeGitHub({ ghes: true, routes: issueRoutes });
  repo = fake.state.createRepo('acme', 'design');
  seedIssue(fake.state, repo, { number: 7, id: ISSUE_ID, state: 'closed', state_reason: 'completed' });
});

afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake?.close();
});

function issueOn(host: string): ResourceIdentity {
  return { kind: 'issue', host, repository: 'acme/design', repository_id: String(repo.id), resource_id: ISSUE_ID, number: '7' } as ResourceIdentity;
}

describe('gates on GitHub Enterprise Server', () => {
  it('reads a gate on the enterprise host through its /api/v3 root (CLI: FAIRWAY_GITHUB_API_URL; Actions: GITHUB_API_URL)', async () => {
    const host = new URL(fake.url).host;
    for (const env of [{ GH_TOKEN: 't', FAIRWAY_GITHUB_API_URL: fake.url }, { GH_TOKEN: 't', GITHUB_API_URL: fake.url, GITHUB_SERVER_URL: `http://${host}` }]) {
      const facts = await readResource(observeApi(env), issueOn(host));
      expect(facts, JSON.stringify(env)).toMatchObject({ read_status: 'ok', resource_state: 'closed' });
    }
  });

  it('never reads a github.com gate from the enterprise server: host_mismatch (unknown), no request', async () => {
    const from = fake.requests.length;
    expect(await readResource(observeApi({ GH_TOKEN: 't', FAIRWAY_GITHUB_API_URL: fake.url }), issueOn('github.com'))).toEqual({ read_status: 'host_mismatch' });
    expect(fake.requests.length).toBe(from);
  });

  it('names the served host the same way for gates and backing Issues', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'github.com'],
      [{ GITHUB_API_URL: 'https://api.github.com', GITHUB_SERVER_URL: 'https://github.com' }, 'github.com'],
      [{ FAIRWAY_GITHUB_API_URL: 'https://GHE.example.com/api/v3' }, 'ghe.example.com'],
      [{ GITHUB_API_URL: 'https://ghe.example.com:8443/api/v3/', GITHUB_SERVER_URL: 'https://ghe.example.com:8443' }, 'ghe.example.com:8443'],
      // Any other root (a proxy) serves the Actions server's host.
      [{ GITHUB_API_URL: 'https://proxy.internal/github', GITHUB_SERVER_URL: 'https://ghe.example.com' }, 'ghe.example.com'],
      // An empty FAIRWAY_GITHUB_API_URL (the Action's `api-url: ''`) is an absent one: GITHUB_API_URL, the runner's server.
      [{ FAIRWAY_GITHUB_API_URL: '', GITHUB_API_URL: 'https://ghe.example.com/api/v3', GITHUB_SERVER_URL: 'https://ghe.example.com' }, 'ghe.example.com'],
    ];
    for (const [env, host] of cases) {
      expect(serverHostOf(env), JSON.stringify(env)).toBe(host);
      expect(observeApi({ ...env, GH_TOKEN: 't' }).host, JSON.stringify(env)).toBe(host);
      expect(launchApi({ ...env, GH_TOKEN: 't' }).host, JSON.stringify(env)).toBe(host);
      expect(issuesClient({ ...env, GH_TOKEN: 't' }).host, JSON.stringify(env)).toBe(host);
    }
  });

  it('sends the launch, observe and dispatch requests to the root the Issues projector uses (FAIRWAY_GITHUB_API_URL, else GITHUB_API_URL; empty is absent)', () => {
    const envs: Array<Record<string, string>> = [
      {},
      { GITHUB_API_URL: 'https://ghe.example.com/api/v3' },
      { FAIRWAY_GITHUB_API_URL: 'http://127.0.0.1:9', GITHUB_API_URL: 'https://ghe.example.com/api/v3' },
      { FAIRWAY_GITHUB_API_URL: '', GITHUB_API_URL: 'https://ghe.example.com/api/v3' },
    ];
    for (const env of envs) {
      const root = envApiRoot(env);
      expect(root, JSON.stringify(env)).toBe(env.FAIRWAY_GITHUB_API_URL || env.GITHUB_API_URL || undefined);
      expect(launchApi({ ...env, GH_TOKEN: 't' }).options.baseUrl, JSON.stringify(env)).toBe(root);
      expect(observeApi({ ...env, GH_TOKEN: 't' }).options.baseUrl, JSON.stringify(env)).toBe(root);
      expect(dispatchPostOptions({ ...env, GH_TOKEN: 't' }).baseUrl, JSON.stringify(env)).toBe(root);
    }
  });
});
