/**
 * GitHubStore against the local fake GitHub (tests/fake-github), whose every
 * response is checked against GitHub's OpenAPI description: the shared
 * contract, plus the outcomes only an HTTP API has — a connection dropped after
 * the ref update, 5xx answers, rate limits, refused connections — and the
 * mapping of 422 answers to conflicts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodedBytes, GitHubStore, type GitHubStoreOptions } from '../../lib/store/github.ts';
import { MIN_BYTES } from '../../lib/replay/thread-verifier.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { freePort } from './git-daemon.ts';
import { bigLedger, contractSuite, type StoreFixture } from './contract.ts';
import { fakeRepositoryFixture, tipOf } from './fake-github-fixture.ts';
import { duplicateReadSuite } from './duplicates.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const TOKEN = 'ghp_fake_token_for_tests';
const REF_PATCH = '/repos/{owner}/{repo}/git/refs/{ref}';
const REF_CREATE = '/repos/{owner}/{repo}/git/refs';
const BLOBS = '/repos/{owner}/{repo}/git/blobs';

let fake: FakeGitHub;
let repoCount = 0;

beforeAll(async () => {
  fake = await createFakeGitHub();
});

afterEach(() => {
  // Every response the fake sent matched GitHub's OpenAPI description.
  expect(fake.violations).toEqual([]);
});

afterAll(async () => {
  await fake?.close();
});

/** A repository with a default branch, as GitHub repositories have. */
function newRepo(): FakeRepository {
  const repo = fake.state.createRepo('fairway-org', `queue-${++repoCount}`);
  seedCommit(repo, 'main', { 'README.md': '# project\n' }, 'initial commit');
  return repo;
}

function storeFor(repo: FakeRepository, extra: Partial<GitHubStoreOptions> = {}): GitHubStore {
  return new GitHubStore({ owner: repo.owner, repo: repo.name, token: TOKEN, baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, ...extra });
}

function count(method: string, template: string, since = 0): number {
  return fake.requests.slice(since).filter((r) => r.method === method && r.template === template).length;
}


async function githubFixture(): Promise<StoreFixture> {
  const repo = newRepo();
  return fakeRepositoryFixture(repo, () => storeFor(repo));
}

contractSuite('GitHub API (fake, OpenAPI-validated)', githubFixture);
duplicateReadSuite('the GitHub API (fake, OpenAPI-validated)', githubFixture);

describe('decodedBytes', () => {
  it('decodes as Buffer.from does (base64 with GitHub\'s line breaks, UTF-8 with a lone surrogate), a ledger-sized body into shared memory', () => {
    const raw = Buffer.from(Array.from({ length: MIN_BYTES + 7 }, (_, i) => (i * 31) % 256));
    const wrapped = raw.toString('base64').replace(/.{60}/g, '$&\n');
    const texts = ['', 'é漢字😀\n', `{"a":"\ud800"}\n`, 'x'.repeat(MIN_BYTES)];
    // Wrapped base64 just under 4 MiB decoded is longer than 4 MiB as text: sized by what it decodes to.
    const under = raw.subarray(0, MIN_BYTES - 50_000).toString('base64').replace(/.{60}/g, '$&\n');
    const cases: Array<[string, 'base64' | 'utf8']> = [[wrapped, 'base64'], [under, 'base64'], ['aGVsbG8g\nd29ybGQ=\n', 'base64'], ...texts.map((t): [string, 'utf8'] => [t, 'utf8'])];
    for (const [content, encoding] of cases) {
      const bytes = decodedBytes(content, encoding);
      const expected = Buffer.from(content, encoding);
      expect(bytes.equals(expected), `${encoding} ${content.slice(0, 20)}`).toBe(true);
      expect(bytes.buffer instanceof SharedArrayBuffer).toBe(expected.length >= MIN_BYTES);
      if (bytes.buffer instanceof SharedArrayBuffer) expect(bytes.buffer.byteLength).toBe(expected.length); // exactly the body, no slack kept alive
    }
  });
});

