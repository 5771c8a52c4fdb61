/**
 * Ref transactions through `git update-ref --stdin` (`start`, `update`/`create`/`delete`,
 * `prepare`, `commit`): the compare-and-swap stays git's own, checked under git's ref lock.
 *
 * `RefTransactions` keeps one such git running for a repository (git-batch.ts `Helper`), so a
 * warm publication spawns no process. Every transaction is written whole, in one write of a
 * few hundred bytes (a pipe delivers it at once), so that git holds a ref lock only while it
 * runs a transaction: between transactions it is blocked reading its input and holds none. A
 * transaction git refuses (the ref moved, a lock is taken) ends that git (`fatal: ...`); the
 * next transaction starts a new one. The helper closes itself after IDLE_MS without work. It
 * runs with the marker `-c fairway.helper=ref-transactions`, by which the stale-lock check
 * (git-locks.ts) recognises it, and counts it as a lock holder unless the kernel shows it
 * blocked reading its input (`isIdleRefHelper`).
 *
 * `RefTransaction` is one transaction in a process of its own, started ahead of it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { debugEvent, since } from '../debug/log.ts';
import { checkName, Helper, HelperGone, type Parser } from './git-batch.ts';
import { gitEnv, type GitContext } from './git-cli.ts';

export type RefUpdate =
  | { ok: true }
  /** Git refused the transaction (its `fatal:` line) or ended before committing it. */
  | { ok: false; stderr: string; committedUnknown: boolean };

/** The marker of a Fairway ref-transaction helper on git's command line. */
export const REF_HELPER_MARK = 'fairway.helper=ref-transactions';

/**
 * A transaction's commands for moving `ref` to `next` only if it is at `expected` (null: only if
 * absent). `no-deref`: a queue ref that is (or became) a symbolic ref is replaced by a ref of its
 * own, never followed, so a publication never moves the branch it named (reads refuse such a ref:
 * git-objects.ts `refuseSymbolicRef`).
 */
function updateCommand(ref: string, next: string, expected: string | null): string {
  return `option no-deref\n${expected === null ? `create ${checkName(ref)} ${next}\n` : `update ${checkName(ref)} ${next} ${expected}\n`}`;
}

function checkCommands(commands: string): string {
  for (const line of commands.split('\n')) if (line !== '') checkName(line);
  return commands;
}

/** A long-lived `git update-ref --stdin` for one repository: one transaction at a time. */
export class RefTransactions {
  private readonly helper: Helper;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(ctx: GitContext, message: string) {
    this.helper = new Helper(ctx, ['-c', REF_HELPER_MARK, 'update-ref', '-m', message, '--stdin']);
  }

  /** Starts the git now if none runs (so its start-up overlaps other work). */
  warm(): void {
    this.helper.warm();
  }

  /** Moves `ref` to `next` only if it is at `expected` (null: only if it does not exist), under git's ref lock. */
  update(ref: string, next: string, expected: string | null): Promise<RefUpdate> {
    return this.transact(updateCommand(ref, next, expected));
  }

  /** The running helper's pid (tests). */
  get pid(): number | undefined {
    return this.helper.pid;
  }

  close(): void {
    this.helper.close();
  }

