/**
 * The fake GitHub's object ids are Git's: the same blob, tree and commit get
 * the ids a real repository gives them, and its tree edits match Git's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { commitFiles, gitText, initRepo, removeTempDirs } from '../store/git-fixtures.ts';
import { ObjectStore } from './objects.ts';

afterAll(removeTempDirs);

describe('fake GitHub object store', () => {
  it('computes blob, tree and commit ids exactly as git does', () => {
    const repo = initRepo({ bare: true });
    const files = { 'README.md': 'hello\n', '.github/workflows/aw.json': '{"work_queue":{}}\n', 'a-b/x': 'dash sorts before slash\n', 'a/y': 'nested ✓\n' };
    const commit = commitFiles(repo, 'main', { ...files, 'run.sh': { bytes: '#!/bin/sh\n', mode: '100755' } }, 'seed message\n');

    const store = new ObjectStore();
    const changes = Object.entries(files).map(([path, text]) => ({ path, mode: '100644', type: 'blob' as const, sha: store.putBlob(Buffer.from(text)) }));
    changes.push({ path: 'run.sh', mode: '100755', type: 'blob', sha: store.putBlob(Buffer.from('#!/bin/sh\n')) });
    expect(changes[0]!.sha).toBe(gitText(repo, 'rev-parse', 'main:README.md'));
    const tree = store.writeTree(null, changes);
    expect(tree).toBe(gitText(repo, 'rev-parse', 'main^{tree}'));

    const [, authorLine] = /^author (.*)$/m.exec(gitText(repo, 'cat-file', 'commit', commit))!;
    const [, name, email, seconds] = /^(.*) <(.*)> (\d+) [+-]\d{4}$/.exec(authorLine!)!;
    const who = { name: name!, email: email!, date: new Date(Number(seconds) * 1000).toISOString() };
    expect(store.putCommit({ tree, parents: [], author: who, committer: who, message: 'seed message\n' })).toBe(commit);
  });

  it('edits nested paths, deletes emptied directories and answers ancestry', () => {
    const store = new ObjectStore();
    const blob = store.putBlob(Buffer.from('x'));
    const t1 = store.writeTree(null, [{ path: 'a/b/c', mode: '100644', type: 'blob', sha: blob }, { path: 'top', mode: '100644', type: 'blob', sha: blob }]);
    expect([...store.flatten(t1).keys()]).toEqual(['a/b/c', 'top']);
    const t2 = store.writeTree(t1, [{ path: 'a/b/c', mode: '100644', type: 'blob', sha: null }]);
    expect(store.trees.get(t2)!.map((e) => e.name)).toEqual(['top']);
    const who = { name: 'n', email: 'e', date: '2025-01-01T00:00:00Z' };
    const c1 = store.putCommit({ tree: t1, parents: [], author: who, committer: who, message: '1' });
    const c2 = store.putCommit({ tree: t2, parents: [c1], author: who, committer: who, message: '2' });
    expect(store.isAncestor(c1, c2)).toBe(true);
    expect(store.isAncestor(c2, c1)).toBe(false);
  });
});
