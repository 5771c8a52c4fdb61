/**
 * The GitHub stores (REST and GraphQL) under the faults of issue 18 §5:
 * a lagging replica right after bootstrap, and hung requests. Each test
 * reproduces the fault in the fake GitHub first (`lagRefReads`, `hang`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { defaultWorkQueueSettings, policyFromSettings } from '../../lib/config/aw.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_WRITE_TIMEOUT_MS, storeTimeouts } from '../../lib/store/github-client.ts';
import { WRITE_UPLOAD_FLOOR_BYTES_PER_S, writeTimeoutFor } from '../../lib/store/github-timeouts.ts';
import { GitHubGraphqlStore } from '../../lib/store/github-graphql.ts';
import { GitHubStore, type GitHubStoreOptions } from '../../lib/store/github.ts';
import { GRAPHQL_PATH } from '../fake-github/graphql.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { FAKE_USER, seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';
import { bigLedger } from './contract.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const TOKEN = 'ghp_fake_token_for_tests';
const GET_REF = '/repos/{owner}/{repo}/git/ref/{ref}';
const REF_PATCH = '/repos/{owner}/{repo}/git/refs/{ref}';
/** The write timeout of the hung-write tests: short, with room for the writes that do answer on a loaded machine. */
const HUNG_WRITE_MS = 500;

let fake: FakeGitHub;
let repoCount = 0;

beforeAll(async () => {
  fake = await createFakeGitHub();
});

afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.lagRefReads(0);
  fake.slowUploads(0);
});

afterAll(async () => {
  await fake?.close();
});

function newRepo(): FakeRepository {
  const repo = fake.state.createRepo('fairway-org', `faults-${++repoCount}`);
  seedCommit(repo, 'main', { 'README.md': '# project\n' }, 'initial commit');
  return repo;
}

type Kind = 'rest' | 'graphql';
function storeFor(kind: Kind, repo: FakeRepository, extra: Partial<GitHubStoreOptions> = {}): GitHubStore {
  const options = { owner: repo.owner, repo: repo.name, token: TOKEN, baseUrl: fake.url, writeIntervalMs: 0, retryBaseMs: 5, lag: { baseMs: 5 }, ...extra };
  return kind === 'graphql' ? new GitHubGraphqlStore(options) : new GitHubStore(options);
}

const tipOf = (repo: FakeRepository) => repo.refs.get('refs/heads/work-queue') ?? null;
const refReads = (from: number) => fake.requests.slice(from).filter((r) => r.template === GET_REF || r.operation === 'FairwayReadLedger').length;

function firstSubmit(repo: FakeRepository) {
  const repository = `${repo.owner}/${repo.name}`;
  const ref = seedCommit(repo, 'main', { '.github/workflows/worker.lock.yml': 'on: workflow_dispatch\n' });
  const policy = policyFromSettings(defaultWorkQueueSettings(), { repository, principal: String(FAKE_USER.id), profile: { ref } });
  return {
    requestId: 'first-submit',
    actor: { role: 'producer' as const, principal: String(FAKE_USER.id), repository },
    prepare: () => { throw new Error('the queue is absent: only bootstrap runs'); },
    bootstrap: (ids: { at: number }) => bootstrapRequest(policy, 'epoch-1', [{ node_key: 'task', payload: { plan: 'p' } }], { graphId: 'g', at: ids.at }),
  };
}

describe.each<Kind>(['rest', 'graphql'])('lagging replica after bootstrap (%s)', (kind) => {
  it('reports the committed first submission although the just-created ref reads 404 at first (no internal_error)', async () => {
    const repo = newRepo();
    fake.lagRefReads(3); // the ref reads as absent for its first three reads after creation
    const from = fake.requests.length;
    const outcome = await new Publisher(storeFor(kind, repo)).publish(firstSubmit(repo));
    expect(outcome.status).toBe('committed');
    if (outcome.status !== 'committed') return;
    expect(outcome.bootstrap).toBe(true);
    expect(outcome.version).toBe(tipOf(repo));
    // The projection the submit command reads its Work ids from (it crashed on null here).
    expect(outcome.projection.request('first-submit')).toBeDefined();
    expect(refReads(from)).toBeGreaterThanOrEqual(1 + 3 + 1); // the absent read, three lagging reads, the one that showed it
  });

  it('fails with store_read_lagging (never "absent") when the replica stays behind past the bound', async () => {
    const repo = newRepo();
    fake.lagRefReads(50);
    const store = storeFor(kind, repo, { lag: { baseMs: 1, retries: 2 } });
    const outcome = await store.compareAndSwap(null, utf8('genesis\n'), 'genesis');
    expect(outcome.status).toBe('committed');
    await expect(store.read()).rejects.toMatchObject({ code: 'store_read_lagging', details: { committed: tipOf(repo), observed: null } });
  });

  it('does not wait when nothing was written (an absent branch reads as absent at once)', async () => {
    const repo = newRepo();
    fake.lagRefReads(50);
    const from = fake.requests.length;
    expect(await storeFor(kind, repo).read()).toEqual({ version: null, bytes: null });
    expect(refReads(from)).toBe(1);
  });
});

