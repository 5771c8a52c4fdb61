/**
 * The Git stores under the faults of issue 18 §5: a ref lock left by a git
 * killed during `update-ref`, and scratch refs left by killed fetches. Each
 * fault is made for real first (a `git update-ref --stdin` transaction holds
 * the lock, then gets SIGKILL), then `fairway doctor` is run through the real
 * entry point.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { doctor } from '../../lib/store/doctor.ts';
import { listScratchRefs, SCRATCH_PREFIX } from '../../lib/store/git-locks.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';
import { RemoteGitStore } from '../../lib/store/remote-git.ts';
import { gitSync, gitText, initRepo, refTip, removeTempDirs, tempDir } from './git-fixtures.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const BIN = new URL('../../bin/fairway.js', import.meta.url).pathname;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(removeTempDirs);

async function committed(store: LocalGitStore, expected: string | null, body: string): Promise<string> {
  const outcome = await store.compareAndSwap(expected, utf8(body), body.trim());
  if (outcome.status !== 'committed') throw new Error(`expected a commit, got ${JSON.stringify(outcome)}`);
  return outcome.version;
}

/** A real `git update-ref` that holds the queue branch's lock (a prepared transaction), as a git caught mid-update. */
async function gitHoldingLock(repo: string, ref: string, from: string, to: string): Promise<ChildProcess> {
  const child = spawn('git', ['update-ref', '--stdin'], { cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('prepare: ok')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`update-ref exited ${code}`)));
    child.stdin!.write(`start\nupdate ${ref} ${to} ${from}\nprepare\n`);
  });
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

