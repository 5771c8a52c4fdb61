/**
 * `explain --request-id` for every request kind (issue 10 §5; operator
 * reference: uncertain TUI acknowledgments "remain visible for inspection with
 * explain --request-id"): the request's commit and what its operations did,
 * in words and as JSON, on a real local Git repository.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { openBackend } from '../../cli/tui/backend.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';

async function cli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await main(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

async function text(repo: string, ...args: string[]): Promise<string> {
  let out = '';
  const code = await main(['--repo', repo, ...args], { out: (s) => (out += `${s}\n`), err: (s) => (out += `${s}\n`) });
  expect(code, out).toBe(0);
  return out;
}

let repo: string;
let files: string;
let ids: string[];

function file(name: string, value: unknown): string {
  const path = join(files, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

beforeEach(async () => {
  repo = fixtureRepo('fairway-explain-');
  files = mkdtempSync(join(tmpdir(), 'fairway-explain-files-'));
  const nodes = [{ node_key: 'inspect', payload: {} }, { node_key: 'review', payload: {} }, { node_key: 'docs', payload: {} }];
  const seed = await cli(repo, '--request-id', 'seed', 'submit-graph', '--file', file('g.json', nodes), '--graph-id', 'sdk-migration');
  expect(seed.code).toBe(0);
  ids = seed.json.work_ids;
});

async function explained(requestId: string): Promise<any> {
  const r = await cli(repo, 'explain', '--request-id', requestId);
  expect(r.code, JSON.stringify(r.json)).toBe(0);
  expect(r.json.request_id).toBe(requestId);
  expect(r.json.operations_available).toBe(true);
  return r.json;
}

describe('explain --request-id shows what any committed request did and its commit', () => {
  it('a submit: its commit and each admitted Work by graph and node key (the genesis also installs the Policy)', async () => {
    const x = await explained('seed');
    expect(x.kind).toBe('submit');
    expect(x.commit_id).toMatch(/^q_/);
    expect(x.operations[0]).toEqual({ index: 0, kind: 'Policy', summary: 'installed Policy epoch "epoch-1"' });
    const works = x.operations.filter((o: { kind: string }) => o.kind === 'Work');
    expect(works.map((o: { summary: string }) => o.summary.split(' in pool')[0])).toEqual(['admitted Work sdk-migration/inspect', 'admitted Work sdk-migration/review', 'admitted Work sdk-migration/docs']);
    expect(works.map((o: { work_id: string }) => o.work_id)).toEqual(ids);
    expect(x.summary).toBe('1 Policy, 3 Work');
    const more = await cli(repo, '--request-id', 'more', 'submit-work', '--file', file('p.json', {}), '--graph-id', 'sdk-migration', '--node-key', 'ship');
    const y = await explained('more');
    expect(y.commit_id).toBe(more.json.commit_id);
    expect(y.operations).toHaveLength(1);
  });

  it('a control: which control was set to what, with its reason', async () => {
    const c = await cli(repo, '--request-id', 'pause', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    const x = await explained('pause');
    expect(x.kind).toBe('control');
    expect(x.commit_id).toBe(c.json.commit_id);
    expect(x.actor.role).toBe('administrator');
    expect(x.operations).toEqual([{ index: 0, kind: 'Control', summary: 'set control grants_paused to true (reason incident)' }]);
    const human = await text(repo, 'explain', '--request-id', 'pause');
    expect(human).toContain(`request pause (control) by administrator 1: commit ${c.json.commit_id}`);
    expect(human).toContain('#0 Control: set control grants_paused to true (reason incident)');
  });

  it('a priority change: the Work by node key, the old and new priority', async () => {
    const r = await cli(repo, '--request-id', 'incident-priority', 'reprioritize', '--work-id', ids[1]!, '--priority', '1', '--reason', 'operator_reprioritized');
    const x = await explained('incident-priority');
    expect(x.commit_id).toBe(r.json.commit_id);
    expect(x.operations[0]).toMatchObject({ kind: 'WorkPriority', work_id: ids[1], summary: 'changed the priority of Work sdk-migration/review from 3 to 1 (reason operator_reprioritized)' });
  });

  it('a Work cancellation and a Claim cancellation', async () => {
    await cli(repo, '--request-id', 'cancel-w', 'cancel-work', '--work-id', ids[2]!, '--reason', 'operator_cancelled');
    const w = await explained('cancel-w');
    expect(w.kind).toBe('cancel_work');
    expect(w.operations[0].summary).toBe('cancelled Work sdk-migration/docs (reason operator_cancelled)');
    const grant = await cli(repo, '--request-id', 'grant', 'dispatch-next', '--max-claims', '1');
    const claim = grant.json.claims[0].claim_id as string;
    await cli(repo, '--request-id', 'incident-cancel', 'cancel-claim', '--claim-id', claim, '--reason', 'operator_cancelled');
    const c = await explained('incident-cancel');
    expect(c.operations.map((o: { kind: string }) => o.kind)).toContain('WorkCancellation');
    expect(c.operations.some((o: { summary: string }) => o.summary.includes('sdk-migration/inspect'))).toBe(true);
  });

  it('a dispatch_next keeps its grant explanation and also says what it did', async () => {
    const grant = await cli(repo, '--request-id', 'grant', 'dispatch-next', '--max-claims', '1');
    const r = await cli(repo, 'explain', '--request-id', 'grant');
    expect(r.code).toBe(0);
    expect(r.json.commit_id).toBe(grant.json.commit_id);
    expect(r.json.claims).toHaveLength(1);
    expect(r.json.stop_reason).toBeDefined();
    expect(r.json.kind).toBe('dispatch_next');
    expect(r.json.operations.find((o: { kind: string }) => o.kind === 'Claim').summary).toContain('on Work sdk-migration/inspect');
  });

  it('a policy update names the installed epoch', async () => {
    for (const id of ids) await cli(repo, 'cancel-work', '--work-id', id, '--reason', 'drain');
    await cli(repo, '--request-id', 'policy-2', 'policy', '--from-config', '--epoch', 'epoch-2');
    const x = await explained('policy-2');
    expect(x.kind).toBe('policy');
    expect(x.operations[0].summary).toBe('installed Policy epoch "epoch-2"');
  });

  it('a TUI action (stable tui- request id) is explained like any other request', async () => {
    const backend = openBackend({ dir: repo });
    const result = await backend.publish({ action: 'reprioritize', requestId: 'tui-reprioritize-sess-1', ids: [ids[0]!], reason: 'operator_reprioritized', priority: 2 });
    expect(result.status).toBe('committed');
    const x = await explained('tui-reprioritize-sess-1');
    expect(x.commit_id).toBe((result as { commitId: string }).commitId);
    expect(x.operations[0].summary).toBe('changed the priority of Work sdk-migration/inspect from 3 to 2 (reason operator_reprioritized)');
  });

  it('a request id that never committed is unknown_request (an uncertain action that did not land)', async () => {
    const r = await cli(repo, 'explain', '--request-id', 'tui-cancel_work-never');
    expect(r.code).toBe(3);
    expect(r.json.error.code).toBe('unknown_request');
  });

  it('a request older than the checkpoint is described from the pre-compaction ledger in Git history; offline it says plainly its operations were compacted away and names that Git commit', async () => {
    const c = await cli(repo, '--request-id', 'old-pause', 'control', '--name', 'grants_paused', '--paused', 'true', '--reason', 'incident');
    const before = await cli(repo, 'explain', '--request-id', 'old-pause');
    expect(before.json).toMatchObject({ request_id: 'old-pause', kind: 'control', operations_available: true });
    const beforeCompact = git(repo, 'rev-parse', 'work-queue');
    const compacted = await cli(repo, 'compact');
    expect(compacted.code, JSON.stringify(compacted.json)).toBe(0);
    // On the Git store the checkpoint's prior_git_sha is reachable: the same description as before compaction.
    const fromHistory = await cli(repo, 'explain', '--request-id', 'old-pause');
    expect(fromHistory.code, JSON.stringify(fromHistory.json)).toBe(0);
    expect(fromHistory.json).toEqual(before.json);
    // A ledger file has no Git history: the receipt only, saying where the operations are.
    const file = join(mkdtempSync(join(tmpdir(), 'fairway-explain-')), 'work-queue.jsonl');
    writeFileSync(file, git(repo, 'show', 'work-queue:work-queue.jsonl') + '\n');
    let out = '';
    const code = await main(['--ledger', file, '--json', 'explain', '--request-id', 'old-pause'], { out: (t) => (out += t), err: () => undefined });
    expect(code, out).toBe(0);
    const r = JSON.parse(out);
    expect(r).toMatchObject({ request_id: 'old-pause', kind: 'control', commit_id: c.json.commit_id, operations_available: false, operations: [] });
    expect(r.summary).toContain('compacted away');
    expect(r.summary).toContain(beforeCompact);
  });
});
