/**
 * `fairway issues sync` through the real entry point, on a real Git repository whose
 * aw.json enables backing Issues, against the fake GitHub (Issues, labels, comments routes).
 * A sync that leaves a target pending or a write not done is not a success: exit 3
 * `issues_sync_incomplete`, the report in error.details.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';
import { createFakeGitHub, type FakeGitHub } from '../fake-github/server.ts';
import { issueRoutes, repoIssues } from '../fake-github/routes-issues.ts';
import { labelRoutes } from '../fake-github/routes-labels.ts';
import type { FakeRepository } from '../fake-github/state.ts';
import { issueIn, OTHER, policyWith, rule } from './rules.ts';

let fake: FakeGitHub;
let fakeRepo: FakeRepository;
const saved: Record<string, string | undefined> = {};
const ENV = { FAIRWAY_GITHUB_API_URL: '', GH_TOKEN: 'fake-token', FAIRWAY_ISSUES_WRITE_INTERVAL_MS: '0', FAIRWAY_PROJECTOR_REF: 'b'.repeat(40) };

beforeAll(async () => {
  fake = await createFakeGitHub({ routes: [...labelRoutes, ...issueRoutes] });
  fakeRepo = fake.state.createRepo('owner', 'repo');
  for (const [k, v] of Object.entries({ ...ENV, FAIRWAY_GITHUB_API_URL: fake.url })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  expect(fake.violations).toEqual([]);
  await fake.close();
});

function repoWith(issues: unknown): string {
  const repo = fixtureRepo('fairway-issues-cli-');
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { issues } }));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'aw.json');
  git(repo, 'remote', 'add', 'origin', 'https://github.com/owner/repo.git');
  return repo;
}

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

/** The same without --json: exit code, stdout, stderr. */
async function human(repo: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(['--dir', repo, ...args], { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

async function submit(repo: string, key: string, payload: unknown): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-issues-files-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, JSON.stringify(payload));
  const r = await cli(repo, 'submit-work', '--file', file, '--node-key', key);
  expect(r.code).toBe(0);
  return r.json.work_ids[0] as string;
}

/** git in `repo` with `input` on its standard input (hash-object --stdin, mktree). */
function gitWithInput(repo: string, input: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { input, encoding: 'utf8' }).trim();
}

