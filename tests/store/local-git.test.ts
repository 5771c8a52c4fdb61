/**
 * LocalGitStore on real temporary repositories (work tree and bare): the
 * shared contract, plus what only a local repository can show — the work tree
 * and index are never touched, commits need no git config, and update-ref's
 * old-value check is the compare-and-swap.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEDGER_MAX_BYTES } from '../../lib/store/checks.ts';
import { gitDirs } from '../../lib/store/git-locks.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { HelperGone } from '../../lib/store/git-batch.ts';
import { presentRef } from '../../lib/store/git-objects.ts';
import { commitFiles, gitSync, gitText, initRepo, parentsOf, refTip, removeTempDirs, tempDir, treeFiles } from './git-fixtures.ts';
import { contractSuite, type StoreFixture } from './contract.ts';
import { duplicateReadSuite } from './duplicates.ts';

afterAll(removeTempDirs);

const utf8 = (s: string) => new TextEncoder().encode(s);

function localFixture(bare: boolean): () => Promise<StoreFixture> {
  return async () => {
    const repo = initRepo({ bare });
    return {
      queueBranch: 'work-queue',
      makeStore: () => new LocalGitStore({ repo }),
      tip: async () => refTip(repo, 'work-queue'),
      seed: async (branch, files) => commitFiles(repo, branch, files),
      files: async (commit) => treeFiles(repo, commit),
      parents: async (commit) => parentsOf(repo, commit),
      setDefaultBranch: async (branch) => void gitSync(repo, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]),
    };
  };
}

contractSuite('local repository with a work tree', localFixture(false));
contractSuite('local bare repository', localFixture(true));

describe('LocalGitStore', () => {
  it('never touches the work tree, the index or HEAD', async () => {
    const repo = initRepo();
    writeFileSync(join(repo, 'README.md'), 'committed\n');
    gitSync(repo, ['add', 'README.md']);
    gitSync(repo, ['commit', '-q', '-m', 'init']);
    writeFileSync(join(repo, 'README.md'), 'modified, staged\n');
    gitSync(repo, ['add', 'README.md']);
    writeFileSync(join(repo, 'untracked.txt'), 'untracked\n');
    const status = gitText(repo, 'status', '--porcelain');
    const index = createHash('sha256').update(readFileSync(join(repo, '.git', 'index'))).digest('hex');
    const head = gitText(repo, 'rev-parse', 'HEAD');

    const store = new LocalGitStore({ repo });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    await store.compareAndSwap(v1.version, utf8('two\n'), 'two');

    expect(gitText(repo, 'status', '--porcelain')).toBe(status);
    expect(createHash('sha256').update(readFileSync(join(repo, '.git', 'index'))).digest('hex')).toBe(index);
    expect(gitText(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(gitText(repo, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(gitText(repo, 'show', 'work-queue:work-queue.jsonl')).toBe('two');
  });

  it('opened from a subdirectory, it still keeps the files at the root of the branch', async () => {
    const repo = initRepo();
    const seeded = commitFiles(repo, 'work-queue', { 'README.md': 'root\n', 'sub/inner.txt': 'inner\n' });
    mkdirSync(join(repo, 'sub'));
    const store = new LocalGitStore({ repo: join(repo, 'sub') });
    const outcome = await store.compareAndSwap(seeded, utf8('x\n'), 'x');
    expect(outcome.status).toBe('committed');
    expect([...treeFiles(repo, refTip(repo, 'work-queue')!).keys()].sort()).toEqual(['README.md', 'sub/inner.txt', 'work-queue.jsonl']);
  });

  it('commits without any git configuration, with the fixed identity', async () => {
    const home = tempDir('home');
    const saved = { ...process.env };
    Object.assign(process.env, { HOME: home, XDG_CONFIG_HOME: home, GIT_CONFIG_GLOBAL: join(home, 'none'), GIT_CONFIG_NOSYSTEM: '1' });
    for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL']) delete process.env[name];
    try {
      const repo = initRepo({ bare: true });
      const outcome = await new LocalGitStore({ repo }).compareAndSwap(null, utf8('x\n'), 'genesis');
      expect(outcome.status).toBe('committed');
      expect(gitText(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', 'work-queue')).toBe('fairway <fairway@localhost>|fairway <fairway@localhost>|genesis');
    } finally {
      process.env = saved;
    }
  });

  it('with a fixed date, the same write gives the same commit id in any repository', async () => {
    const date = '2025-01-02T03:04:05Z';
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const store = new LocalGitStore({ repo: initRepo({ bare: true }), date });
      ids.push(((await store.compareAndSwap(null, utf8('same\n'), 'same')) as { version: string }).version);
    }
    expect(ids[0]).toBe(ids[1]);
    const store = new LocalGitStore({ repo: initRepo({ bare: true }) });
    expect(((await store.compareAndSwap(null, utf8('same\n'), 'same')) as { version: string }).version).not.toBe(ids[0]);
  });

  it('lets exactly one of eight concurrent writers commit on the same tip', async () => {
    const repo = initRepo({ bare: true });
    const base = commitFiles(repo, 'work-queue', { 'work-queue.jsonl': 'base\n' });
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => new LocalGitStore({ repo }).compareAndSwap(base, utf8(`writer ${i}\n`), `w${i}`)),
    );
    const winners = outcomes.filter((o) => o.status === 'committed');
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'conflict')).toHaveLength(7);
    expect(refTip(repo, 'work-queue')).toBe((winners[0] as { version: string }).version);
  });

  it('names a ledger path that is a directory, a missing repository and a bad branch with stable codes', async () => {
    const repo = initRepo({ bare: true });
    commitFiles(repo, 'work-queue', { 'work-queue.jsonl/inside': 'not a file\n' });
    await expect(new LocalGitStore({ repo }).read()).rejects.toMatchObject({ code: 'store_path_not_a_file' });
    const plain = tempDir('plain');
    await expect(new LocalGitStore({ repo: plain }).read()).rejects.toMatchObject({ code: 'not_a_git_repository' });
    await expect(new LocalGitStore({ repo: join(plain, 'missing') }).read()).rejects.toMatchObject({ code: 'not_a_git_repository' });
    // doctor's lock discovery gives the same answer, not a git failure.
    await expect(gitDirs({ cwd: plain })).rejects.toMatchObject({ code: 'not_a_git_repository' });
    for (const branch of ['', 'a..b', 'x.lock', '-x', 'a b', 'a:b', 'refs/../x']) {
      expect(() => new LocalGitStore({ repo, branch })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    }
  });

  it('names a ledger committed as a symbolic link store_path_not_a_file, not a truncated record; a small ledger file still reads', async () => {
    const repo = initRepo({ bare: true });
    commitFiles(repo, 'work-queue', { 'work-queue.jsonl': { bytes: '/elsewhere/work-queue.jsonl', mode: '120000' } });
    const refused = new LocalGitStore({ repo }).read();
    await expect(refused).rejects.toMatchObject({ code: 'store_path_not_a_file' });
    await expect(refused).rejects.toThrow(/symbolic link \(to "\/elsewhere\/work-queue.jsonl"\)/);
    // A file of under 4 KiB (what a link's blob can be) is read as the file it is.
    const small = commitFiles(repo, 'work-queue', { 'work-queue.jsonl': 'a small ledger\n' });
    const read = await new LocalGitStore({ repo }).read();
    expect(read.version).toBe(small);
    expect(new TextDecoder().decode(read.bytes!)).toBe('a small ledger\n');
  });

  it('names a queue branch pointing at an object the repository lacks store_ref_dangling, not an absent queue; a bootstrap onto it writes nothing', async () => {
    for (const bare of [true, false]) {
      const repo = initRepo({ bare });
      const missing = '1234567890'.repeat(4);
      // git update-ref refuses a missing object: the ref is written by hand, as a broken clone leaves it.
      writeFileSync(join(repo, bare ? '' : '.git', 'refs', 'heads', 'work-queue'), `${missing}\n`);
      const store = new LocalGitStore({ repo });
      await expect(store.read()).rejects.toMatchObject({ code: 'store_ref_dangling', details: { ref: 'refs/heads/work-queue', object: missing } });
      await expect(store.readVersion!()).rejects.toMatchObject({ code: 'store_ref_dangling' });
      // A first publication expects no branch: the ref is there, so it is refused, and names why.
      await expect(store.compareAndSwap(null, utf8('one\n'), 'one')).rejects.toMatchObject({ code: 'store_ref_dangling' });
      expect(gitText(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(missing);
      // An absent branch is still an absent queue.
      const empty = await new LocalGitStore({ repo: initRepo({ bare }) }).read();
      expect([empty.version, empty.bytes]).toEqual([null, null]);
    }
  });

  it('names a queue branch pointing at a tree, a blob or an annotated tag store_ref_not_a_commit for reads and writes: no commit is written on it', async () => {
    for (const objectFormat of ['sha1', 'sha256']) {
      const repo = initRepo({ bare: true });
      if (objectFormat === 'sha256') {
        rmSync(repo, { recursive: true, force: true });
        mkdirSync(repo);
        gitSync(repo, ['init', '-q', '--bare', '--object-format=sha256', '-b', 'main', repo]);
      }
      const store = new LocalGitStore({ repo });
      const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
      const tree = gitText(repo, 'rev-parse', `${v1.version}^{tree}`);
      const blob = gitText(repo, 'rev-parse', `${v1.version}:work-queue.jsonl`);
      gitSync(repo, ['-c', 'user.name=t', '-c', 'user.email=t@e', 'tag', '-a', '-m', 'a tag', 'qtag', v1.version]);
      const tag = gitText(repo, 'rev-parse', 'refs/tags/qtag');
      for (const [type, oid] of [['tree', tree], ['blob', blob], ['tag', tag]] as const) {
        // update-ref would refuse a non-commit on a branch: written by hand.
        writeFileSync(join(repo, 'refs', 'heads', 'work-queue'), `${oid}\n`);
        const fresh = new LocalGitStore({ repo });
        await expect(fresh.read(), `${objectFormat} ${type}`).rejects.toMatchObject({ code: 'store_ref_not_a_commit', details: { ref: 'refs/heads/work-queue', object: oid, type } });
        await expect(fresh.compareAndSwap(null, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_ref_not_a_commit' });
        // Expecting the non-commit itself: no commit is built on it (its parent would not be a commit).
        await expect(fresh.compareAndSwap(oid, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_ref_not_a_commit' });
        expect(gitText(repo, 'rev-parse', 'refs/heads/work-queue')).toBe(oid);
      }
      expect(gitText(repo, 'rev-list', '--all', '--count')).toBe('1'); // no commit was made on a tree, blob or tag
    }
  });

  it('names a queue branch that is a symbolic ref (work-queue -> main) store_ref_symbolic for reads; a publication never moves the branch it names', async () => {
    const repo = initRepo({ bare: true });
    const main = commitFiles(repo, 'main', { 'README.md': 'project\n' });
    gitSync(repo, ['symbolic-ref', 'refs/heads/work-queue', 'refs/heads/main']);
    const store = new LocalGitStore({ repo });
    await expect(store.read()).rejects.toMatchObject({ code: 'store_ref_symbolic', details: { ref: 'refs/heads/work-queue', target: 'refs/heads/main' } });
    // A long-lived store sees it too: the check is not cached (the ref may change under it).
    gitSync(repo, ['symbolic-ref', '--delete', 'refs/heads/work-queue']);
    expect(await store.read()).toEqual({ version: null, bytes: null });
    gitSync(repo, ['symbolic-ref', 'refs/heads/work-queue', 'refs/heads/main']);
    await expect(store.read()).rejects.toMatchObject({ code: 'store_ref_symbolic' });
    // Expecting an absent branch: the ref is there, so nothing is created.
    expect((await store.compareAndSwap(null, utf8('one\n'), 'one')).status).toBe('conflict');
    expect(refTip(repo, 'main')).toBe(main);
    // A publication given main's tip (never offered by a read) replaces the symbolic ref with a
    // branch of its own (update-ref no-deref): main does not move.
    const v1 = (await store.compareAndSwap(main, utf8('one\n'), 'one')) as { status: string; version: string };
    expect(v1.status).toBe('committed');
    expect(refTip(repo, 'main')).toBe(main);
    expect(refTip(repo, 'work-queue')).toBe(v1.version);
    expect(() => gitSync(repo, ['symbolic-ref', '-q', 'refs/heads/work-queue'])).toThrow();
  });

  it('in a shallow clone, a queue branch without the ledger is store_history_shallow, not an empty queue to bootstrap over', async () => {
    const origin = initRepo({ bare: true });
    commitFiles(origin, 'main', { 'README.md': 'project\n' });
    commitFiles(origin, 'work-queue', { 'work-queue.jsonl': '{"a":1}\n' });
    const dropped = commitFiles(origin, 'work-queue', { 'work-queue.jsonl': null }, 'oops');
    await expect(new LocalGitStore({ repo: origin }).read()).rejects.toMatchObject({ code: 'ledger_missing' });
    const shallow = tempDir('shallow');
    gitSync(tempDir('cwd'), ['clone', '-q', '--bare', '--depth', '1', '--no-single-branch', `file://${origin}`, shallow]);
    expect(refTip(shallow, 'work-queue')).toBe(dropped);
    const store = new LocalGitStore({ repo: shallow });
    await expect(store.read()).rejects.toMatchObject({ code: 'store_history_shallow', details: { commit: dropped } });
    // A shallow clone whose queue branch has the ledger reads as usual.
    const kept = commitFiles(origin, 'work-queue', { 'work-queue.jsonl': '{"b":2}\n' });
    const shallow2 = tempDir('shallow2');
    gitSync(tempDir('cwd'), ['clone', '-q', '--bare', '--depth', '1', '--no-single-branch', `file://${origin}`, shallow2]);
    expect((await new LocalGitStore({ repo: shallow2 }).read()).version).toBe(kept);
    // A shallow clone of main whose queue branch (an orphan without the ledger) came whole: an empty queue there, as usual.
    const other = initRepo({ bare: true });
    commitFiles(other, 'main', { 'README.md': 'one\n' });
    commitFiles(other, 'main', { 'README.md': 'two\n' });
    const orphan = commitFiles(other, 'work-queue', { 'notes.txt': 'no ledger here\n' });
    const shallow3 = tempDir('shallow3');
    gitSync(tempDir('cwd'), ['clone', '-q', '--bare', '--depth', '1', `file://${other}`, shallow3]);
    gitSync(shallow3, ['fetch', '-q', `file://${other}`, 'refs/heads/work-queue:refs/heads/work-queue']);
    expect(readFileSync(join(shallow3, 'shallow'), 'utf8').trim()).not.toBe('');
    expect(await new LocalGitStore({ repo: shallow3 }).read()).toEqual({ version: orphan, bytes: null });
  });

  it('without the long-lived reader (HelperGone), a ref to a missing object is still store_ref_dangling; a present one and an absent ref read as before', async () => {
    const repo = initRepo({ bare: true });
    const gone = async (): Promise<{ oid: string; type: string } | null> => {
      throw new HelperGone('fatal: gone', 128);
    };
    const ctx = { cwd: repo };
    expect(await presentRef(ctx, 'refs/heads/work-queue', gone)).toBeNull();
    const tip = commitFiles(repo, 'work-queue', { 'work-queue.jsonl': 'x\n' });
    expect(await presentRef(ctx, 'refs/heads/work-queue', gone)).toBe(tip);
    const missing = 'ab'.repeat(20);
    writeFileSync(join(repo, 'refs', 'heads', 'work-queue'), `${missing}\n`);
    await expect(presentRef(ctx, 'refs/heads/work-queue', gone)).rejects.toMatchObject({ code: 'store_ref_dangling' });
    await expect(presentRef(ctx, 'refs/heads/work-queue', async () => null)).rejects.toMatchObject({ code: 'store_ref_dangling' });
  });

  it('treats a rewound branch as a conflict, not as a fast-forward to build on', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const v2 = (await store.compareAndSwap(v1.version, utf8('two\n'), 'two')) as { version: string };
    gitSync(repo, ['update-ref', 'refs/heads/work-queue', v1.version]);
    expect(await store.compareAndSwap(v2.version, utf8('three\n'), 'three')).toEqual({ status: 'conflict', actual: v1.version });
    expect(refTip(repo, 'work-queue')).toBe(v1.version);
  });

  it('reads a ledger at the parser limit and refuses one byte more (resource_limit, ledger_bytes)', async () => {
    const repo = initRepo({ bare: true });
    const atLimit = Buffer.alloc(LEDGER_MAX_BYTES, 0x61);
    commitFiles(repo, 'work-queue', { 'work-queue.jsonl': atLimit });
    expect((await new LocalGitStore({ repo }).read()).bytes?.length).toBe(LEDGER_MAX_BYTES);
    commitFiles(repo, 'work-queue', { 'work-queue.jsonl': Buffer.concat([atLimit, Buffer.from('b')]) });
    await expect(new LocalGitStore({ repo }).read()).rejects.toMatchObject({ code: 'resource_limit', details: { limit: 'ledger_bytes' } });
  });

  it('uses the configured branch and labels the store with it', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo, branch: 'queues/main' });
    expect(store.label).toBe(`git:${repo}#queues/main`);
    const outcome = await store.compareAndSwap(null, utf8('x\n'), 'x');
    expect(refTip(repo, 'queues/main')).toBe((outcome as { version: string }).version);
    expect(refTip(repo, 'work-queue')).toBeNull();
  });
});

duplicateReadSuite('a local Git repository', localFixture(false));
