/**
 * The fake GitHub's commits list (`GET /repos/{o}/{r}/commits?sha&path&per_page&page`, what the
 * GitHub stores ask when a queue branch's tip has no ledger): the commits that changed a path,
 * newest first, walked with git's default history simplification, checked against the same
 * history built in a real repository (`git log -- path`), every response validated against
 * GitHub's OpenAPI description.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { gitText, initRepo, removeTempDirs } from '../store/git-fixtures.ts';
import type { ObjectStore, TreeChange } from './objects.ts';
import { useFakeGitHub } from './use-fake.ts';

const github = useFakeGitHub();

afterAll(removeTempDirs);

const LEDGER = 'work-queue.jsonl';

/** Builds the same commits in the fake's store and in a real bare repository (same ids: the fake computes Git's). */
class TwinHistory {
  readonly real = initRepo({ bare: true });
  private seconds = 1_700_000_000;
  /** Seconds between commits (0: every commit at the same time). */
  step = 60;

  constructor(private readonly objects: ObjectStore) {}

  /** A commit of `files` (null removes) on `base`'s tree (null: an empty tree), with parents. */
  commit(base: string | null, parents: string[], files: Record<string, string | null>, message: string): string {
    const changes: TreeChange[] = Object.entries(files).map(([path, text]) => ({ path, mode: '100644', type: 'blob', sha: text === null ? null : this.objects.putBlob(Buffer.from(text)) }));
    const tree = this.objects.writeTree(base === null ? null : this.objects.commits.get(base)!.tree, changes);
    const date = new Date((this.seconds += this.step) * 1000).toISOString().replace('.000Z', 'Z');
    const who = { name: 't', email: 't@e', date };
    const sha = this.objects.putCommit({ tree, parents, author: who, committer: who, message });
    // The same commit in the real repository: its tree from the fake's objects, then commit-tree with the same identity and date.
    for (const [path, entry] of this.objects.flatten(tree)) {
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: this.real, input: this.objects.blobs.get(entry.sha)! }).toString().trim();
      expect(blob, path).toBe(entry.sha);
    }
    expect(this.mktree(tree)).toBe(tree);
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', GIT_AUTHOR_DATE: `${this.seconds} +0000`, GIT_COMMITTER_DATE: `${this.seconds} +0000` };
    const real = execFileSync('git', ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { cwd: this.real, env, input: message }).toString().trim();
    expect(real).toBe(sha);
    return sha;
  }

  /** Writes `tree` and its subtrees into the real repository. */
  private mktree(tree: string): string {
    const lines = this.objects.trees.get(tree)!.map((e) => `${e.mode} ${e.type} ${e.type === 'tree' ? this.mktree(e.sha) : e.sha}\t${e.name}\n`);
    return execFileSync('git', ['mktree'], { cwd: this.real, input: lines.join('') }).toString().trim();
  }

  /** `git log` of the real repository: the commits reachable from `head` that changed `path`, newest first. */
  gitLog(head: string, path: string, ...flags: string[]): string[] {
    const out = gitText(this.real, 'log', '--format=%H', ...flags, head, '--', path);
    return out === '' ? [] : out.split('\n');
  }
}

