/**
 * Compaction keeps request idempotency (spec 7.10 "Compaction must preserve ... request
 * idempotency", 7.17; operator reference `compact`): the real CLI on a real local Git
 * repository. Every request id committed before `compact` (and before a second `compact`
 * after more activity) answers its committed outcome (`request_replayed`), byte-equal to
 * the pre-compaction answer, and leaves the branch exactly where it was.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureRepo, git, inputFiles, repoCli } from '../support/fixture-repo.ts';

const tip = (repo: string): string => git(repo, 'rev-parse', 'refs/heads/work-queue');
const ledger = (repo: string): string => git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl');

const cli = repoCli;

let repo: string;
let file: (name: string, value: unknown) => string;

beforeEach(() => {
  repo = fixtureRepo('fairway-compact-');
  file = inputFiles('fairway-compact-files-');
});

/** The answer of a retry, with the fields that describe the request rather than the attempt. */
function committed(json: any): any {
  const { replayed: _replayed, observed_tip: _tip, bootstrap: _bootstrap, ...rest } = json;
  if (rest.status === 'committed' || rest.status === 'request_replayed') delete rest.status;
  return rest;
}

/** Whether a CLI answer is a replay of a committed request (dispatch receipts say `replayed`). */
const isReplay = (json: any): boolean => json.status === 'request_replayed' || json.replayed === true;