function fairway(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('stale ref lock (local Git)', () => {
  it('answers store_locked with the lock path, its age and the command to clear it after a git was killed during update-ref', async () => {
    const repo = initRepo();
    const store = new LocalGitStore({ repo });
    const v1 = await committed(store, null, 'one\n');
    const lockPath = join(repo, '.git', 'refs', 'heads', 'work-queue.lock');
    const killed = await gitHoldingLock(repo, 'refs/heads/work-queue', v1, gitText(repo, 'commit-tree', `${v1}^{tree}`, '-p', v1, '-m', 'x'));
    await kill9(killed);
    expect(existsSync(lockPath)).toBe(true); // the fault: SIGKILL leaves the lock behind

    const error = await store.compareAndSwap(v1, utf8('one\ntwo\n'), 'two').then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({
      code: 'store_locked',
      details: { lock: lockPath, age_ms: expect.any(Number), holders: [], command: `rm -f -- '${lockPath}'` },
      message: expect.stringContaining(`rm -f -- '${lockPath}'`),
    });
    expect(refTip(repo, 'work-queue')).toBe(v1);

    // The command it names clears it, and publication works again.
    spawnSync('sh', ['-c', (error as { details: { command: string } }).details.command]);
    expect(await committed(store, v1, 'one\ntwo\n')).toBe(refTip(repo, 'work-queue'));
  });

  it('fairway doctor reports the stale lock, never removes one a running git holds, and --fix removes it once none does', async () => {
    const repo = initRepo({ bare: true });
    const store = new LocalGitStore({ repo });
    const v1 = await committed(store, null, '{"not":"a ledger"}\n');
    const lockPath = join(repo, 'refs', 'heads', 'work-queue.lock');
    const holder = await gitHoldingLock(repo, 'refs/heads/work-queue', v1, gitText(repo, 'commit-tree', `${v1}^{tree}`, '-p', v1, '-m', 'x'));

    // A running git holds it: --fix must leave it.
    const held = await doctor(store, { fix: true });
    expect(held.checks.find((c) => c.name === 'ref_lock')).toMatchObject({ status: 'problem', details: { locks: [expect.objectContaining({ lock: lockPath, holders: expect.arrayContaining([holder.pid]) })] } });
    expect(existsSync(lockPath)).toBe(true);

    await kill9(holder);
    const checked = fairway(['doctor', '--repo', repo, '--json']);
    expect(checked.code).toBe(3);
    const report = JSON.parse(checked.stdout) as { ok: boolean; error: { code: string; details: { report: { checks: Array<{ name: string; status: string }> } } } };
    expect(report.error.code).toBe('store_unhealthy');
    expect(report.error.details.report.checks.find((c) => c.name === 'ref_lock')?.status).toBe('problem');
    expect(existsSync(lockPath)).toBe(true); // without --fix nothing is removed

    const fixed = fairway(['doctor', '--repo', repo, '--fix']);
    expect(fixed.stdout).toMatch(/fixed\s+ref_lock: removed stale lock/);
    expect(existsSync(lockPath)).toBe(false);
    // The branch holds no valid ledger: reported, never rewritten (and so still a problem).
    expect(fixed.stdout).toMatch(/PROBLEM ledger: /);
    expect(fixed.code).toBe(3);
    expect(refTip(repo, 'work-queue')).toBe(v1);
  });

  it('documents --fix in fairway doctor --help', () => {
    const help = fairway(['doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--fix/);
    expect(help.stdout).toMatch(/never removed/);
  });
});

describe('scratch refs of killed fetches (remote Git)', () => {
  it('removes stale refs/fairway/fetch/* automatically on the next read, keeps live ones, and doctor reports and removes them', async () => {
    const origin = initRepo({ bare: true });
    const clone = initRepo({ dir: join(tempDir('clone'), 'c') });
    gitSync(clone, ['remote', 'add', 'origin', origin]);
    const writer = new RemoteGitStore({ repo: clone, remote: 'origin' });
    const v1 = await writer.compareAndSwap(null, utf8('one\n'), 'one');
    expect(v1.status).toBe('committed');
    const tip = (v1 as { version: string }).version;

    // What killed fetches leave: a ref from a process that is gone (old name form), one from long ago, and one live.
    const dead = spawnSync('true').pid!;
    const old = `${SCRATCH_PREFIX}${process.pid}-${Date.now() - 60 * 60_000}-1-deadbeef`;
    const gone = `${SCRATCH_PREFIX}${dead}-7-cafe0001`;
    const live = `${SCRATCH_PREFIX}${process.pid}-${Date.now()}-99-feedf00d`;
    for (const ref of [old, gone, live]) gitSync(clone, ['update-ref', ref, tip]);

    const report = await doctor(new RemoteGitStore({ repo: clone, remote: 'origin' }), { fix: false });
    expect(report.checks.find((c) => c.name === 'scratch_refs')).toMatchObject({ status: 'problem', details: { stale: expect.arrayContaining([old, gone]) } });

    const reader = new RemoteGitStore({ repo: clone, remote: 'origin' });
    expect((await reader.read()).version).toBe(tip);
    expect((await listScratchRefs({ cwd: clone })).map((s) => s.ref)).toEqual([live]);

    gitSync(clone, ['update-ref', old, tip]);
    const fixed = await doctor(new RemoteGitStore({ repo: clone, remote: 'origin' }), { fix: true });
    expect(fixed.checks.find((c) => c.name === 'scratch_refs')).toMatchObject({ status: 'fixed', details: { removed: [old] } });
    expect((await listScratchRefs({ cwd: clone })).map((s) => s.ref)).toEqual([live]);
  });
});

describe('stale lock on the clone\'s tips ref (remote Git)', () => {
  it('a fetch killed while updating refs/fairway/tips/<remote>/<branch> leaves its lock: doctor reports it (every later read fetches twice) and --fix removes it', async () => {
    const origin = initRepo({ bare: true });
    const clone = initRepo({ dir: join(tempDir('clone'), 'c') });
    gitSync(clone, ['remote', 'add', 'origin', origin]);
    const store = new RemoteGitStore({ repo: clone, remote: 'origin' });
    const v1 = await store.compareAndSwap(null, utf8('one\n'), 'one');
    expect(v1.status).toBe('committed');
    expect((await store.read()).version).toBe((v1 as { version: string }).version);
    const tips = 'refs/fairway/tips/origin/work-queue';
    const fetched = gitText(clone, 'rev-parse', '--verify', '-q', tips);
    expect(fetched).toBe((v1 as { version: string }).version);

    // The lock a real git holds while it moves the tips ref, then SIGKILL: the lock file stays.
    const v2 = await store.compareAndSwap((v1 as { version: string }).version, utf8('one\ntwo\n'), 'two');
    const held = await gitHoldingLock(clone, tips, gitText(clone, 'rev-parse', '--verify', '-q', tips), (v2 as { version: string }).version);
    await kill9(held);
    const lock = join(clone, '.git', `${tips}.lock`);
    expect(existsSync(lock)).toBe(true);

    const report = await doctor(new RemoteGitStore({ repo: clone, remote: 'origin' }), { fix: false });
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'ref_lock')).toMatchObject({ status: 'problem', details: { locks: [expect.objectContaining({ lock })] } });

    const fixed = await doctor(new RemoteGitStore({ repo: clone, remote: 'origin' }), { fix: true });
    expect(fixed.checks.find((c) => c.name === 'ref_lock')).toMatchObject({ status: 'fixed', details: { removed: [lock] } });
    expect(existsSync(lock)).toBe(false);
  });
});
