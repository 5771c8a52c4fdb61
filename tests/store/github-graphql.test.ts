/**
 * GitHubGraphqlStore against the fake GitHub, whose `POST /graphql` validates
 * every query, mutation and variable set against GitHub's GraphQL schema
 * (`@octokit/graphql-schema`) and whose REST answers are validated against the
 * OpenAPI description: the shared contract, the request budget (one query per
 * read, one mutation per publication), and the outcomes of a strict
 * compare-and-swap over HTTP — stale heads, lost answers, 5xx, truncated text.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../engine/replay/index.ts';
import { bootstrapRequest, submitRequest } from '../../engine/requests/operations.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LEDGER_MAX_BYTES } from '../../lib/store/checks.ts';
import { GitHubGraphqlStore, gitBlobId } from '../../lib/store/github-graphql.ts';
import { GitHubStore, type GitHubStoreOptions } from '../../lib/store/github.ts';
import { LazyGitHubStore } from '../../lib/store/github-lazy.ts';
import { githubApiFor, openStore } from '../../lib/store/open.ts';
import { GRAPHQL_PATH } from '../fake-github/graphql.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { FAKE_USER, seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { bigLedger, contractSuite, type StoreFixture } from './contract.ts';
import { fakeRepositoryFixture, tipOf } from './fake-github-fixture.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const TOKEN = 'ghp_fake_token_for_tests';
const PUBLISH = 'FairwayPublishLedger';
const READ = 'FairwayReadLedger';
const BLOB = '/repos/{owner}/{repo}/git/blobs/{file_sha}';
const TEXT_LIMIT = 64 * 1024;

let fake: FakeGitHub;
let repoCount = 0;

beforeAll(async () => {
  fake = await createFakeGitHub({ graphql: { blobTextLimit: TEXT_LIMIT } });
});

afterEach(() => {
  // Every GraphQL document and variable set validated against GitHub's schema; every REST answer against OpenAPI.
  expect(fake.violations).toEqual([]);
  fake.lagRefReads(0);
});

afterAll(async () => {
  await fake?.close();
});

function newRepo(): FakeRepository {
  const repo = fake.state.createRepo('fairway-org', `gql-queue-${++repoCount}`);
  seedCommit(repo, 'main', { 'README.md': '# project\n' }, 'initial commit');
  return repo;
}

function storeFor(repo: FakeRepository, extra: Partial<GitHubStoreOptions> = {}): GitHubGraphqlStore {
  return new GitHubGraphqlStore({ owner: repo.owner, repo: repo.name, token: TOKEN, baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, lag: { baseMs: 5 }, ...extra });
}

const since = () => fake.requests.length;
const seen = (from: number) => fake.requests.slice(from);
const graphqlOps = (from: number) => seen(from).filter((r) => r.template === GRAPHQL_PATH).map((r) => r.operation);

async function committedVersion(store: GitHubGraphqlStore, expected: string | null, body: string): Promise<string> {
  const outcome = await store.compareAndSwap(expected, utf8(body), `work-queue: test\n\nQueueCommit ${body.length}`);
  if (outcome.status !== 'committed') throw new Error(`expected a commit, got ${JSON.stringify(outcome)}`);
  return outcome.version;
}

contractSuite('GitHub GraphQL API (fake, schema-validated)', async (): Promise<StoreFixture> => {
  const repo = newRepo();
  return fakeRepositoryFixture(repo, () => storeFor(repo));
});

describe('GitHubGraphqlStore: two requests', () => {
  it('reads the ledger with one GraphQL query and publishes with one createCommitOnBranch mutation', async () => {
    const repo = newRepo();
    const v1 = await committedVersion(storeFor(repo), null, 'one\n');
    const store = storeFor(repo);
    let from = since();
    const snapshot = await store.read();
    expect(snapshot.version).toBe(v1);
    expect(Buffer.from(snapshot.bytes!).toString()).toBe('one\n');
    expect(seen(from)).toHaveLength(1);
    expect(graphqlOps(from)).toEqual([READ]);
    from = since();
    const v2 = await committedVersion(store, v1, 'one\ntwo\n');
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    expect(seen(from)).toHaveLength(1);
    expect(repo.objects.commits.get(v2)!.parents).toEqual([v1]);
    expect(repo.objects.commits.get(v2)!.message).toBe('work-queue: test\n\nQueueCommit 8'); // headline + body, as GitHub joins them
    from = since();
    expect(await store.readVersion()).toBe(v2);
    expect(seen(from)).toHaveLength(1);
  });

  it('takes at most two requests for a checked read + publication through the publisher', async () => {
    const repo = newRepo();
    const ref = seedCommit(repo, 'main', { '.github/workflows/worker.lock.yml': 'on: workflow_dispatch\n' });
    const repository = `${repo.owner}/${repo.name}`;
    const policy = policyFromSettings(defaultWorkQueueSettings(), { repository, principal: String(FAKE_USER.id), profile: { ref } });
    const actor = { role: 'producer' as const, principal: String(FAKE_USER.id), repository };
    const submit = (id: string, key: string) => ({
      requestId: id, actor,
      prepare: (projection: Projection, ids: { at: number }) => submitRequest(projection.state, [{ node_key: key, payload: { plan: key } }], { graphId: `g-${key}`, at: ids.at }),
      bootstrap: (ids: { at: number }) => bootstrapRequest(policy, 'epoch-1', [{ node_key: key, payload: { plan: key } }], { graphId: `g-${key}`, at: ids.at }),
    });
    expect((await new Publisher(storeFor(repo)).publish(submit('genesis', 'first'))).status).toBe('committed');

    // A cold process (as every CLI activation is): one checked read, then one publication.
    const from = since();
    const outcome = await new Publisher(storeFor(repo)).publish(submit('second', 'second'));
    expect(outcome).toMatchObject({ status: 'committed', attempts: 1, bootstrap: false });
    expect(seen(from).length).toBeLessThanOrEqual(2);
    expect(graphqlOps(from)).toEqual([READ, PUBLISH]);
    expect(tipOf(repo)).toBe((outcome as { version: string }).version);

    // A warm publisher: its next publication checks the version (one small query) and publishes.
    const warm = new Publisher(storeFor(repo));
    await warm.publish(submit('third', 'third'));
    const next = since();
    expect((await warm.publish(submit('fourth', 'fourth'))).status).toBe('committed');
    expect(graphqlOps(next)).toEqual(['FairwayReadVersion', PUBLISH]);
  });
});

describe('GitHubGraphqlStore: write spacing', () => {
  it('spaces mutations by the write interval but never queues a GraphQL query behind one', async () => {
    const repo = newRepo();
    const v1 = await committedVersion(storeFor(repo), null, 'one\n');
    const INTERVAL = 2500;
    const store = storeFor(repo, { writeIntervalMs: INTERVAL });
    // Both bounds count from the first mutation's start, where its write slot starts: a loaded
    // machine can only make the queries slower (they stay far under INTERVAL) and the second
    // mutation later, so neither bound depends on how long each call takes.
    const slot = Date.now();
    const v2 = await committedVersion(store, v1, 'one\ntwo\n'); // takes the write slot
    for (let i = 0; i < 3; i++) expect(await store.readVersion()).toBe(v2);
    // Three queries straight after a mutation: none waited for the next write slot.
    expect(Date.now() - slot).toBeLessThan(INTERVAL);
    await committedVersion(store, v2, 'one\ntwo\nthree\n');
    // The next mutation did wait for it (a timer may fire a millisecond early by Date.now).
    expect(Date.now() - slot).toBeGreaterThanOrEqual(INTERVAL - 5);
  });
});

describe('GitHubGraphqlStore: compare-and-swap over GraphQL', () => {
  it('maps a stale expectedHeadOid (STALE_DATA) to a conflict and leaves the branch where it was', async () => {
    const repo = newRepo();
    const v1 = await committedVersion(storeFor(repo), null, 'one\n');
    const v2 = await committedVersion(storeFor(repo), v1, 'two\n');
    const from = since();
    const stale = await storeFor(repo).compareAndSwap(v1, utf8('stale\n'), 'stale');
    expect(stale.status).toBe('conflict');
    expect(graphqlOps(from)).toEqual([PUBLISH]); // decided from the answer: no extra read
    expect(tipOf(repo)).toBe(v2);
  });

  it('returns uncertain when the mutation answer is lost after GitHub applied it, and never resends it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'drop-after' });
    const from = since();
    const outcome = await store.compareAndSwap(v1, utf8('two\n'), 'two');
    expect(outcome.status).toBe('uncertain');
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    const tip = tipOf(repo)!;
    expect(repo.objects.commits.get(tip)!.parents).toEqual([v1]);
    const back = await store.read(); // resolved by reading back
    expect(back.version).toBe(tip);
    expect(Buffer.from(back.bytes!).toString()).toBe('two\n');
  });

  it('returns uncertain when the mutation ran but its 200 answer is not JSON (a proxy page), and reading back resolves it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 200, process: true, headers: { 'content-type': 'text/html; charset=utf-8' }, raw: '<html><body>upstream reset</body></html>' });
    const from = since();
    expect(await store.compareAndSwap(v1, utf8('two\n'), 'two')).toMatchObject({ status: 'uncertain' });
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    const tip = tipOf(repo)!;
    expect(repo.objects.commits.get(tip)!.parents).toEqual([v1]); // it had run
    expect(Buffer.from((await store.read()).bytes!).toString()).toBe('two\n');
  });

  it('returns uncertain on a 5xx answer to the mutation, without resending it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 502, body: { message: 'Server Error' } });
    const from = since();
    expect((await store.compareAndSwap(v1, utf8('two\n'), 'two')).status).toBe('uncertain');
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    expect(tipOf(repo)).toBe(v1);
  });

  it('returns uncertain on a 5xx answer that says the rate limit is spent (the mutation took the last point), without resending it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    const spent = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) };
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 502, process: true, headers: spent, body: { message: 'Server Error' } });
    const from = since();
    expect(await store.compareAndSwap(v1, utf8('two\n'), 'two')).toMatchObject({ status: 'uncertain' }); // not a conflict with its own resent write
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    expect(repo.objects.commits.get(tipOf(repo)!)!.parents).toEqual([v1]);
    expect(Buffer.from((await store.read()).bytes!).toString()).toBe('two\n');
  });

  it('returns uncertain on "Something went wrong" (a GraphQL timeout), without resending it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 200, process: true, body: { data: null, errors: [{ message: 'Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug.' }] } });
    const from = since();
    expect((await store.compareAndSwap(v1, utf8('two\n'), 'two')).status).toBe('uncertain');
    expect(graphqlOps(from)).toEqual([PUBLISH]);
    expect(repo.objects.commits.get(tipOf(repo)!)!.parents).toEqual([v1]); // it had run: reading back tells
  });

  it('maps FORBIDDEN to store_write_denied and a rule violation to store_write_denied', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 200, body: { data: { createCommitOnBranch: null }, errors: [{ type: 'FORBIDDEN', path: ['createCommitOnBranch'], message: 'Resource not accessible by integration' }] } });
    await expect(store.compareAndSwap(v1, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_write_denied' });
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 200, body: { data: { createCommitOnBranch: null }, errors: [{ type: 'UNPROCESSABLE', path: ['createCommitOnBranch'], message: 'Repository rule violations found\n\nChanges must be made through a pull request.' }] } });
    await expect(store.compareAndSwap(v1, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_write_denied' });
    expect(tipOf(repo)).toBe(v1);
  });

  it('maps INSUFFICIENT_SCOPES (a token without the repo scope) to store_write_denied after one mutation, and on a read to github_forbidden', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    // GitHub checks scopes while validating the document: HTTP 200, `data: null`, nothing ran.
    const scopes = (field: string) => ({ data: null, errors: [{ type: 'INSUFFICIENT_SCOPES', locations: [{ line: 2, column: 3 }], message: `Your token has not been granted the required scopes to execute this query. The '${field}' field requires one of the following scopes: ['repo'], but your token has only been granted the: ['read:org'] scopes.` }] });
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: PUBLISH, kind: 'status', status: 200, body: scopes('createCommitOnBranch') });
    const publish = since();
    await expect(store.compareAndSwap(v1, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_write_denied' });
    expect(graphqlOps(publish)).toEqual([PUBLISH]); // refused, not uncertain: no read-back, no second mutation
    expect(tipOf(repo)).toBe(v1);
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: READ, kind: 'status', status: 200, body: scopes('repository') });
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_forbidden' });
  });

  it('sends the ledger base64-encoded in fileChanges.additions with expectedHeadOid, byte-exact', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = await committedVersion(store, null, 'one\n');
    const body = new Uint8Array([0xc3, 0xa9, 0x0d, 0x0a, 0xff, 0x00, 0x41]); // not UTF-8, a NUL, CRLF
    const outcome = await store.compareAndSwap(v1, body, 'binary');
    expect(outcome.status).toBe('committed');
    const snapshot = await storeFor(repo).read(); // binary: no GraphQL text, so the REST blob, checked against the OID
    expect(Buffer.compare(Buffer.from(snapshot.bytes!), Buffer.from(body))).toBe(0);
  });
});

describe('GitHubGraphqlStore: reads at an immutable head', () => {
  it('falls back to the REST blob, checked against the OID, only when GraphQL reports the text truncated', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const small = bigLedger(TEXT_LIMIT - 1024);
    const v1 = await committedVersion(store, null, Buffer.from(small).toString('utf8'));
    let from = since();
    expect(Buffer.compare(Buffer.from((await storeFor(repo).read()).bytes!), Buffer.from(small))).toBe(0);
    expect(seen(from).map((r) => r.template)).toEqual([GRAPHQL_PATH]); // the text was whole: no REST

    const big = bigLedger(TEXT_LIMIT * 3);
    await committedVersion(store, v1, Buffer.from(big).toString('utf8'));
    from = since();
    expect(Buffer.compare(Buffer.from((await storeFor(repo).read()).bytes!), Buffer.from(big))).toBe(0);
    expect(seen(from).map((r) => r.template)).toEqual([GRAPHQL_PATH, BLOB]);
  });

  it('refuses a REST blob that does not hash to the OID GraphQL reported (github_response_invalid)', async () => {
    const repo = newRepo();
    const big = bigLedger(TEXT_LIMIT * 2);
    await committedVersion(storeFor(repo), null, Buffer.from(big).toString('utf8'));
    const sha = gitBlobId(big);
    const forged = Buffer.from(big);
    forged[0] = forged[0]! ^ 1;
    fake.inject({ method: 'GET', path: BLOB, kind: 'status', status: 200, body: { sha, node_id: `B_${sha}`, size: forged.length, url: `${fake.url}/x`, content: forged.toString('base64'), encoding: 'base64' } });
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_response_invalid' });
  });

  it('reports a REST blob cut off in transfer as github_response_invalid, not an internal TypeError', async () => {
    const repo = newRepo();
    await committedVersion(storeFor(repo), null, Buffer.from(bigLedger(TEXT_LIMIT * 2)).toString('utf8'));
    fake.inject({ method: 'GET', path: BLOB, kind: 'cut' }); // headers and half the body, then the connection closes
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_response_invalid' });
  });

  it('refuses a ledger over the parser limit as resource_limit (ledger_bytes), as every store does, without fetching it', async () => {
    const repo = newRepo();
    seedCommit(repo, 'work-queue', { 'work-queue.jsonl': Buffer.alloc(LEDGER_MAX_BYTES + 1, 0x0a) });
    const from = since();
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'resource_limit', details: { limit: 'ledger_bytes', max: LEDGER_MAX_BYTES } });
    expect(graphqlOps(from)).toEqual([READ]); // decided from byteSize: no REST blob
  });

  it('reports an exhausted GraphQL rate limit as github_rate_limited, without waiting an hour', async () => {
    const repo = newRepo();
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: READ, kind: 'status', status: 200, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] } });
    const started = Date.now();
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_rate_limited' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not take an empty or missing repository for an absent queue', async () => {
    const empty = fake.state.createRepo('fairway-org', `gql-empty-${++repoCount}`);
    await expect(storeFor(empty).read()).rejects.toMatchObject({ code: 'store_repository_empty' });
    const missing = { owner: 'fairway-org', name: 'does-not-exist' } as FakeRepository;
    await expect(storeFor(missing).read()).rejects.toMatchObject({ code: 'github_not_found' });
  });
});

describe('openStore: which GitHub API', () => {
  it('defaults to GraphQL for api.github.com and to REST for other hosts; FAIRWAY_GITHUB_STORE_API overrides', async () => {
    expect(githubApiFor(undefined, {})).toBe('graphql');
    expect(githubApiFor('https://api.github.com', {})).toBe('graphql');
    expect(githubApiFor('https://ghe.example/api/v3', {})).toBe('rest');
    expect(githubApiFor('http://127.0.0.1:1', { FAIRWAY_GITHUB_STORE_API: 'graphql' })).toBe('graphql');
    expect(() => githubApiFor(undefined, { FAIRWAY_GITHUB_STORE_API: 'soap' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    // openStore answers a LazyGitHubStore; the store it loads on first use is the chosen API's.
    const open = (extra: Record<string, unknown>) => (openStore({ cwd: '/', github: 'o/r', token: 't', env: {}, ...extra }) as LazyGitHubStore).store();
    expect(await open({})).toBeInstanceOf(GitHubGraphqlStore);
    const rest = await open({ githubBaseUrl: 'http://127.0.0.1:1' });
    expect(rest).toBeInstanceOf(GitHubStore);
    expect(rest).not.toBeInstanceOf(GitHubGraphqlStore);
    expect(await open({ githubBaseUrl: 'http://127.0.0.1:1', githubApi: 'graphql' })).toBeInstanceOf(GitHubGraphqlStore);
  });
});