describe('compaction keeps request idempotency (CLI on local Git)', () => {
  it('retries of submit-work, submit-graph, dispatch-next, control, cancel-work, cancel-claim and reprioritize answer the committed outcome after compact and after a second compact', async () => {
    const requests: Array<[string, string[]]> = [
      ['s1', ['submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a']],
      ['g1', ['submit-graph', '--graph-id', 'sdk', '--file', file('g.json', [
        { node_key: 'inspect', payload: { plan: 'inspect' } },
        { node_key: 'code', payload: { plan: 'code' }, depends_on: [{ kind: 'work', node_key: 'inspect' }] },
        { node_key: 'docs', payload: { plan: 'docs' } },
        { node_key: 'extra', payload: { plan: 'extra' } },
      ])]],
      ['d1', ['dispatch-next', '--max-claims', '3', '--max-dispatches', '4']],
      ['c1', ['control', '--name', 'credential_generation', '--generation', 'gen-2', '--reason', 'rotation']],
    ];
    const answers = new Map<string, any>();
    for (const [id, args] of requests) {
      const r = await cli(repo, '--request-id', id, ...args);
      expect(r.code, JSON.stringify(r.json)).toBe(0);
      answers.set(id, r.json);
    }
    const claimed = answers.get('d1').claims as Array<{ claim_id: string; work_id: string }>;
    const extra = answers.get('g1').work_ids[3] as string;
    const more: Array<[string, string[]]> = [
      ['x1', ['cancel-claim', '--claim-id', claimed[1]!.claim_id, '--reason', 'operator_cancelled']],
      ['r1', ['reprioritize', '--work-id', extra, '--priority', '1', '--reason', 'incident']],
      ['w1', ['cancel-work', '--work-id', answers.get('g1').work_ids[1], '--reason', 'operator_cancelled']],
    ];
    for (const [id, args] of more) {
      const r = await cli(repo, '--request-id', id, ...args);
      expect(r.code, JSON.stringify(r.json)).toBe(0);
      answers.set(id, r.json);
    }
    const all = [...requests, ...more];
    // Before compaction: every retry is replayed.
    const before = new Map<string, any>();
    for (const [id, args] of all) {
      const r = await cli(repo, '--request-id', id, ...args);
      expect(r.code, `${id}: ${JSON.stringify(r.json)}`).toBe(0);
      expect(isReplay(r.json), id).toBe(true);
      before.set(id, committed(r.json));
    }

    const check = async (label: string) => {
      const at = tip(repo);
      const bytes = ledger(repo);
      for (const [id, args] of all) {
        const r = await cli(repo, '--request-id', id, ...args);
        expect(r.code, `${label} ${id}: ${JSON.stringify(r.json)}`).toBe(0);
        expect(isReplay(r.json), `${label} ${id}`).toBe(true);
        expect(committed(r.json), `${label} ${id}`).toEqual(before.get(id));
      }
      expect(tip(repo)).toBe(at);
      expect(ledger(repo)).toBe(bytes);
    };

    const first = await cli(repo, 'compact');
    expect(first.json).toMatchObject({ ok: true, status: 'committed', replaced_commits: 7 });
    await check('after compact');

    // More activity, then compact again: the first prefix's requests stay committed.
    const later = await cli(repo, '--request-id', 'd2', 'dispatch-next', '--max-claims', '2');
    expect(later.code).toBe(0);
    before.set('d2', committed((await cli(repo, '--request-id', 'd2', 'dispatch-next', '--max-claims', '2')).json));
    all.push(['d2', ['dispatch-next', '--max-claims', '2']]);
    const second = await cli(repo, 'compact');
    expect(second.json).toMatchObject({ ok: true, status: 'committed', replaced_commits: 2 });
    await check('after the second compact');

    // A committed id reused for another request is still a conflict, and writes nothing.
    const at = tip(repo);
    const other = await cli(repo, '--request-id', 'c1', 'control', '--name', 'credential_generation', '--generation', 'gen-3', '--reason', 'rotation');
    expect(other).toMatchObject({ code: 3, json: { error: { code: 'request_id_conflict' } } });
    const wider = await cli(repo, '--request-id', 'd1', 'dispatch-next', '--max-claims', '2', '--max-dispatches', '4');
    expect(wider.json.error.code).toBe('request_id_conflict');
    expect(tip(repo)).toBe(at);
  });

  it('compact refuses a caller\'s --request-id (option_invalid) and moves nothing: a checkpoint\'s request id is the protocol\'s', async () => {
    expect((await cli(repo, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a')).code).toBe(0);
    const at = tip(repo);
    const refused = await cli(repo, '--request-id', 'cp-1', 'compact');
    expect(refused.code).not.toBe(0);
    expect(refused.json.error.code).toBe('option_invalid');
    expect(refused.json.error.message).toContain('--request-id');
    expect(tip(repo)).toBe(at);
    const done = await cli(repo, 'compact');
    expect(done.json.status).toBe('committed');
    expect(done.json.commit_id).not.toContain('cp-1');
  });

  it('a retry that can no longer be prepared (its Work since claimed or cancelled) is compared on its pre-state: the same request replays, another meaning is request_id_conflict, before and after compact', async () => {
    const a = (await cli(repo, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a', '--priority', '3')).json.work_ids[0] as string;
    const b = (await cli(repo, '--request-id', 's2', 'submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'b', '--priority', '3')).json.work_ids[0] as string;
    const reprioritize = (priority: string) => ['reprioritize', '--work-id', a, '--priority', priority, '--reason', 'incident'];
    const cancel = (reason: string) => ['cancel-work', '--work-id', b, '--reason', reason];
    expect((await cli(repo, '--request-id', 'r1', ...reprioritize('1'))).code).toBe(0);
    expect((await cli(repo, '--request-id', 'w1', ...cancel('operator_cancelled'))).code).toBe(0);
    // a is claimed now: a WorkPriority for it can no longer be prepared; b is cancelled: no second cancellation can be.
    expect((await cli(repo, '--request-id', 'd1', 'dispatch-next', '--max-claims', '1')).json.claims[0].work_id).toBe(a);
    for (const compacted of [false, true]) {
      if (compacted) expect((await cli(repo, 'compact')).code).toBe(0);
      const at = tip(repo);
      expect((await cli(repo, '--request-id', 'r1', ...reprioritize('1'))).json.status, `compacted: ${compacted}`).toBe('request_replayed');
      expect((await cli(repo, '--request-id', 'r1', ...reprioritize('5'))).json.error.code, `compacted: ${compacted}`).toBe('request_id_conflict');
      expect((await cli(repo, '--request-id', 'w1', ...cancel('operator_cancelled'))).json.status, `compacted: ${compacted}`).toBe('request_replayed');
      expect((await cli(repo, '--request-id', 'w1', ...cancel('duplicate'))).json.error.code, `compacted: ${compacted}`).toBe('request_id_conflict');
      expect(tip(repo)).toBe(at);
    }
  });

  it('when the prior Git commit is unreachable, a compacted grant replays with limiting_reason history_compacted; a retry that differs is request_id_conflict (another actor, kind or dispatch_next) or history_compacted, never a replay', async () => {
    expect((await cli(repo, '--request-id', 's1', 'submit-work', '--file', file('a.json', { task: 'a' }), '--node-key', 'a')).code).toBe(0);
    expect((await cli(repo, '--request-id', 'd1', 'dispatch-next', '--max-claims', '4')).code).toBe(0);
    const b = (await cli(repo, '--request-id', 's2', 'submit-work', '--file', file('b.json', { task: 'b' }), '--node-key', 'b')).json.work_ids[0] as string;
    const reprioritize = ['reprioritize', '--work-id', b, '--priority', '1', '--reason', 'incident'];
    expect((await cli(repo, '--request-id', 'r1', ...reprioritize)).code).toBe(0);
    const before = await cli(repo, '--request-id', 'd1', 'dispatch-next', '--max-claims', '4');
    expect(before.json).toMatchObject({ replayed: true, granted_claims: 1, limiting_reason: 'prefix_complete' });
    const retried = await cli(repo, '--request-id', 'r1', ...reprioritize);
    expect(retried.json.status).toBe('request_replayed');
    expect((await cli(repo, 'compact')).code).toBe(0);

    // The compacted ledger alone, on a repository that never had the earlier commits.
    const moved = mkdtempSync(join(tmpdir(), 'fairway-compact-moved-'));
    git(moved, 'init', '-q', '-b', 'main');
    writeFileSync(join(moved, 'work-queue.jsonl'), execFileSync('git', ['-C', repo, 'show', 'refs/heads/work-queue:work-queue.jsonl']));
    git(moved, 'checkout', '-q', '--orphan', 'work-queue');
    git(moved, 'add', 'work-queue.jsonl');
    git(moved, 'commit', '-q', '-m', 'compacted ledger only');
    const at = tip(moved);
    const again = await cli(moved, '--request-id', 'd1', 'dispatch-next', '--max-claims', '4');
    expect(again.code, JSON.stringify(again.json)).toBe(0);
    expect(committed(again.json)).toEqual({ ...committed(before.json), limiting_reason: 'history_compacted' });
    // A dispatch_next's parameters are its caller's input: another one is another request.
    const fewer = await cli(moved, '--request-id', 'd1', 'dispatch-next', '--max-claims', '1');
    expect(fewer.json.error.code).toBe('request_id_conflict');
    // Prepared on today's state the reprioritize no longer matches its commit, honest or not: only
    // the pre-state the checkpoint replaced could tell, so the retry is refused, naming where it is.
    for (const priority of ['1', '5']) {
      const again = await cli(moved, '--request-id', 'r1', 'reprioritize', '--work-id', b, '--priority', priority, '--reason', 'incident');
      expect(again.code).not.toBe(0);
      expect(again.json.error.code).toBe('history_compacted');
      expect(again.json.error.message).toContain('request r1');
      expect(again.json.error.details?.prior_git_sha ?? again.json.error.prior_git_sha).toBeTruthy();
    }
    const foreignKind = await cli(moved, '--request-id', 'd1', 'submit-work', '--file', file('c.json', { task: 'c' }), '--node-key', 'c');
    expect(foreignKind.json.error.code).toBe('request_id_conflict');
    expect(tip(moved)).toBe(at);
  });
});
