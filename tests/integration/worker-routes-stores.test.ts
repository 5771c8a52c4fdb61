/**
 * Worker routes come from the store's own repository (issue 16 §3), not from whatever clone
 * the CLI runs in: with `--repo CLONE --remote NAME` they are read from the remote's HEAD
 * branch as just fetched (a stale or diverged local branch is ignored), and with `--github`
 * from the GitHub API (commits + contents at the default branch's SHA) of the fake GitHub;
 * one deploy reads each of those files once per commit, however many profiles use it.
 * Transport, permission and rate-limit errors propagate and publish nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replayLedger } from '../../engine/replay/index.ts';
import { WORKERS_FILE } from '../../lib/config/workers.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { seedCommit } from '../fake-github/state.ts';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

function commitFile(repo: string, path: string, body: string): string {
  writeFileSync(join(repo, path), body);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `change ${path}`);
  return git(repo, 'rev-parse', 'HEAD');
}

async function cli(args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--json', '--principal', '4242', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: out === '' ? null : JSON.parse(out) };
}

function profilesIn(repo: string, branch = 'work-queue'): any {
  const bytes = new Uint8Array(Buffer.from(git(repo, 'show', `${branch}:work-queue.jsonl`) + '\n'));
  return (replayLedger(bytes).state.policy!.policy.pools as any).default.profiles;
}

const payload = (() => {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-stores-')), 'p.json');
  writeFileSync(file, '{"task":"x"}');
  return file;
})();

describe('--remote reads worker routes from the remote, not the clone', () => {
  it('bootstrap, deploy --from-config and policy --from-config follow the remote HEAD branch while the clone\'s main is stale', async () => {
    const origin = fixtureRepo('fairway-origin-');
    const clone = mkdtempSync(join(tmpdir(), 'fairway-clone-'));
    git(clone, 'clone', '-q', origin, '.');
    const cloneHead = git(clone, 'rev-parse', 'main');
    // The remote moves on; the clone never pulls.
    const r1 = commitFile(origin, 'README.md', 'v1\n');
    const remote = ['--repo', clone, '--remote', 'origin'];
    const s = await cli([...remote, '--request-id', 's', 'submit-work', '--file', payload]);
    expect(s.code).toBe(0);
    expect(profilesIn(origin).default.ref).toBe(r1);
    expect(r1).not.toBe(cloneHead);

    // A compatible revision on the remote: deploy reads it from there.
    const r2 = commitFile(origin, WORKER_WORKFLOW, workerWorkflowYaml('v2'));
    const d = await cli([...remote, '--request-id', 'd', 'deploy', '--from-config']);
    // The installed revision's inputs are read from the remote's history too: the same inputs, a compatible revision.
    expect(d.json.deployments[0]).toMatchObject({ status: 'deployed', from: r1, to: r2, available: true, compatible: true });

    // policy --from-config on the drained queue: the authority change configured on the remote moves the profile to the remote tip.
    expect((await cli([...remote, '--request-id', 'c', 'cancel-work', '--work-id', s.json.work_ids[0], '--reason', 'operator_cancelled'])).code).toBe(0);
    const r3 = commitFile(origin, WORKERS_FILE, JSON.stringify({ workers: { default: { workflow: WORKER_WORKFLOW, principal: '5150' } } }));
    expect((await cli([...remote, '--request-id', 'p', 'policy', '--from-config', '--epoch', 'epoch-2'])).code).toBe(0);
    expect(profilesIn(origin).default).toMatchObject({ ref: r3, principal: '5150' });
    expect(git(clone, 'rev-parse', 'main')).toBe(cloneHead);
  });

  it('bootstrap fails with worker_route_unavailable when only the clone (not the remote) has a worker', async () => {
    const origin = fixtureRepo('fairway-origin-');
    git(origin, 'rm', '-q', WORKER_WORKFLOW);
    git(origin, 'commit', '-q', '-m', 'no worker on the remote');
    const clone = mkdtempSync(join(tmpdir(), 'fairway-clone-'));
    git(clone, 'clone', '-q', origin, '.');
    git(clone, 'checkout', '-q', '-b', 'local', 'HEAD~1'); // the clone's checkout still has the worker
    const r = await cli(['--repo', clone, '--remote', 'origin', '--request-id', 's', 'submit-work', '--file', payload]);
    expect(r).toMatchObject({ code: 3, json: { error: { code: 'worker_route_unavailable' } } });
    expect(git(origin, 'branch', '--list', 'work-queue')).toBe('');
  });

  it('an unreachable remote propagates (store_unreachable) instead of publishing defaults', async () => {
    const clone = fixtureRepo('fairway-clone-');
    git(clone, 'remote', 'add', 'origin', join(tmpdir(), 'fairway-no-such-remote-', String(process.pid)));
    const r = await cli(['--repo', clone, '--remote', 'origin', '--request-id', 's', 'submit-work', '--file', payload]);
    expect(r.code).not.toBe(0);
    expect(r.json.error.code).toBe('store_unreachable');
  });
});

describe('--github reads worker routes through the GitHub API', () => {
  let fake: FakeGitHub;
  let n = 0;
  beforeAll(async () => {
    fake = await createFakeGitHub();
  });
  afterEach(() => {
    expect(fake.violations).toEqual([]);
  });
  afterAll(async () => {
    await fake?.close();
  });

  async function withGitHub<T>(kind: 'rest' | 'graphql', run: () => Promise<T>): Promise<T> {
    const saved = { ...process.env };
    Object.assign(process.env, { GH_TOKEN: 'ghp_fake', FAIRWAY_GITHUB_API_URL: fake.url, FAIRWAY_GITHUB_STORE_API: kind });
    delete process.env.FAIRWAY_DISPATCH_TOKEN;
    try {
      return await run();
    } finally {
      process.env = saved;
    }
  }

  it.each(['rest', 'graphql'] as const)('bootstrap installs the default branch commit of the store repository as ref (%s)', async (kind) => {
    const r = fake.state.createRepo('fairway-org', `stores-${++n}`);
    const head = seedCommit(r, 'main', { 'README.md': 'x\n', [WORKER_WORKFLOW]: workerWorkflowYaml() });
    const s = await withGitHub(kind, () => cli(['--github', `${r.owner}/${r.name}`, '--request-id', 's', 'submit-work', '--file', payload]));
    expect(s.code).toBe(0);
    const ledger = r.objects.blobs.get(r.objects.lookup(r.objects.commits.get(r.refs.get('refs/heads/work-queue')!)!.tree, 'work-queue.jsonl')!.sha)!;
    const profiles = (replayLedger(new Uint8Array(ledger)).state.policy!.policy.pools as any).default.profiles;
    expect(profiles.default).toMatchObject({ ref: head, workflow: WORKER_WORKFLOW, principal: '4242' });
    expect(fake.requests.some((q) => q.template === '/repos/{owner}/{repo}/commits/{ref}')).toBe(true);
  });

  it('deploy --from-config reads each worker source once per (path, commit), not once per profile: one worker in two pools, three contents reads', async () => {
    const r = fake.state.createRepo('fairway-org', `stores-${++n}`);
    const v1 = seedCommit(r, 'main', {
      'README.md': 'x\n', [WORKER_WORKFLOW]: workerWorkflowYaml(),
      [WORKERS_FILE]: JSON.stringify({ workers: { c: { workflow: WORKER_WORKFLOW } } }),
      '.github/workflows/aw.json': JSON.stringify({ work_queue: { pools: { a: {} } } }),
    });
    const github = ['--github', `${r.owner}/${r.name}`];
    expect((await withGitHub('graphql', () => cli([...github, '--request-id', 's', 'submit-work', '--file', payload]))).code).toBe(0);
    const v2 = seedCommit(r, 'main', { 'src/worker.ts': 'v2\n' });
    const from = fake.requests.length;
    const d = await withGitHub('graphql', () => cli([...github, '--request-id', 'd', 'deploy', '--from-config']));
    expect(d.code, JSON.stringify(d.json)).toBe(0);
    expect(d.json.deployments.map((x: any) => [x.pool, x.worker_profile, x.status, x.from, x.to, x.available, x.compatible])).toEqual([
      ['a', 'c', 'deployed', v1, v2, true, true], ['default', 'c', 'deployed', v1, v2, true, true],
    ]);
    const reads = fake.requests.slice(from).filter((q) => q.template === '/repos/{owner}/{repo}/contents/{path}')
      .map((q) => `${decodeURIComponent(q.path.slice(`/repos/${r.owner}/${r.name}/contents/`.length))}@${q.query?.get('ref') ?? ''}`);
    // The declaration and the workflow at the new revision, and the workflow at the installed one (its interface).
    expect(reads.sort()).toEqual([`${WORKERS_FILE}@${v2}`, `${WORKER_WORKFLOW}@${v1}`, `${WORKER_WORKFLOW}@${v2}`].sort());
  });

  it.each([
    ['permission denied', 'github_forbidden', { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com' } }],
    ['rate limited', 'github_rate_limited', { status: 403, body: { message: 'API rate limit exceeded', documentation_url: 'https://docs.github.com' }, headers: { 'x-ratelimit-remaining': '0' } }],
  ])('%s reading the worker workflow propagates (%s) and creates no queue', async (_name, code, fault) => {
    const r = fake.state.createRepo('fairway-org', `stores-${++n}`);
    seedCommit(r, 'main', { 'README.md': 'x\n', [WORKER_WORKFLOW]: workerWorkflowYaml() });
    fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/contents/{path}', kind: 'status', ...fault });
    const s = await withGitHub('rest', () => cli(['--github', `${r.owner}/${r.name}`, '--request-id', 's', 'submit-work', '--file', payload]));
    expect(s.json).toMatchObject({ ok: false, error: { code } });
    expect(r.refs.get('refs/heads/work-queue')).toBeUndefined();
  });
});
