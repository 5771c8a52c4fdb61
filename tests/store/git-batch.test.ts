/**
 * The local Git store's long-lived helpers (lib/store/git-batch.ts): a warm publication runs
 * one git process (its ref update, started while the objects are written) and reads refs and
 * objects through one long-lived `git cat-file --batch-command`, which sees every change other
 * processes make; an idle reader exits by itself, a killed publisher leaves no git and no
 * lock behind, and a reader is never taken for a lock holder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { submitRequest } from '../../engine/requests/operations.ts';
import { configureDebug, setDebugSink } from '../../lib/debug/log.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { MIN_BYTES } from '../../lib/replay/thread-verifier.ts';
import { CatFile, IDLE_MS } from '../../lib/store/git-batch.ts';
import { RefTransaction, RefTransactions } from '../../lib/store/ref-transactions.ts';
import { gitProcessesTouching, gitSubcommand } from '../../lib/store/git-locks.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { gitSync, gitText, initRepo, refTip, removeTempDirs, tempDir } from './git-fixtures.ts';
import { seedQueue } from './queue-seed.ts';

afterAll(removeTempDirs);
afterEach(() => {
  setDebugSink(null);
  configureDebug({});
});

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Git processes (other than cat-file readers) whose working directory is `repo`. */
function gitsIn(repo: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
      if (!/(^|\/)git$/.test(args[0] ?? '')) continue;
      if (readlinkSync(`/proc/${name}/cwd`) === repo) out.push(args.slice(1).join(' '));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * After the idle period: waits up to 5 s for the helper to be closed and its git to exit (a
 * loaded machine can fire the idle timer and reap the process late; a helper that never
 * closes still fails the assertions that follow).
 */
async function idleWithin(closed: () => boolean, repo: string): Promise<void> {
  for (let i = 0; i < 100 && !(closed() && gitsIn(repo).length === 0); i++) await sleep(50);
}

describe('local Git publication through long-lived helpers', () => {
  it('a warm publication spawns no process: it reads through the long-lived cat-file and commits through the long-lived update-ref', async () => {
    const repo = initRepo({ bare: true });
    const { store, actor } = await seedQueue(repo);
    const publisher = new Publisher(store);
    await publisher.cache.load();
    await publisher.publish({ requestId: 'warm-up', actor, prepare: (p, ids) => submitRequest(p.state, [{ node_key: 'w', payload: {} }], { graphId: 'g', at: ids.at }) });
    const reader = store.readerPid;
    const transactions = store.transactionsPid;
    expect(reader).toBeGreaterThan(0);
    expect(transactions).toBeGreaterThan(0);
    const commands: string[] = [];
    setDebugSink((l) => {
      const m = /store git command=(\S+)/.exec(l);
      if (m) commands.push(m[1]!);
    });
    configureDebug({ DEBUG: 'work-queue:store' });
    for (let i = 0; i < 3; i++) {
      commands.length = 0;
      const out = await publisher.publish({ requestId: `warm-${i}`, actor, prepare: (p, ids) => submitRequest(p.state, [{ node_key: `w${i}`, payload: { i } }], { graphId: 'g', at: ids.at }) });
      expect(out.status).toBe('committed');
      // cat-file: the version check; update-ref: the compare-and-swap; both answered by running helpers.
      expect(commands).toEqual(['cat-file', 'update-ref']);
      expect(store.readerPid).toBe(reader);
      expect(store.transactionsPid).toBe(transactions);
    }
    expect(refTip(repo, 'work-queue')).toBe(publisher.cache.current()!.version);
    gitSync(repo, ['fsck', '--strict', '--no-dangling']);
  });

  it('the reader sees ref moves, deletions and packed refs made by other processes', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    expect(await store.readVersion()).toBe(v1.version);
    const other = gitText(repo, 'commit-tree', `${v1.version}^{tree}`, '-p', v1.version, '-m', 'moved elsewhere');
    gitSync(repo, ['update-ref', 'refs/heads/work-queue', other]);
    expect(await store.readVersion()).toBe(other);
    gitSync(repo, ['pack-refs', '--all']);
    expect(existsSync(join(repo, 'refs', 'heads', 'work-queue'))).toBe(false);
    expect(await store.readVersion()).toBe(other);
    gitSync(repo, ['update-ref', 'refs/heads/work-queue', v1.version]);
    gitSync(repo, ['pack-refs', '--all']);
    expect(await store.readVersion()).toBe(v1.version);
    gitSync(repo, ['update-ref', '-d', 'refs/heads/work-queue']);
    expect(await store.readVersion()).toBeNull();
    expect(await store.read()).toEqual({ version: null, bytes: null });
  });

  it('reads blobs of every size exactly, back to back on one reader (pipe-sized, split and empty bodies)', async () => {
    const repo = initRepo({ bare: true });
    const cat = new CatFile({ cwd: repo });
    const sizes = [0, 1, 65535, 65536, 65537, 3 * 2 ** 20 + 7, MIN_BYTES + 5];
    const blobs = sizes.map((n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + n) % 251)));
    const ids = blobs.map((b) => gitSync(repo, ['hash-object', '-w', '--stdin'], { input: b }).toString().trim());
    const read = await Promise.all(ids.map((id) => cat.contents(id)));
    read.forEach((r, i) => expect(r?.bytes?.equals(blobs[i]!), `size ${sizes[i]}`).toBe(true));
    // A ledger-sized body is read into memory replay's worker threads share (no copy for them).
    read.forEach((r, i) => expect(r?.bytes?.buffer instanceof SharedArrayBuffer, `size ${sizes[i]}`).toBe(sizes[i]! >= MIN_BYTES));
    expect(await cat.contents('0'.repeat(40))).toBeNull();
    expect(await cat.info('refs/heads/nope')).toBeNull();
    expect((await cat.contents(ids[5]!, 1000))?.bytes).toBeNull(); // over the bound: read past, not kept
    expect((await cat.contents(ids[2]!))?.bytes?.length).toBe(65535); // and the stream stays in step
    cat.close();
  });

  it('an idle reader exits by itself and a new one starts on demand', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    await store.compareAndSwap(null, utf8('one\n'), 'one');
    await store.readVersion();
    const first = store.readerPid!;
    expect(gitsIn(repo)).toContain('cat-file --batch-command');
    await sleep(IDLE_MS);
    await idleWithin(() => store.readerPid === undefined, repo);
    expect(store.readerPid).toBeUndefined();
    expect(gitsIn(repo)).toEqual([]);
    await store.readVersion();
    expect(store.readerPid).not.toBe(first);
  });

  it('a read that comes while the idle reader is closing is answered by a new reader (the process does not end with it pending)', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    const script = join(tempDir('closing'), 'closing.mts');
    writeFileSync(script, `
      import { CatFile } from ${JSON.stringify(new URL('../../lib/store/git-batch.ts', import.meta.url).pathname)};
      const cat = new CatFile({ cwd: ${JSON.stringify(repo)} });
      await cat.info('refs/heads/work-queue'); // the reader runs, then goes idle (its pipes no longer hold the process)
      cat.close(); // as the idle timer does
      const again = await cat.info('refs/heads/work-queue');
      process.stdout.write(JSON.stringify(again));
    `);
    for (let i = 0; i < 5; i++) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ oid: v1.version, type: 'commit' });
    }
  });

  it('a ref transaction refused by git (the ref moved) is a conflict; create refuses an existing ref', async () => {
    const repo = initRepo({ bare: true });
    const a = gitText(repo, 'commit-tree', gitText(repo, 'mktree'), '-m', 'a');
    const b = gitText(repo, 'commit-tree', gitText(repo, 'mktree'), '-m', 'b');
    expect(await new RefTransaction({ cwd: repo }, 'm').update('refs/heads/x', a, null)).toEqual({ ok: true });
    expect(await new RefTransaction({ cwd: repo }, 'm').update('refs/heads/x', b, null)).toMatchObject({ ok: false, committedUnknown: false });
    expect(await new RefTransaction({ cwd: repo }, 'm').update('refs/heads/x', b, b)).toMatchObject({ ok: false, stderr: expect.stringMatching(/but expected/) });
    expect(await new RefTransaction({ cwd: repo }, 'm').update('refs/heads/x', b, a)).toEqual({ ok: true });
    expect(refTip(repo, 'x')).toBe(b);
    const aborted = new RefTransaction({ cwd: repo }, 'm');
    aborted.abort();
    await sleep(100);
    expect(refTip(repo, 'x')).toBe(b);
  });

  it('a publisher killed with SIGKILL mid-loop leaves no git process and no lock behind, and the ledger replays', async () => {
    const repo = initRepo({ bare: true });
    await seedQueue(repo);
    const script = join(tempDir('kill'), 'loop.mts');
    writeFileSync(script, `
      import { Publisher } from ${JSON.stringify(new URL('../../lib/publisher/publisher.ts', import.meta.url).pathname)};
      import { LocalGitStore } from ${JSON.stringify(new URL('../../lib/store/local-git.ts', import.meta.url).pathname)};
      import { submitRequest } from ${JSON.stringify(new URL('../../engine/requests/operations.ts', import.meta.url).pathname)};
      const publisher = new Publisher(new LocalGitStore({ repo: ${JSON.stringify(repo)} }));
      const actor = { role: 'producer', principal: '1', repository: 'acme/queue' };
      for (let i = 0; ; i++) {
        await publisher.publish({ requestId: 'k' + i, actor, prepare: (p, ids) => submitRequest(p.state, [{ node_key: 'k' + i, payload: { i } }], { graphId: 'g', at: ids.at }) });
        if (i === 2) process.stdout.write('running\\n');
      }
    `);
    for (const delay of [0, 7, 23]) {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      await sleep(delay);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      // Its helpers saw end of input: the reader exits, an update in flight finishes or aborts.
      for (let i = 0; i < 50 && gitsIn(repo).length > 0; i++) await sleep(50);
      expect(gitsIn(repo)).toEqual([]);
      expect(existsSync(join(repo, 'refs', 'heads', 'work-queue.lock'))).toBe(false);
    }
    const { projection } = await new Publisher(new LocalGitStore({ repo })).cache.load();
    expect(projection!.commitCount).toBeGreaterThan(3);
  }, 60_000);

  it('the long-lived update-ref: a refused transaction ends its git, the next one starts another; idle, it closes', async () => {
    const repo = initRepo({ bare: true });
    const a = gitText(repo, 'commit-tree', gitText(repo, 'mktree'), '-m', 'a');
    const b = gitText(repo, 'commit-tree', gitText(repo, 'mktree'), '-m', 'b');
    const tx = new RefTransactions({ cwd: repo }, 'm');
    expect(await tx.update('refs/heads/x', a, null)).toEqual({ ok: true });
    const first = tx.pid;
    expect(await tx.update('refs/heads/x', b, b)).toMatchObject({ ok: false, committedUnknown: false, stderr: expect.stringMatching(/but expected/) });
    expect(await tx.update('refs/heads/x', b, a)).toEqual({ ok: true });
    expect(tx.pid).not.toBe(first);
    expect(refTip(repo, 'x')).toBe(b);
    // Transactions queued together run one after another.
    const c = gitText(repo, 'commit-tree', gitText(repo, 'mktree'), '-m', 'c');
    const results = await Promise.all([tx.update('refs/heads/y', a, null), tx.update('refs/heads/y', c, a), tx.update('refs/heads/y', b, a)]);
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(refTip(repo, 'y')).toBe(c);
    await sleep(IDLE_MS);
    await idleWithin(() => tx.pid === undefined, repo);
    expect(tx.pid).toBeUndefined();
    expect(gitsIn(repo)).toEqual([]);
  });

  it('running readers and idle ref-transaction helpers are never counted as ref lock holders', async () => {
    const repo = initRepo({ bare: true });
    expect(gitSubcommand(['git', 'cat-file', '--batch-command'])).toBe('cat-file');
    expect(gitSubcommand(['git', '-c', 'a=b', '-C', '/x', 'update-ref', '--stdin'])).toBe('update-ref');
    expect(gitSubcommand(['/usr/lib/git-core/git-upload-pack', '.'])).toBe('upload-pack');
    const reader = spawn('git', ['cat-file', '--batch-command'], { cwd: repo, stdio: ['pipe', 'ignore', 'ignore'] });
    const holder = spawn('git', ['update-ref', '--stdin'], { cwd: repo, stdio: ['pipe', 'ignore', 'ignore'] });
    // Fairway's own update-ref between transactions (marked, blocked reading its input).
    const idleHelper = spawn('git', ['-c', 'fairway.helper=ref-transactions', 'update-ref', '--stdin'], { cwd: repo, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      await sleep(300);
      const pids = gitProcessesTouching([repo])!.map((p) => p.pid);
      expect(pids).toContain(holder.pid); // any other update-ref may hold a lock: counted
      expect(pids).not.toContain(reader.pid);
      expect(pids).not.toContain(idleHelper.pid);
    } finally {
      reader.kill('SIGKILL');
      holder.kill('SIGKILL');
      idleHelper.kill('SIGKILL');
    }
  });
});

describe('a git without cat-file --batch-command', () => {
  it('falls back to one-shot plumbing for every read, and stops trying the helper', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const v1 = (await store.compareAndSwap(null, utf8('one\n'), 'one')) as { version: string };
    // A git wrapper that refuses --batch-command as git before 2.36 does (usage error, exit 129).
    const bin = tempDir('oldgit');
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do [ "$a" = "--batch-command" ] && { echo "error: unknown option \\\`batch-command'" >&2; exit 129; }; done\nexec ${real} "$@"\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const old = new LocalGitStore({ repo });
      expect(await old.readVersion()).toBe(v1.version);
      const read = await old.read();
      expect(Buffer.from(read.bytes!).toString()).toBe('one\n');
      expect(old.readerPid).toBeUndefined();
      expect((await old.compareAndSwap(v1.version, utf8('one\ntwo\n'), 'two')).status).toBe('committed');
    } finally {
      process.env.PATH = path;
    }
  });
});
