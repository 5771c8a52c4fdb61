/**
 * The in-process object writer of LocalGitStore (lib/store/loose-objects.ts, issue 13 §4) writes
 * exactly the objects git's plumbing writes: the same commit id as `hash-object` + `mktree` +
 * `commit-tree` for the same inputs, on SHA-1 and SHA-256 repositories, with every other entry
 * of the parent tree carried over, and a repository `git fsck --strict` accepts.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { objectDatabase, writeLedgerCommit } from '../../lib/store/git-objects.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { commitTime } from '../../lib/store/loose-objects.ts';
import { commitFiles, gitSync, gitText, initRepo, removeTempDirs, tempDir, treeFiles } from './git-fixtures.ts';

afterAll(removeTempDirs);

const utf8 = (s: string) => new TextEncoder().encode(s);
const DATE = '@1700000000 +0130';

function seeded(format: 'sha1' | 'sha256'): { repo: string; parent: string } {
  const repo = tempDir(`loose-${format}`);
  gitSync(repo, ['init', '-q', '--bare', `--object-format=${format}`, repo]);
  const parent = commitFiles(repo, 'work-queue', {
    'work-queue.jsonl': 'old\n',
    'README.md': 'carried\n',
    'docs/a.txt': 'nested\n',
    'run.sh': { bytes: '#!/bin/sh\n', mode: '100755' },
    'work-queue.jsonl.d/x': 'sorted after the ledger name\n',
  });
  return { repo, parent };
}

describe('LocalGitStore writes its objects in-process, exactly as git plumbing does', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`same commit id as hash-object + mktree + commit-tree (${format}), parent entries carried, fsck clean`, async () => {
      const a = seeded(format);
      const ctxA = { cwd: a.repo, date: DATE };
      const db = await objectDatabase(ctxA);
      expect(db?.format).toBe(format);
      const bytes = utf8('{"a":1}\nnew line é\n');
      const fast = await writeLedgerCommit(ctxA, a.parent, bytes, 'work-queue: submit r1\n\nQueueCommit q_1', db);
      // The plumbing path on the same parent in the same repository names the same objects.
      const plumbing = await writeLedgerCommit({ cwd: a.repo, date: DATE }, a.parent, bytes, 'work-queue: submit r1\n\nQueueCommit q_1', null);
      expect(fast).toBe(plumbing);
      const files = treeFiles(a.repo, fast);
      expect([...files.keys()].sort()).toEqual(['README.md', 'docs/a.txt', 'run.sh', 'work-queue.jsonl', 'work-queue.jsonl.d/x']);
      expect(gitText(a.repo, 'cat-file', 'blob', `${fast}:work-queue.jsonl`)).toBe('{"a":1}\nnew line é');
      gitSync(a.repo, ['update-ref', 'refs/heads/check', fast]);
      gitSync(a.repo, ['fsck', '--strict', '--no-dangling']);
      // A second write on its own commit needs no ls-tree and still carries the entries.
      const next = await writeLedgerCommit(ctxA, fast, utf8('more\n'), 'second', db);
      expect([...treeFiles(a.repo, next).keys()].sort()).toEqual([...files.keys()].sort());
      expect(gitText(a.repo, 'rev-parse', `${next}^`)).toBe(fast);
    });
  }

  it('a root commit (no parent) matches too, and the store publishes through it with a CAS', async () => {
    const a = initRepo({ bare: true });
    const b = initRepo({ bare: true });
    const db = await objectDatabase({ cwd: a });
    const fast = await writeLedgerCommit({ cwd: a, date: DATE }, null, utf8('x\n'), 'm', db);
    const plumbing = await writeLedgerCommit({ cwd: b, date: DATE }, null, utf8('x\n'), 'm', null);
    expect(fast).toBe(plumbing);
    const store = new LocalGitStore({ repo: a });
    const first = await store.compareAndSwap(null, utf8('one\n'), 'one');
    expect(first.status).toBe('committed');
    expect((await store.compareAndSwap(null, utf8('two\n'), 'two')).status).toBe('conflict');
    gitSync(a, ['fsck', '--strict', '--no-dangling']);
  });

  it('commitTime: now, the raw `[@]<seconds> <±hhmm>` form, and null (plumbing path) for any other date form', () => {
    expect(commitTime(undefined, 1_700_000_000_999)).toEqual({ seconds: 1_700_000_000, offset: '+0000' });
    expect(commitTime('@1700000000 -0500')).toEqual({ seconds: 1_700_000_000, offset: '-0500' });
    expect(commitTime('1700000000 +0000')).toEqual({ seconds: 1_700_000_000, offset: '+0000' });
    expect(commitTime('2025-01-02T03:04:05Z')).toBeNull();
  });
});

describe('LocalGitStore in-process objects: refusals and fallbacks', () => {
  it('an object directory that refuses writes is store_git_failed (a store error, never a JS exception) and leaves the branch alone', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const first = await store.compareAndSwap(null, utf8('one\n'), 'one');
    expect(first.status).toBe('committed');
    const db = (await objectDatabase({ cwd: repo }))!;
    // A regular file where the next object's fan-out directory must be: mkdir fails (ENOTDIR/EEXIST), as on a broken disk.
    const bytes = utf8('one\ntwo\n');
    const id = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
    rmSync(join(db.dir, id.slice(0, 2)), { recursive: true, force: true });
    writeFileSync(join(db.dir, id.slice(0, 2)), 'not a directory');
    await expect(store.compareAndSwap((first as { version: string }).version, bytes, 'two')).rejects.toMatchObject({ code: 'store_git_failed' });
    expect(gitText(repo, 'rev-parse', 'refs/heads/work-queue')).toBe((first as { version: string }).version);
  });

  it('a repository with a compatibility object format takes the plumbing path', async () => {
    const repo = initRepo({ bare: true });
    gitSync(repo, ['config', 'extensions.compatObjectFormat', 'sha256']);
    expect(await objectDatabase({ cwd: repo })).toBeNull();
  });
});
