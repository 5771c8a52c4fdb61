/**
 * The operator CLI against real temporary Git repositories: bootstrap, graph
 * admission, fair grants, administrator actions, idempotent request ids, and
 * bad input that leaves the branch untouched.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureRepo, git, inputFiles, queueTip, repoCli } from '../support/fixture-repo.ts';

const tip = queueTip;
const cli = repoCli;

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-repo-');
  file = inputFiles('fairway-files-');
});

describe('fairway on a local Git repository', () => {
  it('reads never initialize a queue', async () => {
    const r = await cli(repo, 'replay');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('queue_uninitialized');
    const d = await cli(repo, 'dispatch-next');
    expect(d.json.error.code).toBe('queue_uninitialized');
    expect(tip(repo)).toBeNull();
  });

  it('a queue branch whose tip deleted the ledger is ledger_missing for reads, doctor and the first submit: no queue is re-created over it', async () => {
    expect((await cli(repo, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a')).code).toBe(0);
    // A hand commit on the queue branch that drops work-queue.jsonl.
    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: 'hi\n' }).toString().trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\tother.txt\n` }).toString().trim();
    const deleted = git(repo, 'commit-tree', tree, '-p', 'work-queue', '-m', 'oops');
    git(repo, 'update-ref', 'refs/heads/work-queue', deleted);
    for (const args of [['verify'], ['replay'], ['doctor'], ['submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'b']]) {
      const r = await cli(repo, ...args);
      expect(r.code, args[0]).not.toBe(0);
      expect(JSON.stringify(r.json), args[0]).toContain('ledger_missing');
    }
    expect(tip(repo)).toBe(deleted);

    // A merge that keeps another branch's tree (`-s ours` over an unrelated history) drops it too.
    const orphanTree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\tnotes.txt\n` }).toString().trim();
    const orphan = git(repo, 'commit-tree', orphanTree, '-m', 'unrelated');
    const merged = git(repo, 'commit-tree', orphanTree, '-p', orphan, '-p', 'work-queue', '-m', 'merge -s ours');
    git(repo, 'update-ref', 'refs/heads/work-queue', merged);
    const afterMerge = await cli(repo, 'submit-work', '--file', file('c.json', { task: 'c' }), '--node-key', 'c');
    expect(afterMerge.json.error.code).toBe('ledger_missing');
    expect(tip(repo)).toBe(merged);
  });

  it('a queue branch pointing at an object the repository lacks is store_ref_dangling for reads, doctor and the first submit, not queue_uninitialized: nothing is written', async () => {
    const missing = '1234567890'.repeat(4);
    // git update-ref refuses a missing object: written by hand, as a broken clone leaves it.
    writeFileSync(join(repo, '.git', 'refs', 'heads', 'work-queue'), `${missing}\n`);
    for (const args of [['verify'], ['replay'], ['submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a']]) {
      const r = await cli(repo, ...args);
      expect([r.code, r.json.error?.code], args[0]).toEqual([3, 'store_ref_dangling']);
    }
    const doctor = await cli(repo, 'doctor');
    expect(doctor.code).not.toBe(0);
    expect(JSON.stringify(doctor.json)).toContain('store_ref_dangling');
    expect(git(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(missing);
  });

  it('counts are decimal digits: 0x10, 1e2, 1.0 and \'\' are option_invalid for dispatch-next (one parser, parse.ts intIn, for every count option); nothing is written', async () => {
    expect((await cli(repo, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a')).code).toBe(0);
    const at = tip(repo);
    for (const bad of ['0x10', '1e2', '1.0', '']) {
      const r = await cli(repo, 'dispatch-next', '--max-claims', bad);
      expect(r.code, bad).toBe(2);
      expect(r.json.error.code, bad).toBe('option_invalid');
      expect((await cli(repo, 'dispatch-next', '--max-dispatches', bad)).json.error.code, bad).toBe('option_invalid');
    }
    expect(tip(repo)).toBe(at);
    expect((await cli(repo, 'dispatch-next', '--max-claims', '16')).code).toBe(0);
  });

  it('bootstraps with the default Policy, admits a graph, grants fairly and replays', async () => {
    const first = await cli(repo, '--request-id', 'submit-1', 'submit-work', '--file', file('p.json', { task: 'hello' }), '--node-key', 'hello');
    expect(first.code).toBe(0);
    expect(first.json.bootstrap).toBe(true);
    expect(first.json.work_ids).toHaveLength(1);
    expect(git(repo, 'ls-tree', '--name-only', 'work-queue')).toBe('work-queue.jsonl'); // a separate branch holding only the ledger
    expect(git(repo, 'rev-parse', 'main')).not.toBe(tip(repo));

    const graph = [
      { node_key: 'inspect', payload: { plan: 'inspect' } },
      { node_key: 'code', payload: { plan: 'code' }, depends_on: [{ kind: 'work', node_key: 'inspect' }] },
      { node_key: 'docs', payload: { plan: 'docs' }, depends_on: [{ kind: 'work', node_key: 'inspect' }] },
    ];
    const g = await cli(repo, '--request-id', 'graph-1', 'submit-graph', '--file', file('g.json', graph), '--graph-id', 'sdk');
    expect(g.code).toBe(0);
    expect(g.json.work_ids).toHaveLength(3);

    const grant = await cli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '4', '--max-dispatches', '4');
    expect(grant.code).toBe(0);
    expect(grant.json.granted_claims).toBe(2); // hello, inspect; code/docs wait for inspect's Result
    expect(grant.json.grant_status).toBe('partial_batch');
    expect(grant.json.claims.map((c: { handle: string }) => c.handle)).toEqual(['h1', 'h1']);

    const again = await cli(repo, '--request-id', 'grant-1', 'dispatch-next', '--max-claims', '4', '--max-dispatches', '4');
    expect(again.json.replayed).toBe(true);
    expect(again.json.commit_id).toBe(grant.json.commit_id);

    const replay = await cli(repo, 'replay');
    expect(replay.json.summary.works.by_state).toEqual({ available: 2, claimed: 2, completed: 0, cancelled: 0 });
    expect(replay.json.summary.claims.total).toBe(2);
  });

  it('uses .github/workflows/aw.json from the default branch at bootstrap', async () => {
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { concurrency: 3 } }));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'settings');
    expect((await cli(repo, 'submit-work', '--file', file('p.json', { a: 1 }))).code).toBe(0);
    const stats = await cli(repo, 'stats');
    expect(stats.json.pools[0].logical_limit).toBe(3);
  });

  it('a malformed aw.json, a malformed work file and a bad graph write nothing', async () => {
    mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
    writeFileSync(join(repo, '.github', 'workflows', 'aw.json'), JSON.stringify({ work_queue: { concurrency: 'many' } }));
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'bad settings');
    const bad = await cli(repo, 'submit-work', '--file', file('p.json', { a: 1 }));
    expect(bad.code).toBe(3);
    expect(bad.json.error.code).toBe('settings_invalid');
    expect(tip(repo)).toBeNull();

    git(repo, 'rm', '-q', '.github/workflows/aw.json');
    git(repo, 'commit', '-q', '-m', 'no settings');
    expect((await cli(repo, 'submit-work', '--file', file('p.json', { a: 1 }))).code).toBe(0);
    const before = tip(repo);
    const notJson = await cli(repo, 'submit-work', '--file', file('bad.json', '{"a": '));
    expect(notJson.json.error.code).toBe('input_invalid');
    const cycle = await cli(repo, 'submit-graph', '--file', file('cycle.json', [
      { node_key: 'a', payload: {}, depends_on: [{ kind: 'work', node_key: 'b' }] },
      { node_key: 'b', payload: {}, depends_on: [{ kind: 'work', node_key: 'a' }] },
    ]));
    expect(cycle.code).toBe(3);
    expect(cycle.json.error.code).toBe('dependency_cycle');
    expect(cycle.json.error.message).toMatch(/a -> b -> a|b -> a -> b/);
    expect(tip(repo)).toBe(before);
  });

  it('an invalid existing ledger fails closed and is never rewritten', async () => {
    expect((await cli(repo, 'submit-work', '--file', file('p.json', { a: 1 }))).code).toBe(0);
    // Corrupt the ledger with a direct Git write (outside the protocol).
    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: '{"version":3}\n', encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
    const commit = git(repo, 'commit-tree', tree, '-p', tip(repo)!, '-m', 'corrupt');
    git(repo, 'update-ref', 'refs/heads/work-queue', commit);
    const r = await cli(repo, 'submit-work', '--file', file('q.json', { b: 2 }));
    expect(r.code).toBe(3);
    expect(tip(repo)).toBe(commit);
  });

  it('administrator actions: pause grants, reprioritize, cancel a Claim, refuse a non-quiescent policy', async () => {
    const nodes = Array.from({ length: 4 }, (_, i) => ({ node_key: `n${i}`, payload: { i } }));
    expect((await cli(repo, 'submit-graph', '--file', file('g.json', nodes))).code).toBe(0);
    const pause = await cli(repo, 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    expect(pause.code).toBe(0);
    const blocked = await cli(repo, 'dispatch-next');
    expect(blocked.json.limiting_reason).toBe('grants_paused');
    expect(blocked.json.commit_id).toBeNull();
    expect((await cli(repo, 'control', '--name', 'grants_paused', '--paused', 'false', '--reason', 'resolved')).code).toBe(0);

    const state = await cli(repo, 'state');
    const ids = state.json.rows.filter((r: { kind: string }) => r.kind === 'work').map((r: { id: string }) => r.id);
    const up = await cli(repo, 'reprioritize', '--work-id', ids[3], '--priority', '1', '--reason', 'urgent');
    expect(up.code).toBe(0);
    const grant = await cli(repo, 'dispatch-next');
    expect(grant.json.claims[0].work_id).toBe(ids[3]);

    const cancel = await cli(repo, 'cancel-claim', '--claim-id', grant.json.claims[0].claim_id, '--reason', 'operator_cancelled');
    expect(cancel.code).toBe(0);
    // The reference's shape (contract request_roles): an administrator cancel_work with the claim_id fence.
    const lines = git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl').split('\n');
    const record = JSON.parse(lines.find((l) => l.includes(`"id":"${cancel.json.commit_id}"`))!);
    expect(record.request.kind).toBe('cancel_work');
    expect(record.operations).toEqual([{ kind: 'WorkCancellation', work_id: ids[3], reason: 'operator_cancelled', claim_id: grant.json.claims[0].claim_id }]);
    const inspect = await cli(repo, 'inspect', '--work-id', ids[3]);
    expect(inspect.json.state).toBe('cancelled');
    const policy = await cli(repo, 'policy', '--from-config', '--epoch', 'epoch-2');
    expect(policy.json.error.code).toBe('policy_not_quiescent');
    const stale = await cli(repo, 'reprioritize', '--work-id', ids[3], '--priority', '2', '--reason', 'late');
    expect(stale.json.error.code).toBe('work_not_available');
  });
});

describe('request ids', () => {
  it('retrying a submission with the same --request-id replays it, even later in time', async () => {
    const first = await cli(repo, '--request-id', 'same', 'submit-work', '--file', file('p.json', { a: 1 }), '--node-key', 'k');
    expect(first.json.status).toBe('committed');
    await new Promise((r) => setTimeout(r, 20));
    const again = await cli(repo, '--request-id', 'same', 'submit-work', '--file', file('p.json', { a: 1 }), '--node-key', 'k');
    expect(again.json.status).toBe('request_replayed');
    expect(again.json.commit_id).toBe(first.json.commit_id);
    const different = await cli(repo, '--request-id', 'same', 'submit-work', '--file', file('q.json', { a: 2 }), '--node-key', 'k');
    expect(different.json.error.code).toBe('request_id_conflict');
  });
});
