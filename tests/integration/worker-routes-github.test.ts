/**
 * Worker routes read through the GitHub store (issue 16 §3) against the fake GitHub, whose
 * responses are validated against @octokit/openapi: the default branch's immutable commit
 * from the commits API (`GET /repos/{o}/{r}/commits/{ref}`), the workflow directory and files
 * from the contents API at that exact SHA. Permission, rate-limit and transport errors
 * propagate instead of making a route unavailable. Both store flavours (REST and GraphQL)
 * read the repository through the same REST endpoints.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { workerRoutes, WORKERS_FILE } from '../../lib/config/workers.ts';
import { revisionOf } from '../../lib/github/revision.ts';
import { GitHubGraphqlStore } from '../../lib/store/github-graphql.ts';
import { GitHubStore } from '../../lib/store/github.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';
const COMMIT = '/repos/{owner}/{repo}/commits/{ref}';
let fake: FakeGitHub;
let count = 0;

beforeAll(async () => {
  fake = await createFakeGitHub();
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});
afterAll(async () => {
  await fake?.close();
});

type Kind = 'rest' | 'graphql';

function repo(kind: Kind, files: Record<string, string> | null): { r: FakeRepository; repository: string; store: GitHubStore; head: string | null } {
  const r = fake.state.createRepo('fairway-org', `routes-${++count}`);
  const head = files === null ? null : seedCommit(r, 'main', { 'README.md': 'x\n', ...files });
  const options = { owner: r.owner, repo: r.name, token: 'ghp_fake', baseUrl: fake.url, retries: 0, writeIntervalMs: 0, retryBaseMs: 1, lag: { baseMs: 1 } };
  return { r, repository: `${r.owner}/${r.name}`, store: kind === 'graphql' ? new GitHubGraphqlStore(options) : new GitHubStore(options), head };
}

describe.each<Kind>(['rest', 'graphql'])('worker routes from the GitHub store (%s)', (kind) => {
  it('derives the profile from the compiled .lock.yml at the default branch commit (commits API), reading contents at that exact SHA', async () => {
    const { r, repository, store, head } = repo(kind, { [WORKER_WORKFLOW]: workerWorkflowYaml(), '.github/workflows/worker.md': '---\non: workflow_dispatch\n---\n', '.github/workflows/ci.yml': 'on: push\n' });
    const from = fake.requests.length;
    const source = (await store.defaultRevision())!;
    expect(source).toMatchObject({ ref: head, branch: 'main' });
    const routes = await workerRoutes(source, { repository, principal: '7' });
    expect(routes).toMatchObject({ ref: head, defaultProfile: 'default', profiles: { default: { ref: head, workflow: WORKER_WORKFLOW, principal: '7', effect_scope: repository } } });
    const seen = fake.requests.slice(from);
    expect(seen.filter((q) => q.template === COMMIT)).toHaveLength(1);
    const reads = seen.filter((q) => q.template === CONTENTS);
    expect(reads.length).toBeGreaterThan(0);
    // Every contents read names the immutable SHA, never the branch name.
    for (const q of reads) expect(q.query?.get('ref')).toBe(head);
    // Reads are pinned to `head`: a later commit on the default branch does not change what this revision sees.
    seedCommit(r, 'main', { [WORKER_WORKFLOW]: 'on: push\n' });
    expect(new TextDecoder().decode((await source.readFile(WORKER_WORKFLOW))!)).toBe(workerWorkflowYaml());
    // A fresh revision sees the new tip, where the workflow no longer declares the input.
    const next = (await store.defaultRevision())!;
    expect(await revisionOf(next, WORKER_WORKFLOW)).toMatchObject({ available: false });
    // `at` reads another immutable commit of the same repository (the installed revision, for contracts).
    expect(new TextDecoder().decode((await next.at(head!).readFile(WORKER_WORKFLOW))!)).toBe(workerWorkflowYaml());
    expect(await next.at('f'.repeat(40)).readFile(WORKER_WORKFLOW)).toBeNull();
  });

  it('a workers file naming a missing workflow makes only that worker unavailable', async () => {
    const { repository, store } = repo(kind, {
      [WORKERS_FILE]: JSON.stringify({ workers: { a: { workflow: '.github/workflows/a.yml' }, b: { workflow: '.github/workflows/b.yml' } } }),
      '.github/workflows/a.yml': workerWorkflowYaml(),
    });
    const routes = await workerRoutes((await store.defaultRevision())!, { repository, principal: '7' });
    expect([Object.keys(routes.profiles), routes.unavailable]).toEqual([['a'], { b: 'workflow_missing' }]);
  });

  it('a repository without a workflows directory has no route (listing 404 is absence); an empty repository has no revision', async () => {
    const { repository, store } = repo(kind, {});
    const routes = await workerRoutes((await store.defaultRevision())!, { repository, principal: '7' });
    expect([routes.profiles, routes.defaultProfile]).toEqual([{}, undefined]);
    expect(await repo(kind, null).store.defaultRevision()).toBeNull();
  });

  it.each([
    ['permission denied', 'github_forbidden', { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com' } }],
    ['rate limited', 'github_rate_limited', { status: 429, body: { message: 'API rate limit exceeded', documentation_url: 'https://docs.github.com' }, headers: { 'retry-after': '60', 'x-ratelimit-remaining': '0' } }],
  ])('%s on a contents read propagates (%s) instead of making the worker unavailable', async (_name, code, fault) => {
    const { repository, store } = repo(kind, { [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const source = (await store.defaultRevision())!;
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'status', ...fault });
    await expect(workerRoutes(source, { repository, principal: '7' })).rejects.toMatchObject({ code });
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'status', ...fault });
    await expect(revisionOf(source, WORKER_WORKFLOW)).rejects.toMatchObject({ code });
  });

  it('permission denied on the commits API propagates (no revision is guessed)', async () => {
    const { store } = repo(kind, { [WORKER_WORKFLOW]: workerWorkflowYaml() });
    fake.inject({ method: 'GET', path: COMMIT, kind: 'status', status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com' } });
    await expect(store.defaultRevision()).rejects.toMatchObject({ code: 'github_forbidden' });
  });

  it('a dropped connection on a contents read propagates (store_unreachable)', async () => {
    const { store } = repo(kind, { [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const source = (await store.defaultRevision())!;
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'drop-before' });
    await expect(source.readFile(WORKER_WORKFLOW)).rejects.toMatchObject({ code: 'store_unreachable' });
  });
});