describe('GitHubStore', () => {
  it('returns uncertain when the connection drops after GitHub applied the ref update, and never retries it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const since = fake.requests.length;
    fake.inject({ method: 'PATCH', path: REF_PATCH, kind: 'drop-after' });
    const outcome = await store.compareAndSwap(v1.version, utf8('two\n'), 'two');
    expect(outcome.status).toBe('uncertain');
    expect(count('PATCH', REF_PATCH, since)).toBe(1);
    const tip = tipOf(repo)!;
    expect(repo.objects.commits.get(tip)!.parents).toEqual([v1.version]);
    const snapshot = await store.read();
    expect(snapshot.version).toBe(tip);
    expect(Buffer.from(snapshot.bytes!).toString()).toBe('two\n');
  });

  it('returns uncertain when the branch creation is dropped after it was applied', async () => {
    const repo = newRepo();
    fake.inject({ method: 'POST', path: REF_CREATE, kind: 'drop-after' });
    const outcome = await storeFor(repo).compareAndSwap(null, utf8('genesis\n'), 'genesis');
    expect(outcome.status).toBe('uncertain');
    expect(tipOf(repo)).not.toBeNull();
  });

  it('returns uncertain on a 5xx answer to the ref update, without retrying it', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const since = fake.requests.length;
    const exempt = fake.exempt.length;
    fake.inject({ method: 'PATCH', path: REF_PATCH, kind: 'status', status: 502, body: { message: 'Server Error' } });
    expect((await store.compareAndSwap(v1.version, utf8('two\n'), 'two')).status).toBe('uncertain');
    expect(count('PATCH', REF_PATCH, since)).toBe(1);
    expect(tipOf(repo)).toBe(v1.version);
    expect(fake.exempt.slice(exempt)).toEqual([expect.objectContaining({ status: 502, message: expect.stringContaining('not documented') })]);
  });

  it('retries idempotent requests after a 502 and after a secondary rate limit', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const since = fake.requests.length;
    fake.inject({ method: 'POST', path: BLOBS, kind: 'status', status: 502, body: { message: 'Server Error' } });
    fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/git/ref/{ref}', kind: 'status', status: 403, headers: { 'retry-after': '1' }, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' } });
    const outcome = await store.compareAndSwap(null, utf8('x\n'), 'x');
    expect(outcome.status).toBe('committed');
    expect(count('POST', BLOBS, since)).toBe(2);
    expect((await store.read()).version).toBe(tipOf(repo));
  });

  it('gives up on a rate limit that persists, with github_rate_limited', async () => {
    const repo = newRepo();
    const since = fake.requests.length;
    const limited = { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' };
    fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/git/ref/{ref}', kind: 'status', status: 403, times: 3, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) }, body: limited });
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_rate_limited' });
    expect(count('GET', '/repos/{owner}/{repo}/git/ref/{ref}', since)).toBe(3); // the first try and two waits
    fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/git/ref/{ref}', kind: 'status', status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) }, body: limited });
    await expect(storeFor(repo).read()).rejects.toMatchObject({ code: 'github_rate_limited' }); // an hour away: no waiting
    expect(count('GET', '/repos/{owner}/{repo}/git/ref/{ref}', since)).toBe(4);
  });

  it('maps a rejected fast-forward to a conflict, and another 422 with the branch unmoved to an error', async () => {
    const repo = newRepo();
    const store = storeFor(repo);
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const since = fake.requests.length;
    const v2 = (await storeFor(repo).compareAndSwap(v1.version, utf8('two\n'), 'two')) as { version: string };
    const stale = await store.compareAndSwap(v1.version, utf8('stale\n'), 'stale');
    expect(stale).toEqual({ status: 'conflict', actual: v2.version });
    expect(fake.requests.slice(since).filter((r) => r.template === REF_PATCH).map((r) => r.status)).toEqual([200, 422]);
    fake.inject({ method: 'PATCH', path: REF_PATCH, kind: 'status', status: 422, body: { message: 'Object does not exist', documentation_url: 'https://docs.github.com/rest/git/refs#update-a-reference' } });
    await expect(store.compareAndSwap(v2.version, utf8('three\n'), 'three')).rejects.toMatchObject({ code: 'github_request_failed' });
    expect(tipOf(repo)).toBe(v2.version);
  });

  it('sends the token on every request', async () => {
    const repo = newRepo();
    const since = fake.requests.length;
    await storeFor(repo).compareAndSwap(null, utf8('x\n'), 'x');
    const seen = fake.requests.slice(since);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(new Set(seen.map((r) => r.authorization))).toEqual(new Set([`token ${TOKEN}`]));
  });

  it('reads a default-branch file over 1 MiB through the blobs API', async () => {
    const repo = newRepo();
    const big = bigLedger(1.5 * 1024 * 1024);
    seedCommit(repo, 'main', { '.github/workflows/aw.json': big });
    const bytes = await storeFor(repo).readDefaultBranchFile('.github/workflows/aw.json');
    expect(Buffer.compare(Buffer.from(bytes!), Buffer.from(big))).toBe(0);
  });

  it('does not take an empty or missing repository for an absent queue', async () => {
    const empty = fake.state.createRepo('fairway-org', `empty-${++repoCount}`);
    await expect(storeFor(empty).read()).rejects.toMatchObject({ code: 'store_repository_empty' });
    const missing = { owner: 'fairway-org', name: 'does-not-exist' } as FakeRepository;
    await expect(storeFor(missing).read()).rejects.toMatchObject({ code: 'github_not_found' });
  });

  it('reports a refused connection as store_unreachable, for reads and writes', async () => {
    const port = await freePort();
    const store = new GitHubStore({ owner: 'o', repo: 'r', token: TOKEN, baseUrl: `http://127.0.0.1:${port}`, writeIntervalMs: 0, retryBaseMs: 1, retries: 1 });
    await expect(store.read()).rejects.toMatchObject({ code: 'store_unreachable' });
    await expect(store.compareAndSwap(null, utf8('x'), 'x')).rejects.toMatchObject({ code: 'store_unreachable' });
  });

  it('spaces mutating requests through the throttling plugin', async () => {
    const repo = newRepo();
    const started = Date.now();
    await storeFor(repo, { writeIntervalMs: 150 }).compareAndSwap(null, utf8('x\n'), 'x');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 150 - 10); // blob, tree, commit, ref: three gaps
  });

  it('validates its options with stable codes', () => {
    const base = { owner: 'o', repo: 'r', token: TOKEN };
    expect(() => new GitHubStore({ ...base, owner: 'bad owner' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    expect(() => new GitHubStore({ ...base, repo: '..' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    expect(() => new GitHubStore({ ...base, token: '' })).toThrow(expect.objectContaining({ code: 'github_token_missing' }));
    expect(new GitHubStore(base).label).toBe('github:o/r#work-queue');
  });
});
