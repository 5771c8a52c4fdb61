/**
 * `fairway evidence` on a queue migrated from the reference implementation: the reference-written
 * ledger (../shared/reference/gh-aw-generated/ledger-1m.jsonl) committed as the queue branch of a
 * real local Git repository, read through the real entry point.
 *
 * After `compact` a group's launch events (start marker, binding, Release) precede the checkpoint.
 * A checkpoint keeps the group's state but not those records, and the reference's request ids are
 * not Fairway's stable start/release ids, so only the ledger at the checkpoint's prior_git_sha
 * still names them (spec 7.10 "its prior Git commit SHA ... retain a pointer to earlier
 * evidence"): evidence reads it, as trace and explain do, and without it says where they are.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCaptured } from '../support/cli.ts';
import { dirCli, fixtureRepo, git } from '../support/fixture-repo.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../support/reference.ts';

const LEDGER = 'gh-aw-generated/ledger-1m.jsonl';
const missing = missingReference([LEDGER]);

interface Facts {
  text: string;
  /** The first dispatch group: started, bound and released long before the tip. */
  dispatchId: string;
  /** A Work the ledger admits and never grants. */
  neverGranted: string;
}

function facts(): Facts {
  const text = readFileSync(new URL(LEDGER, REFERENCE_ROOT), 'utf8');
  const ops = text.split('\n').filter((l) => l !== '').flatMap((l) => (JSON.parse(l) as { operations: Array<Record<string, string>> }).operations);
  const granted = new Set(ops.filter((o) => o.kind === 'Claim').map((o) => o.work_id));
  return {
    text,
    dispatchId: ops.find((o) => o.kind === 'Dispatch')!.dispatch_id!,
    neverGranted: ops.find((o) => o.kind === 'Work' && !granted.has(o.work_id))!.work_id!,
  };
}

/** A repository whose queue branch holds `text` as its one ledger commit (a migration's first write). */
function migratedRepo(text: string): string {
  const repo = fixtureRepo('fairway-ref-evidence-');
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: text, encoding: 'utf8', maxBuffer: 64 << 20 }).trim();
  const tree = execFileSync('git', ['-C', repo, 'mktree'], { input: `100644 blob ${blob}\twork-queue.jsonl\n`, encoding: 'utf8' }).trim();
  git(repo, 'update-ref', 'refs/heads/work-queue', git(repo, 'commit-tree', tree, '-m', 'migrated ledger'));
  return repo;
}

describeReference(missing.length === 0, 'evidence on a reference-written queue (CLI on local Git)', () => {
  it('a group released before `compact` keeps its events, start time, reported runs and Release commit (read from the ledger at prior_git_sha)', async () => {
    const f = facts();
    const repo = migratedRepo(f.text);
    const before = await dirCli(repo, '--json', 'evidence', '--dispatch-id', f.dispatchId);
    expect(before.code, before.out).toBe(0);
    const [group] = before.json.groups;
    expect(group.state).toBe('released');
    expect(group.events.map((e: { state: string }) => e.state)).toEqual(['started', 'bound', 'released']);
    expect(group.started_at).not.toBeNull();
    expect(group.release_commit).not.toBeNull();

    const prior = git(repo, 'rev-parse', 'refs/heads/work-queue');
    const compacted = await dirCli(repo, '--json', 'compact');
    expect(compacted.json.status, compacted.out).toBe('committed');
    const after = await dirCli(repo, '--json', 'evidence', '--dispatch-id', f.dispatchId);
    expect(after.code, after.out).toBe(0);
    expect(after.json.groups).toEqual(before.json.groups);
    const text = await dirCli(repo, 'evidence', '--dispatch-id', f.dispatchId);
    expect(text.out).toMatch(/dispatcher started\n/);
    expect(text.out).toMatch(/reconciler released run \d+/);

    // The compacted ledger alone (no Git history): the group says its launch events were compacted and where they are.
    const file = join(mkdtempSync(join(tmpdir(), 'fairway-ref-evidence-file-')), 'work-queue.jsonl');
    writeFileSync(file, execFileSync('git', ['-C', repo, 'show', 'refs/heads/work-queue:work-queue.jsonl'], { maxBuffer: 64 << 20 }));
    const offline = await runCaptured(['--ledger', file, '--json', 'evidence', '--dispatch-id', f.dispatchId]);
    expect(offline.code, offline.out).toBe(0);
    expect(offline.json.groups[0]).toMatchObject({ state: 'released', run_id: group.run_id, events: [], compacted: { commit: group.grant_commit, prior_git_sha: prior } });
    const offlineText = await runCaptured(['--ledger', file, 'evidence', '--dispatch-id', f.dispatchId]);
    expect(offlineText.out).toContain(`launch events before checkpoint ${compacted.json.commit_id} are in the ledger at Git commit ${prior}`);
  });

  it('evidence --work-id of a Work never granted says so in text (JSON: no groups)', async () => {
    const f = facts();
    const repo = migratedRepo(f.text);
    const json = await dirCli(repo, '--json', 'evidence', '--work-id', f.neverGranted);
    expect(json.code, json.out).toBe(0);
    expect(json.json.groups).toEqual([]);
    const text = await dirCli(repo, 'evidence', '--work-id', f.neverGranted);
    expect(text.code).toBe(0);
    expect(text.out).toBe(`Work ${f.neverGranted} has no dispatch group: it was never granted\n`);
  });
});

const LARGE = 'gh-aw-generated/ledger-16m.jsonl';

describeReference(missingReference([LARGE]).length === 0, 'compact of a reference-written queue whose state outgrows one record (CLI on local Git)', () => {
  it('ledger-16m: compact is resource_limit (line_bytes, with the checkpoint\'s size), exit 3, and the queue branch does not move', async () => {
    const repo = migratedRepo(readFileSync(new URL(LARGE, REFERENCE_ROOT), 'utf8'));
    const tip = git(repo, 'rev-parse', 'refs/heads/work-queue');
    const refused = await dirCli(repo, '--json', 'compact');
    expect(refused.code, refused.out).toBe(3);
    expect(refused.json.error).toMatchObject({ code: 'resource_limit', details: { limit: 'line_bytes', max: 8 * 1024 * 1024, value: expect.any(Number) } });
    expect(refused.json.error.details.value).toBeGreaterThan(8 * 1024 * 1024);
    expect(refused.json.error.message).toMatch(/has outgrown one record: compacting cannot shrink it/);
    expect(git(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(tip);
  }, 60_000);
});
