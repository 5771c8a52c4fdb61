/**
 * RemoteGitStore against bare repositories served by a real `git daemon` on
 * 127.0.0.1: the shared contract (each store instance in its own clone), plus
 * remote-only behaviour: a daemon that is down, a connection dropped after the
 * push was applied (uncertain), a branch deleted remotely, refusals that are
 * not conflicts, and clones shared by concurrent writers.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteGitStore } from '../../lib/store/remote-git.ts';
import { commitFiles, gitSync, gitText, initRepo, parentsOf, refTip, removeTempDirs, tempDir, treeFiles } from './git-fixtures.ts';
import { freePort, startDroppingProxy, startGitDaemon, type DroppingProxy, type GitDaemon } from './git-daemon.ts';
import { contractSuite, type StoreFixture } from './contract.ts';
import { duplicateReadSuite } from './duplicates.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

let daemon: GitDaemon;
let proxy: DroppingProxy;
let base: string;
let counter = 0;

beforeAll(async () => {
  base = tempDir('served');
  daemon = await startGitDaemon(base);
  proxy = await startDroppingProxy(daemon.port);
});

afterAll(async () => {
  await proxy?.stop();
  await daemon?.stop();
  removeTempDirs();
});

/** A new bare repository under the daemon's base path. */
function servedRepo(): { name: string; path: string } {
  const name = `queue-${++counter}.git`;
  return { name, path: initRepo({ bare: true, dir: join(base, name) }) };
}

/** A fresh clone-like repository whose `origin` is `url` (the store fetches what it needs). */
function cloneOf(url: string): string {
  const clone = initRepo();
  gitSync(clone, ['remote', 'add', 'origin', url]);
  return clone;
}

