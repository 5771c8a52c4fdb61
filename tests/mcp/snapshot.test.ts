/**
 * `fairway snapshot` and snapshot loading (spec 7.12, operator reference
 * "Workflow roles and intent tools"): a declared worker without a valid
 * assignment fails (never an observer), an absent queue is uninitialized, an
 * invalid ledger is an error, and a snapshot is immutable and tamper-evident.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bindDispatch, cli, git, grant, makeRepo, nodes, readJson, seedQueue, snapshot, tmp, writeJson,
} from './helpers.ts';

describe('fairway snapshot', () => {
  it('an absent queue is recorded as uninitialized; an observer snapshot holds the ledger bytes, tip and branch version', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-snap-');
    const empty = readJson(await snapshot(repo, 'observer', dir));
    expect(empty).toMatchObject({ schema: 'fairway.snapshot/1', role: 'observer', uninitialized: true, tip: null, branch_version: null, assignment: null, ledger: { text: '', bytes: 0 } });
    expect(empty.origin).toEqual({ principal: '1', repository: null });

    await seedQueue(repo, nodes('a'));
    const out = join(dir, 'observer.json');
    const r = await cli('--repo', repo, '--principal', '77', 'snapshot', '--role', 'observer', '--out', out);
    expect(r.json).toMatchObject({ ok: true, out, role: 'observer', uninitialized: false });
    const s = readJson(out);
    expect(s.tip).toBe(r.json.tip);
    expect(s.branch_version).toBe(git(repo, 'rev-parse', 'refs/heads/work-queue'));
    expect(s.ledger.text).toBe(git(repo, 'show', 'work-queue:work-queue.jsonl') + '\n');
    expect(s.origin).toEqual({ principal: '77', repository: 'acme/queue' });
    expect(s.created_at).toBeGreaterThan(0);

    const again = await cli('--repo', repo, 'snapshot', '--role', 'observer', '--out', out);
    expect(again.json.error.code).toBe('snapshot_exists');
  });

  it('a declared worker with a missing or malformed assignment fails and writes no snapshot', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-snap-');
    await seedQueue(repo, nodes('a', 'b'), { maxClaims: 2 });
    const [assignment] = await grant(repo, 'g', 2);
    const attempt = async (extra: string[]) => {
      const out = join(dir, `w-${Math.random().toString(16).slice(2)}.json`);
      const r = await cli('--repo', repo, 'snapshot', '--role', 'worker', '--out', out, ...extra);
      expect(existsSync(out)).toBe(false);
      return r;
    };
    expect((await attempt([])).json.error.code).toBe('assignment_missing');
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{"dispatch_id": ');
    expect((await attempt(['--assignment', notJson])).json.error.code).toBe('assignment_invalid');
    expect((await attempt(['--assignment', join(dir, 'absent.json')])).json.error.code).toBe('assignment_missing');
    const claims = assignment!.claims as Array<Record<string, unknown>>;
    const scalar = { work_id: claims[0]!.work_id, claim_id: claims[0]!.claim_id, work: claims[0]!.work };
    expect((await attempt(['--assignment', writeJson(dir, 'scalar.json', scalar)])).json.error.code).toBe('assignment_invalid');
    const edited = { ...assignment, claims: [{ ...claims[0], work: { plan: 'something else' } }, claims[1]] };
    expect((await attempt(['--assignment', writeJson(dir, 'edited.json', edited)])).json.error.code).toBe('assignment_invalid');
    const partial = { ...assignment, claims: [claims[0]] };
    expect((await attempt(['--assignment', writeJson(dir, 'partial.json', partial)])).json.error.code).toBe('assignment_invalid');

    await bindDispatch(repo, assignment!.dispatch_id as string, '301');
    const file = writeJson(dir, 'good.json', assignment);
    expect((await attempt(['--assignment', file, '--run-id', '302'])).json.error.code).toBe('run_binding_conflict');
    const ok = await snapshot(repo, 'worker', dir, ['--assignment', file, '--run-id', '301']);
    expect(readJson(ok)).toMatchObject({ role: 'worker', native_run: { run_id: '301', run_attempt: 1 }, assignment: { dispatch_id: assignment!.dispatch_id } });
  });

  it('an existing invalid ledger is an error, not an empty backlog', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-snap-');
    await seedQueue(repo, nodes('a'));
    const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: '{"version":3}\n', encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
    git(repo, 'update-ref', 'refs/heads/work-queue', git(repo, 'commit-tree', tree, '-m', 'corrupt'));
    const out = join(dir, 'bad.json');
    const r = await cli('--repo', repo, 'snapshot', '--role', 'observer', '--out', out);
    expect(r.code).toBe(3);
    expect(r.json.ok).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  it('the MCP server refuses an edited snapshot and takes no store or credentials', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-snap-');
    await seedQueue(repo, nodes('a'));
    const file = await snapshot(repo, 'dispatcher', dir);
    const s = readJson(file);
    writeFileSync(file, JSON.stringify({ ...s, role: 'worker' }));
    const tampered = await cli('mcp', '--snapshot', file, '--intents', join(dir, 'i'));
    expect(tampered).toMatchObject({ code: 3, json: { error: { code: 'snapshot_invalid' } } });
    writeFileSync(file, JSON.stringify({ ...s, ledger: { ...s.ledger, text: readFileSync(file, 'utf8').slice(0, 10) } }));
    expect((await cli('mcp', '--snapshot', file, '--intents', join(dir, 'i'))).json.error.code).toBe('snapshot_invalid');
    const withStore = await cli('--repo', repo, 'mcp', '--snapshot', file, '--intents', join(dir, 'i'));
    expect(withStore).toMatchObject({ code: 2, json: { error: { code: 'mcp_no_store' } } });
  });
});