async function listCommits(owner: string, name: string, query: Record<string, string | number>): Promise<string[]> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const r = await fetch(`${github().url}/repos/${owner}/${name}/commits?${params}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { sha: string }[]).map((c) => c.sha);
}

describe('fake GitHub commits list', () => {
  it('lists the commits that changed a path, newest first, as git log -- path does; pages with per_page and page', async () => {
    const repo = github().state.createRepo('o', 'linear');
    const h = new TwinHistory(repo.objects);
    const c1 = h.commit(null, [], { 'README.md': '# r\n' }, 'readme');
    const c2 = h.commit(c1, [c1], { [LEDGER]: '{"a":1}\n' }, 'ledger');
    const c3 = h.commit(c2, [c2], { [LEDGER]: '{"a":1}\n{"b":2}\n' }, 'append');
    const c4 = h.commit(c3, [c3], { 'README.md': '# r2\n' }, 'readme again');
    const c5 = h.commit(c4, [c4], { [LEDGER]: null }, 'drop the ledger');
    repo.refs.set('refs/heads/work-queue', c5);
    expect(h.gitLog(c5, LEDGER)).toEqual([c5, c3, c2]);
    expect(await listCommits('o', 'linear', { sha: 'work-queue', path: LEDGER })).toEqual(h.gitLog(c5, LEDGER));
    expect(await listCommits('o', 'linear', { sha: c5, path: LEDGER, per_page: 1 })).toEqual([c5]);
    expect(await listCommits('o', 'linear', { sha: c5, path: LEDGER, per_page: 1, page: 2 })).toEqual([c3]);
    expect(await listCommits('o', 'linear', { sha: c4, path: LEDGER })).toEqual(h.gitLog(c4, LEDGER));
    expect(await listCommits('o', 'linear', { sha: c4, path: 'README.md' })).toEqual(h.gitLog(c4, 'README.md'));
    // Without a path: every commit reachable from the head.
    expect(await listCommits('o', 'linear', { sha: c5 })).toEqual([c5, c4, c3, c2, c1]);
    // A branch that never held the file: nothing.
    expect(await listCommits('o', 'linear', { sha: c1, path: LEDGER })).toEqual([]);
  });

  it('follows one unchanged parent of a merge, as git\'s default simplification does: a merge that kept an unrelated tree hides the file\'s history (the Git stores use --full-history)', async () => {
    const repo = github().state.createRepo('o', 'merges');
    const h = new TwinHistory(repo.objects);
    const q1 = h.commit(null, [], { [LEDGER]: '{"a":1}\n' }, 'queue');
    const q2 = h.commit(q1, [q1], { [LEDGER]: '{"a":1}\n{"b":2}\n' }, 'append');
    const side = h.commit(null, [], { 'notes.txt': 'unrelated\n' }, 'unrelated history');
    // `git merge -s ours` from the unrelated branch: the merge keeps its first parent's tree.
    const ours = h.commit(side, [side, q2], {}, 'merge -s ours');
    repo.refs.set('refs/heads/work-queue', ours);
    expect(await listCommits('o', 'merges', { sha: ours, path: LEDGER })).toEqual(h.gitLog(ours, LEDGER));
    expect(h.gitLog(ours, LEDGER)).toEqual([]);
    expect(h.gitLog(ours, LEDGER, '--full-history')).toEqual([ours, q2, q1]);
    // A merge that took its tree from its second parent follows that parent: the file's commits are listed, the merge is not.
    const brought = h.commit(q2, [side, q2], {}, 'merge keeping the queue');
    expect(await listCommits('o', 'merges', { sha: brought, path: LEDGER })).toEqual(h.gitLog(brought, LEDGER));
    expect(h.gitLog(brought, LEDGER)).toEqual([q2, q1]);
  });

  it('orders commits of the same time as git does (the order they were reached), children before parents', async () => {
    const repo = github().state.createRepo('o', 'ties');
    const h = new TwinHistory(repo.objects);
    h.step = 0;
    const base = h.commit(null, [], { [LEDGER]: 'base\n' }, 'base');
    const x = h.commit(base, [base], { [LEDGER]: 'x\n' }, 'x');
    const y = h.commit(base, [base], { 'other.txt': 'y\n' }, 'y');
    const m = h.commit(x, [x, y], { [LEDGER]: 'm\n' }, 'm');
    repo.refs.set('refs/heads/main', m);
    const all = h.gitLog(m, '.');
    expect(all).toEqual([m, x, y, base]);
    expect(await listCommits('o', 'ties', { sha: m })).toEqual(all);
    expect(await listCommits('o', 'ties', { sha: m, path: LEDGER })).toEqual(h.gitLog(m, LEDGER));
  });

  it('answers an unknown sha 404 and an empty repository 409', async () => {
    const repo = github().state.createRepo('o', 'empty');
    const empty = await fetch(`${github().url}/repos/o/empty/commits?path=${LEDGER}`);
    expect(empty.status).toBe(409);
    const h = new TwinHistory(repo.objects);
    repo.refs.set('refs/heads/main', h.commit(null, [], { 'README.md': 'x\n' }, 'x'));
    const unknown = await fetch(`${github().url}/repos/o/empty/commits?sha=nosuch&path=${LEDGER}`);
    expect(unknown.status).toBe(404);
  });
});