async function remoteFixture(): Promise<StoreFixture> {
  const served = servedRepo();
  return {
    queueBranch: 'work-queue',
    makeStore: () => new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' }),
    tip: async () => refTip(served.path, 'work-queue'),
    seed: async (branch, files) => commitFiles(served.path, branch, files),
    files: async (commit) => treeFiles(served.path, commit),
    parents: async (commit) => parentsOf(served.path, commit),
    setDefaultBranch: async (branch) => void gitSync(served.path, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`]),
  };
}

contractSuite('Git remote over git daemon', remoteFixture);
duplicateReadSuite('a remote Git repository (real git daemon)', remoteFixture);

describe('RemoteGitStore', () => {
  it('reports a daemon that is down as store_unreachable, for reads and writes', async () => {
    const port = await freePort(); // nothing listens here
    const store = new RemoteGitStore({ repo: cloneOf(`git://127.0.0.1:${port}/nothing.git`), remote: 'origin' });
    await expect(store.read()).rejects.toMatchObject({ code: 'store_unreachable' });
    await expect(store.compareAndSwap(null, utf8('x\n'), 'x')).rejects.toMatchObject({ code: 'store_unreachable' });
    await expect(store.readDefaultBranchFile('.github/workflows/aw.json')).rejects.toMatchObject({ code: 'store_unreachable' });
  });

  it('returns uncertain when the connection drops after the push was applied; a read then finds the write', async () => {
    const served = servedRepo();
    const store = new RemoteGitStore({ repo: cloneOf(`git://127.0.0.1:${proxy.port}/${served.name}`), remote: 'origin' });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const dropped = proxy.dropped;
    proxy.dropNextPush();
    const outcome = await store.compareAndSwap(v1.version, utf8('two\n'), 'two');
    expect(proxy.dropped).toBe(dropped + 1);
    expect(outcome.status).toBe('uncertain');
    // The remote did apply it: the authority moved to a child of v1 with the new bytes.
    const tip = refTip(served.path, 'work-queue')!;
    expect(parentsOf(served.path, tip)).toEqual([v1.version]);
    const snapshot = await store.read();
    expect(snapshot.version).toBe(tip);
    expect(Buffer.from(snapshot.bytes!).toString()).toBe('two\n');
  });

  it('treats a rewound branch as a conflict, not as a fast-forward to build on', async () => {
    const served = servedRepo();
    const store = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const v2 = (await store.compareAndSwap(v1.version, utf8('two\n'), 'two')) as { version: string };
    gitSync(served.path, ['update-ref', 'refs/heads/work-queue', v1.version]); // another writer rewinds
    // Refused by the lease: a conflict (the push names no new tip; the next read does).
    expect(await store.compareAndSwap(v2.version, utf8('three\n'), 'three')).toMatchObject({ status: 'conflict' });
    expect(refTip(served.path, 'work-queue')).toBe(v1.version);
    expect((await store.read()).version).toBe(v1.version);
  });

  it('reads a branch deleted on the remote as absent', async () => {
    const served = servedRepo();
    const store = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    await store.compareAndSwap(null, utf8('x\n'), 'x');
    expect((await store.read()).version).not.toBeNull();
    gitSync(served.path, ['update-ref', '-d', 'refs/heads/work-queue']);
    expect(await store.read()).toEqual({ version: null, bytes: null });
  });

  it('surfaces a remote refusal that is not a conflict as store_write_denied, with the branch unmoved', async () => {
    const served = servedRepo();
    const store = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const hook = join(served.path, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "queue branch is protected" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    await expect(store.compareAndSwap(v1.version, utf8('two\n'), 'two')).rejects.toMatchObject({ code: 'store_write_denied' });
    expect(refTip(served.path, 'work-queue')).toBe(v1.version);
  });

  it('shares one clone between concurrent writers: one commits, the clone keeps no refs of its own', async () => {
    const served = servedRepo();
    const clone = cloneOf(daemon.url(served.name));
    const stores = Array.from({ length: 4 }, () => new RemoteGitStore({ repo: clone, remote: 'origin' }));
    const base = (await stores[0]!.compareAndSwap(null, utf8('base\n'), 'base')) as { version: string };
    const snapshots = await Promise.all(stores.map((s) => s.read()));
    expect(snapshots.every((s) => s.version === base.version)).toBe(true);
    const outcomes = await Promise.all(stores.map((s, i) => s.compareAndSwap(base.version, utf8(`writer ${i}\n`), `w${i}`)));
    expect(outcomes.filter((o) => o.status === 'committed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'conflict')).toHaveLength(3);
    // Scratch fetch refs are gone and no remote-tracking refs were written; the one ref the
    // stores keep is the last fetched tip, where the next fetch negotiates from.
    expect(gitText(clone, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(`refs/fairway/tips/origin/work-queue ${base.version}`);
  });

  it('fetches only what is new: the next fetch negotiates from the last fetched tip', async () => {
    const served = servedRepo();
    const writer = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    const clone = cloneOf(daemon.url(served.name));
    gitSync(clone, ['config', 'fetch.unpackLimit', '1']); // keep every fetched pack: count what each fetch brought
    const reader = new RemoteGitStore({ repo: clone, remote: 'origin' });
    let version = ((await writer.compareAndSwap(null, utf8('0\n'), 'c0')) as { version: string }).version;
    let text = '0\n';
    for (let i = 1; i <= 30; i++) {
      text += `${i}\n`;
      version = ((await writer.compareAndSwap(version, utf8(text), `c${i}`)) as { version: string }).version;
    }
    expect((await reader.read()).version).toBe(version);
    const objects = () => Number(/in-pack: (\d+)/.exec(gitText(clone, 'count-objects', '-v'))![1]);
    const before = objects();
    text += 'last\n';
    version = ((await writer.compareAndSwap(version, utf8(text), 'last')) as { version: string }).version;
    expect((await reader.read()).version).toBe(version);
    // The new commit, tree and blob (and the delta base a stored thin pack gets), not the 31 commits before them (96 objects).
    expect(objects() - before).toBeLessThanOrEqual(4);
  });

  it('reads through a scratch ref of its own while another fetch in the clone holds the tips ref', async () => {
    const served = servedRepo();
    const clone = cloneOf(daemon.url(served.name));
    const store = new RemoteGitStore({ repo: clone, remote: 'origin' });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    expect((await store.read()).version).toBe(v1.version);
    const v2 = (await new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' }).compareAndSwap(v1.version, utf8('one\ntwo\n'), 'two')) as { version: string };
    const lock = join(clone, '.git', 'refs', 'fairway', 'tips', 'origin', 'work-queue.lock');
    writeFileSync(lock, ''); // what a concurrent fetch holds while it updates the ref
    const read = await store.read();
    expect(read.version).toBe(v2.version);
    expect(Buffer.from(read.bytes!).toString()).toBe('one\ntwo\n');
    expect(gitText(clone, 'for-each-ref', '--format=%(refname)', 'refs/fairway/fetch')).toBe(''); // the scratch ref is gone
    rmSync(lock);
  });

  it('fetches the expected commit when this clone has never seen it', async () => {
    const served = servedRepo();
    const writer = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    const v1 = (await writer.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const fresh = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    const outcome = await fresh.compareAndSwap(v1.version, utf8('two\n'), 'two');
    expect(outcome.status).toBe('committed');
    expect(parentsOf(served.path, refTip(served.path, 'work-queue')!)).toEqual([v1.version]);
  });

  it('reads a remote queue branch that is a symbolic ref as store_ref_symbolic, not an empty queue to publish onto: the branch it names does not move', async () => {
    const served = servedRepo();
    const main = commitFiles(served.path, 'main', { 'README.md': 'project\n' });
    gitSync(served.path, ['symbolic-ref', 'refs/heads/work-queue', 'refs/heads/main']);
    const store = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    // The read finds no ledger at the tip (main's), so it asks whether the branch is its own.
    await expect(store.read()).rejects.toMatchObject({ code: 'store_ref_symbolic', details: { ref: 'refs/heads/work-queue', target: 'refs/heads/main' } });
    // Expecting an absent branch: the remote's ref exists, so the push's lease refuses it.
    expect((await new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' }).compareAndSwap(null, utf8('one\n'), 'one')).status).toBe('conflict');
    expect(refTip(served.path, 'main')).toBe(main);
  });

  it('names a remote queue branch naming an object the remote lacks store_ref_dangling, not store_unreachable', async () => {
    const served = servedRepo();
    commitFiles(served.path, 'main', { 'README.md': 'project\n' });
    const missing = '1234567890'.repeat(4);
    writeFileSync(join(served.path, 'refs', 'heads', 'work-queue'), `${missing}\n`);
    const store = new RemoteGitStore({ repo: cloneOf(daemon.url(served.name)), remote: 'origin' });
    await expect(store.read()).rejects.toMatchObject({ code: 'store_ref_dangling' });
    await expect(store.read()).rejects.toThrow(/work-queue on origin names an object that remote does not hold/);
  });

  it('drops its own last-fetched tip when it names a missing object and fetches again; another broken ref of the clone is store_ref_dangling naming the clone', async () => {
    const served = servedRepo();
    const clone = cloneOf(daemon.url(served.name));
    const store = new RemoteGitStore({ repo: clone, remote: 'origin' });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    expect((await store.read()).version).toBe(v1.version);
    const tips = gitText(clone, 'for-each-ref', '--format=%(refname)', 'refs/fairway/tips/');
    expect(tips).not.toBe('');
    const missing = '1234567890'.repeat(4);
    gitSync(clone, ['update-ref', '--no-deref', '-d', tips]);
    mkdirSync(join(clone, '.git', ...tips.split('/').slice(0, -1)), { recursive: true });
    writeFileSync(join(clone, '.git', ...tips.split('/')), `${missing}\n`);
    const reader = new RemoteGitStore({ repo: clone, remote: 'origin' });
    expect((await reader.read()).version).toBe(v1.version);
    expect(gitText(clone, 'rev-parse', tips)).toBe(v1.version);
    // A broken ref of the user's own in the clone: named, not deleted.
    writeFileSync(join(clone, '.git', 'refs', 'heads', 'junk'), `${missing}\n`);
    const v2 = commitFiles(served.path, 'work-queue', { 'work-queue.jsonl': 'two\n' });
    const blocked = new RemoteGitStore({ repo: clone, remote: 'origin' }).read();
    await expect(blocked).rejects.toMatchObject({ code: 'store_ref_dangling' });
    await expect(blocked).rejects.toThrow(/a ref of the clone .* names a missing object/);
    expect(gitText(clone, 'rev-parse', 'refs/heads/junk')).toBe(missing);
    expect(v2).not.toBe(v1.version);
  });

  it('names an unknown remote and a bad remote name with stable codes', async () => {
    const clone = initRepo();
    await expect(new RemoteGitStore({ repo: clone, remote: 'upstream' }).read()).rejects.toMatchObject({ code: 'store_remote_unknown' });
    expect(() => new RemoteGitStore({ repo: clone, remote: '--upload-pack=evil' })).toThrow(expect.objectContaining({ code: 'store_options_invalid' }));
    await expect(new RemoteGitStore({ repo: tempDir('plain'), remote: 'origin' }).read()).rejects.toMatchObject({ code: 'not_a_git_repository' });
  });
});