describe.each<Kind>(['rest', 'graphql'])('fairway submit-work on a lagging replica (%s)', (kind) => {
  it('prints the committed first submission with its Work id instead of internal_error', async () => {
    const repo = newRepo();
    seedCommit(repo, 'main', { [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const dir = mkdtempSync(join(tmpdir(), 'fairway-lag-'));
    const payload = join(dir, 'task.json');
    writeFileSync(payload, '{"plan":"inspect"}');
    const saved = { ...process.env };
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: fake.url, FAIRWAY_GITHUB_STORE_API: kind, FAIRWAY_PRINCIPAL: String(FAKE_USER.id) });
    let out = '';
    let err = '';
    try {
      fake.lagRefReads(3);
      const code = await main(['--github', `${repo.owner}/${repo.name}`, '--json', '--request-id', 'first-submit', 'submit-work', '--file', payload, '--node-key', 'inspect'], { out: (t) => void (out += t), err: (t) => void (err += t) });
      expect(err).toBe('');
      expect(code).toBe(0);
    } finally {
      process.env = saved;
      rmSync(dir, { recursive: true, force: true });
    }
    const printed = JSON.parse(out) as { ok: boolean; status: string; bootstrap: boolean; work_ids: string[] };
    expect(printed).toMatchObject({ ok: true, status: 'committed', bootstrap: true });
    expect(printed.work_ids).toHaveLength(1);
    expect(tipOf(repo)).not.toBeNull();
  });
});

describe('client timeouts', () => {
  it('defaults to a few seconds for reads and longer for writes, configurable by FAIRWAY_GITHUB_TIMEOUT_MS', () => {
    expect(storeTimeouts({}, {})).toEqual({ readMs: DEFAULT_READ_TIMEOUT_MS, writeMs: DEFAULT_WRITE_TIMEOUT_MS });
    expect(DEFAULT_READ_TIMEOUT_MS).toBeLessThan(20_000);
    expect(DEFAULT_WRITE_TIMEOUT_MS).toBeGreaterThan(DEFAULT_READ_TIMEOUT_MS);
    expect(storeTimeouts({}, { FAIRWAY_GITHUB_TIMEOUT_MS: '1500', FAIRWAY_GITHUB_WRITE_TIMEOUT_MS: '9000' })).toEqual({ readMs: 1500, writeMs: 9000 });
    expect(storeTimeouts({ readMs: 7 }, { FAIRWAY_GITHUB_TIMEOUT_MS: '1500' }).readMs).toBe(7);
    expect(() => storeTimeouts({}, { FAIRWAY_GITHUB_TIMEOUT_MS: 'soon' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
  });

  it.each<Kind>(['rest', 'graphql'])('abandons a hung read after the read timeout and retries it (%s)', async (kind) => {
    const repo = newRepo();
    const v1 = (await storeFor(kind, repo).compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    fake.inject(kind === 'rest' ? { method: 'GET', path: GET_REF, kind: 'hang' } : { method: 'POST', path: GRAPHQL_PATH, operation: 'FairwayReadLedger', kind: 'hang' });
    const started = Date.now();
    const snapshot = await storeFor(kind, repo, { timeouts: { readMs: 150 } }).read();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(snapshot.version).toBe(v1.version);
  });

  it.each<Kind>(['rest', 'graphql'])('reports a read that hangs every time as store_unreachable, quickly (%s)', async (kind) => {
    const repo = newRepo();
    await storeFor(kind, repo).compareAndSwap(null, utf8('one\n'), 'one');
    fake.inject(kind === 'rest' ? { method: 'GET', path: GET_REF, kind: 'hang', times: 2 } : { method: 'POST', path: GRAPHQL_PATH, operation: 'FairwayReadLedger', kind: 'hang', times: 2 });
    const started = Date.now();
    await expect(storeFor(kind, repo, { timeouts: { readMs: 150 }, retries: 1 }).read()).rejects.toMatchObject({ code: 'store_unreachable', message: expect.stringContaining('did not answer within 150 ms') });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('classifies a hung ref update that GitHub applied as uncertain, never resends it, and reading back resolves it (rest)', async () => {
    const repo = newRepo();
    // The set-up write runs with the default timeouts (a stall there is not what this tests).
    const v1 = (await storeFor('rest', repo).compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const store = storeFor('rest', repo, { timeouts: { writeMs: HUNG_WRITE_MS } });
    fake.inject({ method: 'PATCH', path: REF_PATCH, kind: 'hang', process: true });
    const from = fake.requests.length;
    const started = Date.now();
    const outcome = await store.compareAndSwap(v1.version, utf8('two\n'), 'two');
    expect(outcome).toMatchObject({ status: 'uncertain', reason: expect.stringContaining(`did not answer within ${HUNG_WRITE_MS} ms`) });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fake.requests.slice(from).filter((r) => r.template === REF_PATCH)).toHaveLength(1);
    const back = await store.read();
    expect(back.version).toBe(tipOf(repo));
    expect(Buffer.from(back.bytes!).toString()).toBe('two\n');
  });

  it('classifies a hung createCommitOnBranch as uncertain, never resends it, and reading back resolves it (graphql)', async () => {
    const repo = newRepo();
    // The set-up write runs with the default timeouts (a stall there is not what this tests).
    const v1 = (await storeFor('graphql', repo).compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const store = storeFor('graphql', repo, { timeouts: { writeMs: HUNG_WRITE_MS } });
    fake.inject({ method: 'POST', path: GRAPHQL_PATH, operation: 'FairwayPublishLedger', kind: 'hang', process: true });
    const from = fake.requests.length;
    const outcome = await store.compareAndSwap(v1.version, utf8('two\n'), 'two');
    expect(outcome).toMatchObject({ status: 'uncertain', reason: expect.stringContaining(`did not answer within ${HUNG_WRITE_MS} ms`) });
    expect(fake.requests.slice(from).filter((r) => r.operation === 'FairwayPublishLedger')).toHaveLength(1);
    const back = await store.read();
    expect(back.version).toBe(tipOf(repo));
    expect(repo.objects.commits.get(back.version!)!.parents).toEqual([v1.version]);
  });

  it('resolves a hung first submission through the publisher by reading back (committed, not retried blindly)', async () => {
    const repo = newRepo();
    const submit = firstSubmit(repo);
    fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/git/refs', kind: 'hang', process: true });
    const outcome = await new Publisher(storeFor('graphql', repo, { timeouts: { writeMs: HUNG_WRITE_MS } })).publish(submit);
    expect(outcome.status).toBe('committed');
    expect(fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/git/refs' && r.path.includes(repo.name))).toHaveLength(1);
  });
});

describe('large publications on a slow link', () => {
  it('a write timeout grows with the body beyond 64 KiB, at the upload floor', () => {
    expect(writeTimeoutFor(500, 300)).toBe(500);
    expect(writeTimeoutFor(500, 64 * 1024)).toBe(500);
    expect(writeTimeoutFor(30_000, 64 * 1024 + 40 * 1024 * 1024)).toBe(30_000 + Math.ceil((40 * 1024 * 1024 * 1000) / WRITE_UPLOAD_FLOOR_BYTES_PER_S));
  });

  // About 930 kB of base64 taken in at twice the floor: some 1.8 s to send, far past the 500 ms write timeout.
  it.each<Kind>(['rest', 'graphql'])('publishes a large ledger whose upload outlasts the write timeout, sent once, never cut short (%s)', async (kind) => {
    const repo = newRepo();
    const v1 = (await storeFor(kind, repo).compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const ledger = bigLedger(700 * 1024);
    fake.slowUploads(2 * WRITE_UPLOAD_FLOOR_BYTES_PER_S);
    const from = fake.requests.length;
    const started = Date.now();
    const outcome = await storeFor(kind, repo, { timeouts: { writeMs: HUNG_WRITE_MS } }).compareAndSwap(v1.version, ledger, 'big');
    expect(Date.now() - started).toBeGreaterThan(HUNG_WRITE_MS); // the upload did outlast the plain timeout
    expect(outcome).toMatchObject({ status: 'committed', version: tipOf(repo) });
    const sent = fake.requests.slice(from).filter((r) => r.operation === 'FairwayPublishLedger' || r.template === '/repos/{owner}/{repo}/git/blobs');
    expect(sent).toHaveLength(1);
    fake.slowUploads(0);
    const back = await storeFor(kind, repo).read();
    expect(Buffer.from(back.bytes!).equals(Buffer.from(ledger))).toBe(true);
  });
});