function jsonFile(value: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fairway-issues-files-')), 'f.json');
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('fairway issues sync', () => {
  it('--dry-run prints the mutations and makes none; sync creates the labelled Issue; a second sync changes nothing', async () => {
    const repo = repoWith({ label: 'my queue' });
    await submit(repo, 'hello', { title: 'Say hello' });
    const dry = await cli(repo, 'issues', 'sync', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.json.label).toBe('my-queue');
    expect(dry.json.would.map((w: { what: string }) => w.what)).toContain('create label my-queue:needs-review');
    expect(dry.json.would.some((w: { what: string }) => w.what.startsWith('create issue for Work'))).toBe(true);
    expect(repoIssues(fake.state, fakeRepo)).toHaveLength(0);

    const real = await cli(repo, 'issues', 'sync');
    expect(real.code).toBe(0);
    expect(real.json.targets[0].status).toBe('queued');
    expect(real.json.targets[0].pending).toEqual([]);
    expect(real.json.bindings.status).toBe('committed');
    const [issue] = repoIssues(fake.state, fakeRepo);
    expect(issue!.title).toBe('Say hello');
    expect([...issue!.labels].sort()).toEqual(['my-queue', 'my-queue:queued']);

    const again = await cli(repo, 'issues', 'sync');
    expect(again.json.requests).toEqual({ github_reads: 2, github_writes: 0, journal_writes: 0, ledger_publications: 0 });
    // The ledger (with its IssueLink/IssueComment bindings) still verifies.
    expect((await cli(repo, 'replay')).code).toBe(0);
  });

  it('a Work named twice (--work-id X --work-id X, or X,X) is one target: one Issue, no journal_invalid', async () => {
    const repo = repoWith(true);
    const workId = await submit(repo, 'twice', { title: 'Named twice' });
    const before = repoIssues(fake.state, fakeRepo).length;
    const r = await cli(repo, 'issues', 'sync', '--work-id', workId, '--work-id', `${workId},${workId}`);
    expect(r.json.error).toBeUndefined();
    expect(r.code).toBe(0);
    expect(r.json.targets.map((t: { work_id: string; issue: { outcome: string } }) => [t.work_id, t.issue.outcome])).toEqual([[workId, 'created']]);
    expect(r.json.deferred).toEqual([]);
    expect(repoIssues(fake.state, fakeRepo).filter((i) => i.title === 'Named twice')).toHaveLength(1);
    expect(repoIssues(fake.state, fakeRepo)).toHaveLength(before + 1);
  });

  it('an API root carrying credentials (https://user:TOKEN@host) never shows the token in the error', async () => {
    const repo = repoWith(true);
    await submit(repo, 'creds', {});
    const url = process.env.FAIRWAY_GITHUB_API_URL!;
    process.env.FAIRWAY_GITHUB_API_URL = url.replace('://', '://x-access-token:ghp_LEAKME0123456789@');
    try {
      let out = '';
      let err = '';
      const code = await runFairway(['--dir', repo, '--json', 'issues', 'sync'], { out: (s) => (out += s), err: (s) => (err += s) });
      expect(code).toBe(3);
      expect(JSON.parse(out).error.code).toBe('store_unreachable');
      expect(`${out}${err}`).not.toContain('ghp_LEAKME0123456789');
    } finally {
      process.env.FAIRWAY_GITHUB_API_URL = url;
    }
  });

  it('an unknown --work-id is a usage error that writes nothing; issues off is a no-op', async () => {
    const repo = repoWith(true);
    await submit(repo, 'a', {});
    const bad = await cli(repo, 'issues', 'sync', '--work-id', 'nope');
    expect(bad.json.error.code).toBe('unknown_work');
    const off = repoWith(false);
    await submit(off, 'a', {});
    const r = await cli(off, 'issues', 'sync');
    expect(r.json).toMatchObject({ ok: true, enabled: false });
  });

  it('projection off or on, the inputs are checked first: an unknown --work-id is unknown_work (exit 2), a --branch with no queue queue_uninitialized and an unreadable queue the store\'s error (exit 3); nothing is written', async () => {
    const on = repoWith(true);
    const off = repoWith(false);
    const workId = await submit(off, 'a', {});
    await submit(on, 'a', {});
    for (const repo of [on, off]) {
      // A branch whose ledger is not a ledger: the store's own verdict on it.
      const blob = gitWithInput(repo, 'not a ledger\n', 'hash-object', '-w', '--stdin');
      const tree = gitWithInput(repo, `100644 blob ${blob}\twork-queue.jsonl\n`, 'mktree');
      git(repo, 'update-ref', 'refs/heads/broken', git(repo, 'commit-tree', tree, '-m', 'broken'));
    }
    const refs = (repo: string) => git(repo, 'for-each-ref', '--format=%(refname) %(objectname)');
    const before = refs(off);
    const read = await cli(off, '--branch', 'broken', 'replay');
    expect(read.code).toBe(3);
    for (const [args, code, exit] of [
      [['issues', 'sync', '--work-id', 'nope'], 'unknown_work', 2],
      [['issues', 'sync', '--work-id', `${workId},nope`], 'unknown_work', 2],
      [['--branch', 'no-such-queue', 'issues', 'sync'], 'queue_uninitialized', 3],
      [['--branch', 'broken', 'issues', 'sync'], read.json.error.code, 3],
    ] as Array<[string[], string, number]>) {
      const disabled = await cli(off, ...args);
      expect([disabled.code, disabled.json.ok, disabled.json.error?.code], `${args.join(' ')}: ${JSON.stringify(disabled.json)}`).toEqual([exit, false, code]);
      // The same answer as with projection on.
      const enabled = await cli(on, ...args);
      expect([enabled.code, enabled.json.error?.code], args.join(' ')).toEqual([exit, code]);
    }
    expect(refs(off)).toBe(before);
    // Valid input on a queue with projection off is still the no-op it was.
    expect(await cli(off, 'issues', 'sync', '--work-id', workId)).toEqual({ code: 0, json: expect.objectContaining({ ok: true, enabled: false }) });
  });

  it('submit-graph naming a backing_issue without an installed grant is refused (resource_unauthorized) and admits nothing', async () => {
    const repo = repoWith(true);
    await submit(repo, 'a', {});
    const dir = mkdtempSync(join(tmpdir(), 'fairway-issues-files-'));
    const file = join(dir, 'graph.json');
    const issue = { kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: String(fakeRepo.id), resource_id: '990001', number: '1' };
    writeFileSync(file, JSON.stringify([{ node_key: 'backed', payload: {}, backing_issue: issue }]));
    const r = await cli(repo, 'submit-graph', '--file', file);
    expect(r.code).not.toBe(0);
    expect(r.json.error.code).toBe('resource_unauthorized');
    expect(r.json.error.message).toContain('exact backing_issues grant');
    const shown = await cli(repo, 'replay');
    expect(shown.code).toBe(0);
    expect(shown.json.commits).toBe(1);
    expect(shown.json.summary.works.total).toBe(1);
  });

  it('policy --file installs projector rules (grants, close-on-result); incoherent or unknown values are policy_invalid naming the field, and change nothing', async () => {
    const repo = repoWith(true);
    const workId = await submit(repo, 'a', {});
    expect((await cli(repo, 'cancel-work', '--work-id', workId, '--reason', 'drain')).code).toBe(0);
    const badValue = await cli(repo, 'policy', '--file', jsonFile(policyWith([{ ...rule(), completion_policy: 'close-always' as never }])), '--epoch', 'epoch-2');
    expect(badValue.json.error.code).toBe('policy_invalid');
    expect(badValue.json.error.message).toContain('projectors.0.completion_policy');
    const badPool = await cli(repo, 'policy', '--file', jsonFile(policyWith([rule({ pools: ['nope'] })])), '--epoch', 'epoch-2');
    expect(badPool.json.error.code).toBe('policy_invalid');
    expect(badPool.json.error.message).toContain('projectors.0.pools');
    expect((await cli(repo, 'replay')).json.summary.policy.epoch).toBe('epoch-1');
    const ok = await cli(repo, 'policy', '--file', jsonFile(policyWith([rule({ completion_policy: 'close-on-result', backing_issues: [issueIn(OTHER, 3) as never] })])), '--epoch', 'epoch-2');
    expect(ok.code).toBe(0);
    const shown = await cli(repo, 'replay');
    expect(shown.json.summary.policy.epoch).toBe('epoch-2');
  });

  it('a sync that leaves a target pending (its Issue creation answered 502) exits 3 with issues_sync_incomplete and the full report in error.details; --dry-run still exits 0; once resolved, sync exits 0', async () => {
    const repo = repoWith(true);
    const workId = await submit(repo, 'lost', { title: 'Lost answer' });
    fake.inject({ method: 'POST', path: '/repos/{owner}/{repo}/issues', kind: 'status', status: 502, process: true, body: { message: 'Bad Gateway' } });
    const r = await cli(repo, 'issues', 'sync', '--work-id', workId);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({
      ok: false,
      error: {
        code: 'issues_sync_incomplete',
        message: expect.stringContaining(workId),
        details: {
          enabled: true,
          incomplete: [{ work_id: workId, pending: ['issue_creation_uncertain'], pending_targets: [`issue:${workId}`], failed: [{ key: `issue:${workId}`, outcome: 'uncertain_http_502' }] }],
          targets: [expect.objectContaining({ work_id: workId, issue: expect.objectContaining({ outcome: 'uncertain_http_502' }), pending: ['issue_creation_uncertain'] })],
          requests: expect.objectContaining({ github_writes: expect.any(Number) }),
        },
      },
    });
    // Still pending on the next run, which sends nothing: not a success either. Human output: the report, then the error.
    const text = await human(repo, 'issues', 'sync', '--work-id', workId);
    expect(text.code).toBe(3);
    expect(text.out).toContain('PENDING: issue_creation_uncertain');
    expect(text.err).toMatch(/^fairway: issues_sync_incomplete: 1 of 1 Work left pending or not written/);
    // A dry run reports and attempts nothing: it exits 0, the pending target in its report.
    const dry = await cli(repo, 'issues', 'sync', '--work-id', workId, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.json).toMatchObject({ ok: true, targets: [{ work_id: workId, pending: ['issue_creation_uncertain'] }] });
    // The operator adopts the Issue the lost answer created; the next sync completes the target.
    const created = repoIssues(fake.state, fakeRepo).find((i) => i.title === 'Lost answer')!;
    expect((await cli(repo, 'issues', 'resolve', '--target', `issue:${workId}`, '--issue', String(created.number))).code).toBe(0);
    const done = await cli(repo, 'issues', 'sync', '--work-id', workId);
    expect(done.code, JSON.stringify(done.json)).toBe(0);
    expect(done.json).toMatchObject({ ok: true, targets: [{ work_id: workId, pending: [] }] });
  });

  it('a sync whose label change is uncertain (500) exits 3 with that write in error.details.incomplete, though nothing is pending in the journal; the next sync completes it and exits 0', async () => {
    const repo = repoWith(true);
    const workId = await submit(repo, 'relabel', { title: 'Relabel me' });
    expect((await cli(repo, 'issues', 'sync', '--work-id', workId)).code).toBe(0);
    expect((await cli(repo, 'cancel-work', '--work-id', workId, '--reason', 'drain')).code).toBe(0);
    fake.inject({ method: 'DELETE', path: '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', kind: 'status', status: 500, body: { message: 'Server Error' } });
    const r = await cli(repo, 'issues', 'sync', '--work-id', workId);
    expect(r.code).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'issues_sync_incomplete', details: { incomplete: [{ work_id: workId, pending: [], failed: [{ key: `issue:${workId}`, outcome: 'uncertain_http_500' }] }] } });
    const next = await cli(repo, 'issues', 'sync', '--work-id', workId);
    expect(next.code, JSON.stringify(next.json)).toBe(0);
    expect(next.json.targets[0]).toMatchObject({ status: 'cancelled', issue: { outcome: 'labels_updated' }, pending: [] });
  });
});