  private transact(commands: string): Promise<RefUpdate> {
    const run = async (): Promise<RefUpdate> => {
      const started = Date.now();
      let prepared = false;
      try {
        await this.helper.request(`start\n${commands}prepare\ncommit\n`, transactionAnswer(() => void (prepared = true)));
        debugEvent('store', 'git', { command: 'update-ref', exit: 0, ms: since(started) });
        return { ok: true };
      } catch (e) {
        if (!(e instanceof HelperGone)) throw e;
        debugEvent('store', 'git', { command: 'update-ref', exit: e.exit ?? -1, ms: since(started) });
        return { ok: false, stderr: e.stderr, committedUnknown: prepared };
      }
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

/** Reads `start: ok`, `prepare: ok` (then `onPrepared`), `commit: ok`; a refusal ends git instead. */
function transactionAnswer(onPrepared: () => void): Parser<true> {
  const lines = ['start: ok\n', 'prepare: ok\n', 'commit: ok\n'].map((l) => Buffer.from(l, 'utf8'));
  let step = 0;
  return {
    feed: (buffer) => {
      let used = 0;
      while (step < lines.length) {
        const want = lines[step]!;
        if (buffer.length - used < want.length || !buffer.subarray(used, used + want.length).equals(want)) return { used, done: false };
        used += want.length;
        step++;
        if (step === 2) onPrepared();
      }
      return { used, done: true, value: true };
    },
  };
}

/** The `read` system call's number, by architecture (as /proc/<pid>/syscall reports it). */
const READ_SYSCALL: Partial<Record<string, string>> = { x64: '0', arm64: '63' };

/**
 * Whether `pid`, a Fairway ref-transaction helper (`args` carry REF_HELPER_MARK), is between
 * transactions: blocked in `read` on its standard input, as the kernel reports in
 * /proc/<pid>/syscall. Anything else (running, another call, another architecture, nothing
 * readable) is not idle.
 */
export function isIdleRefHelper(pid: number, args: readonly string[]): boolean {
  if (!args.includes(REF_HELPER_MARK)) return false;
  const read = READ_SYSCALL[process.arch];
  if (read === undefined) return false;
  try {
    const [nr, fd] = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
    return nr === read && fd === '0x0';
  } catch {
    return false;
  }
}

/**
 * One `git update-ref --stdin` transaction, in a process started ahead of it (so git's start-up
 * overlaps other work). The whole transaction is written at once and stdin closed, so git holds
 * the ref lock only while it runs the transaction, and exits right after.
 */
export class RefTransaction {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly result: Promise<{ code: number | null; stdout: string; stderr: string }>;
  private used = false;
  private readonly started = Date.now();

  constructor(ctx: GitContext, message: string) {
    const child = spawn('git', ['update-ref', '-m', message, '--stdin'], { cwd: ctx.cwd, env: gitEnv(ctx), windowsHide: true });
    this.child = child;
    let stdout = '';
    let stderr = '';
    child.stdin.on('error', () => undefined); // a git that could not start is reported by its exit
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString('utf8')).slice(-4000)));
    this.result = new Promise((resolve) => {
      child.on('error', (e) => resolve({ code: null, stdout, stderr: `${stderr}\n${e.message}` }));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** Moves `ref` to `next` only if it is at `expected` (null: only if it does not exist), under git's ref lock. */
  update(ref: string, next: string, expected: string | null): Promise<RefUpdate> {
    return this.transact(updateCommand(ref, next, expected));
  }

  /** Deletes `refs` in one transaction. */
  delete(refs: readonly string[]): Promise<RefUpdate> {
    return this.transact(refs.map((ref) => `delete ${checkName(ref)}\n`).join(''));
  }

  /** Runs `commands` (update-ref --stdin lines: update, create, delete, verify) as one transaction. */
  run(commands: string): Promise<RefUpdate> {
    return this.transact(checkCommands(commands));
  }

  /** Ends the process without a transaction. */
  abort(): void {
    if (this.used) return;
    this.used = true;
    this.child.stdin.end();
  }

  private async transact(commands: string): Promise<RefUpdate> {
    if (this.used) throw new Error('one transaction per RefTransaction');
    this.used = true;
    this.child.stdin.end(`start\n${commands}prepare\ncommit\n`);
    const r = await this.result;
    debugEvent('store', 'git', { command: 'update-ref', exit: r.code ?? -1, ms: since(this.started) });
    if (r.code === 0 && r.stdout.includes('commit: ok')) return { ok: true };
    return { ok: false, stderr: r.stderr, committedUnknown: r.stdout.includes('prepare: ok') };
  }
}
