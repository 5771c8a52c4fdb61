/**
 * The GitHub stores against a fake GitHub Enterprise Server (`createFakeGitHub({ ghes: true })`):
 * REST under `https://HOST/api/v3`, GraphQL at `https://HOST/api/graphql`, and nothing at
 * api.github.com's paths. The shared contract runs on both APIs there, and GraphQL's own rate
 * limit is waited out as on api.github.com: the throttling plugin recognises a GraphQL request
 * by its path (`/graphql`), which GHES's absolute `/api/graphql` URL did not match.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubGraphqlStore } from '../../lib/store/github-graphql.ts';
import { GitHubStore, type GitHubStoreOptions } from '../../lib/store/github.ts';
import { GRAPHQL_PATH } from '../fake-github/graphql.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { contractSuite, type StoreFixture } from './contract.ts';
import { fakeRepositoryFixture, tipOf } from './fake-github-fixture.ts';

const TOKEN = 'ghp_fake_token_for_tests';
const READ = 'FairwayReadLedger';

let fake: FakeGitHub;
let repoCount = 0;

beforeAll(async () => {
  fake = await createFakeGitHub({ ghes: true });
});

afterEach(() => {
  // A request to api.github.com's paths (`/repos/...`, `/graphql`) is a violation on this host.
  expect(fake.violations).toEqual([]);
});

afterAll(async () => {
  await fake?.close();
});

type Kind = 'rest' | 'graphql';

function newRepo(): FakeRepository {
  const repo = fake.state.createRepo('fairway-org', `ghes-${++repoCount}`);
  seedCommit(repo, 'main', { 'README.md': '# project\n' }, 'initial commit');
  return repo;
}

function storeFor(kind: Kind, repo: FakeRepository, extra: Partial<GitHubStoreOptions> = {}): GitHubStore {
  const options = { owner: repo.owner, repo: repo.name, token: TOKEN, baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, lag: { baseMs: 5 }, ...extra };
  return kind === 'graphql' ? new GitHubGraphqlStore(options) : new GitHubStore(options);
}


for (const kind of ['rest', 'graphql'] as const) {
  contractSuite(`GitHub Enterprise Server ${kind} API (fake, /api/v3 and /api/graphql)`, async (): Promise<StoreFixture> => {
    const repo = newRepo();
    return fakeRepositoryFixture(repo, () => storeFor(kind, repo));
  });
}

describe('GitHub Enterprise Server: GraphQL rate limit', () => {
  it('waits out a spent GraphQL limit (RATE_LIMITED, reset in a second) and reads, as on api.github.com', async () => {
    const repo = newRepo();
    const v1 = await storeFor('graphql', repo).compareAndSwap(null, new TextEncoder().encode('one\n'), 'one');
    expect(v1.status).toBe('committed');
    const reset = String(Math.floor(Date.now() / 1000) + 1);
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: READ, kind: 'status', status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] } });
    const from = fake.requests.length;
    const snapshot = await storeFor('graphql', repo).read();
    expect(Buffer.from(snapshot.bytes!).toString()).toBe('one\n');
    expect(fake.requests.slice(from).filter((r) => r.operation === READ)).toHaveLength(2);
  });

  it('never resends a publication whose 5xx answer says the limit is spent (it may have run)', async () => {
    const repo = newRepo();
    const v1 = await storeFor('graphql', repo).compareAndSwap(null, new TextEncoder().encode('one\n'), 'one');
    if (v1.status !== 'committed') throw new Error('set-up write failed');
    const spent = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) };
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: 'FairwayPublishLedger', kind: 'status', status: 502, process: true, headers: spent, body: { message: 'Server Error' } });
    const from = fake.requests.length;
    expect(await storeFor('graphql', repo).compareAndSwap(v1.version, new TextEncoder().encode('two\n'), 'two')).toMatchObject({ status: 'uncertain' });
    expect(fake.requests.slice(from).filter((r) => r.operation === 'FairwayPublishLedger')).toHaveLength(1);
    expect(repo.objects.commits.get(tipOf(repo)!)!.parents).toEqual([v1.version]);
  });

  it('still never waits an hour: a limit that resets later is github_rate_limited at once', async () => {
    const repo = newRepo();
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: READ, kind: 'status', status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] } });
    const started = Date.now();
    await expect(storeFor('graphql', repo).read()).rejects.toMatchObject({ code: 'github_rate_limited' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
