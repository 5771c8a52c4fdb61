/**
 * Worker routes read through the GitHub API (issue 16 §3) against the fake GitHub, whose
 * responses are validated against @octokit/openapi: the default branch's commit from
 * `git/ref`, the workflow directory and files from `contents` at that exact commit.
 * Permission, rate-limit and transport errors propagate instead of making a route unavailable.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { workerRoutes, WORKERS_FILE } from '../../lib/config/workers.ts';
import { GitHubApi } from '../../lib/github/api.ts';
import { githubRevision, githubSource } from '../../lib/github/revision.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';
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

function repo(files: Record<string, string>): { r: FakeRepository; repository: string; api: GitHubApi; head: string } {
  const r = fake.state.createRepo('fairway-org', `routes-${++count}`);
  const head = seedCommit(r, 'main', { 'README.md': 'x\n', ...files });
  return { r, repository: `${r.owner}/${r.name}`, api: new GitHubApi({ token: 'ghp_fake', baseUrl: fake.url, retries: 0 }), head };
}

describe('worker routes from the GitHub API', () => {
  it('derives the profile from the compiled .lock.yml at the default branch commit, reading contents at that exact ref', async () => {
    const { r, repository, api, head } = repo({ [WORKER_WORKFLOW]: workerWorkflowYaml(), '.github/workflows/worker.md': '---\non: workflow_dispatch\n---\n', '.github/workflows/ci.yml': 'on: push\n' });
    const from = fake.requests.length;
    const source = await githubSource(api, repository);
    const routes = await workerRoutes(source, { repository, principal: '7' });
    expect(routes).toMatchObject({ ref: head, defaultProfile: 'default', profiles: { default: { ref: head, workflow: WORKER_WORKFLOW, principal: '7', effect_scope: repository } } });
    const reads = fake.requests.slice(from).filter((q) => q.template === CONTENTS);
    expect(reads.length).toBeGreaterThan(0);
    // Reads are pinned to `head`: a later commit on the default branch does not change what this source sees.
    seedCommit(r, 'main', { [WORKER_WORKFLOW]: 'on: push\n' });
    expect(new TextDecoder().decode((await source.readFile(WORKER_WORKFLOW))!)).toBe(workerWorkflowYaml());
    expect((await githubRevision(api, repository, WORKER_WORKFLOW)).available).toBe(false);
  });

  it('a workers file naming a missing workflow makes only that worker unavailable', async () => {
    const { repository, api } = repo({
      [WORKERS_FILE]: JSON.stringify({ workers: { a: { workflow: '.github/workflows/a.yml' }, b: { workflow: '.github/workflows/b.yml' } } }),
      '.github/workflows/a.yml': workerWorkflowYaml(),
    });
    const routes = await workerRoutes(await githubSource(api, repository), { repository, principal: '7' });
    expect([Object.keys(routes.profiles), routes.unavailable]).toEqual([['a'], { b: 'workflow_missing' }]);
  });

  it('a repository without a workflows directory has no route (listing 404 is absence)', async () => {
    const { repository, api } = repo({});
    const routes = await workerRoutes(await githubSource(api, repository), { repository, principal: '7' });
    expect([routes.profiles, routes.defaultProfile]).toEqual([{}, undefined]);
  });

  it.each([
    ['permission denied', { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com' } }],
    ['rate limited', { status: 429, body: { message: 'API rate limit exceeded', documentation_url: 'https://docs.github.com' }, headers: { 'retry-after': '60' } }],
  ])('%s on a contents read propagates instead of making the worker unavailable', async (_name, fault) => {
    const { repository, api } = repo({ [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const source = await githubSource(api, repository);
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'status', ...fault });
    await expect(workerRoutes(source, { repository, principal: '7' })).rejects.toBeInstanceOf(ProtocolError);
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'status', ...fault });
    await expect(githubRevision(api, repository, WORKER_WORKFLOW)).rejects.toBeInstanceOf(ProtocolError);
  });

  it('a dropped connection on a contents read propagates', async () => {
    const { repository, api } = repo({ [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const source = await githubSource(api, repository);
    fake.inject({ method: 'GET', path: CONTENTS, kind: 'drop-before' });
    await expect(source.readFile(WORKER_WORKFLOW)).rejects.toBeInstanceOf(ProtocolError);
  });
});
