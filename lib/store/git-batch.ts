/**
 * Long-lived git helper processes for one repository, so a publication spawns no process:
 *
 * - `git cat-file --batch-command` answers ref and object reads (`info`, `contents`) through
 *   git's own ref and object lookup (loose and packed refs, packs, alternates), fresh on every
 *   command;
 * - ref transactions (`update-ref --stdin`) are in ref-transactions.ts, on the same `Helper`.
 *
 * The cat-file helper closes its stdin after IDLE_MS without work (git then exits), so an idle
 * Fairway holds no git process; its pipes keep the event loop alive only while a request is
 * pending. A `cat-file` takes no ref lock, so the stale-lock check (git-locks.ts) never counts
 * one as a lock holder.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { debugEvent, since } from '../debug/log.ts';
import { ledgerBuffer } from '../replay/thread-verifier.ts';
import { gitEnv, type GitContext } from './git-cli.ts';

/** An idle helper closes after this long (ms). */
export const IDLE_MS = 1000;

/** The helper ended (or could not start) before answering: the caller falls back to one-shot git. */
export class HelperGone extends Error {
  constructor(readonly stderr: string, readonly exit: number | null) {
    super(`git helper ended: ${stderr.trim().split('\n').pop() ?? `exit ${exit}`}`);
  }
}

/** A child's stdio stream is a socket (it has ref/unref). */
function pipe(stream: NodeJS.ReadableStream | NodeJS.WritableStream): Socket {
  return stream as unknown as Socket;
}

/**
 * Reads one answer from the helper's output: `feed` gets what has arrived (from the end of the
 * previous answer) and says how many bytes it used, and the value once the answer is complete.
 */
export interface Parser<T> {
  feed(buffer: Buffer): { used: number; done: false } | { used: number; done: true; value: T };
}

interface Pending {
  feed(buffer: Buffer): { used: number; done: boolean };
  reject(e: Error): void;
}

/** One running git process of a helper, with what it still owes. */
interface Running {
  child: ChildProcessWithoutNullStreams;
  queue: Pending[];
  buffer: Buffer;
  stderr: string;
}

/**
 * One long-lived git process speaking a line protocol on stdin/stdout. A process being closed
 * is detached at once: a request that comes after starts a new one, never waits on one whose
 * input has ended.
 */
export class Helper {
  private running: Running | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Set when this git cannot run the helper at all (too old, missing): callers take the one-shot path from then on. */
  private unsupported: HelperGone | null = null;
  private answered = false;

  constructor(private readonly ctx: GitContext, private readonly args: string[]) {}

  /** Starts the git now if none runs (idle until the first request), so its start-up overlaps other work. */
  warm(): void {
    if (this.unsupported === null) this.running ??= this.start();
  }

  /** Sends `input` and resolves with the answer `parser` reads. */
  request<T>(input: string, parser: Parser<T>): Promise<T> {
    if (this.unsupported !== null) return Promise.reject(this.unsupported);
    const run = (this.running ??= this.start());
    return new Promise<T>((resolve, reject) => {
      run.queue.push({
        feed: (buffer) => {
          const r = parser.feed(buffer);
          if (r.done) resolve(r.value);
          return r;
        },
        reject,
      });
      this.busy(run);
      run.child.stdin.write(input);
    });
  }

  private start(): Running {
    const child = spawn('git', this.args, { cwd: this.ctx.cwd, env: gitEnv(this.ctx), windowsHide: true });
    const run: Running = { child, queue: [], buffer: Buffer.alloc(0), stderr: '' };
    const end = (gone: HelperGone) => {
      if (this.running === run) {
        this.running = null;
        if (this.idleTimer !== null) clearTimeout(this.idleTimer);
        this.idleTimer = null;
      }
      for (const p of run.queue.splice(0)) p.reject(gone);
    };
    child.stdin.on('error', () => undefined); // a dead helper is reported by its exit
    child.stdout.on('data', (d: Buffer) => this.receive(run, d));
    child.stderr.on('data', (d: Buffer) => void (run.stderr = (run.stderr + d.toString('utf8')).slice(-4000)));
    child.on('error', (e) => {
      // Could not start (or lost) the process: whatever is pending fails; the next request starts anew.
      const gone = new HelperGone(`${run.stderr}\n${e.message}`, null);
      if (!this.answered) this.unsupported = gone;
      end(gone);
    });
    child.on('close', (code) => {
      const gone = new HelperGone(run.stderr, code);
      // A usage error before any answer: this git has no such mode (cat-file --batch-command needs 2.36).
      if (!this.answered && code === 129) this.unsupported = gone;
      end(gone);
    });
    this.idle(run); // nothing asked yet: it holds no event-loop reference and closes if left unused
    return run;
  }

  private receive(run: Running, d: Buffer): void {
    // Only an incomplete header line is ever kept between chunks; bodies are consumed as they arrive.
    run.buffer = run.buffer.length === 0 ? d : Buffer.concat([run.buffer, d]);
    while (run.queue.length > 0 && run.buffer.length > 0) {
      const { used, done } = run.queue[0]!.feed(run.buffer);
      run.buffer = run.buffer.subarray(used);
      if (!done) break;
      this.answered = true;
      run.queue.shift();
    }
    if (run.queue.length === 0 && this.running === run) this.idle(run);
  }

  /** A request is pending: keep the event loop alive until it is answered. */
  private busy(run: Running): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    run.child.ref();
    pipe(run.child.stdout).ref();
    pipe(run.child.stdin).ref();
  }

  /** Nothing pending: let the process exit freely, and close the helper after IDLE_MS. */
  private idle(run: Running): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    pipe(run.child.stdout).unref();
    pipe(run.child.stdin).unref();
    pipe(run.child.stderr).unref();
    run.child.unref();
    this.idleTimer = setTimeout(() => this.close(), IDLE_MS);
    this.idleTimer.unref();
  }

  /** The running helper's pid (undefined when none runs). */
  get pid(): number | undefined {
    return this.running?.child.pid;
  }

  /** Ends the helper when nothing is pending (git exits at end of input); the next request starts a new one. */
  close(): void {
    const run = this.running;
    if (run === null || run.queue.length > 0) return;
    this.running = null;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    run.child.stdin.end();
  }
}

export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

/** `git cat-file --batch-command` for one repository. */
export class CatFile {
  private readonly helper: Helper;

  constructor(ctx: GitContext) {
    this.helper = new Helper(ctx, ['cat-file', '--batch-command']);
  }

  /** What `name` (a ref, an object id, `<commit>:<path>`) names; null when git says missing (or ambiguous). */
  async info(name: string): Promise<ObjectInfo | null> {
    const started = Date.now();
    const out = await this.helper.request<ObjectInfo | null>(`info ${checkName(name)}\n`, {
      feed: (buffer) => {
        const end = buffer.indexOf(0x0a);
        return end < 0 ? { used: 0, done: false } : { used: end + 1, done: true, value: parseHeader(buffer.subarray(0, end).toString('utf8')) };
      },
    });
    debugEvent('store', 'git', { command: 'cat-file', exit: 0, ms: since(started) });
    return out;
  }

  /**
   * The object `name` names with its contents, read into one buffer of exactly its size; null
   * when missing. A body larger than `maxBytes` is read past and answered as `bytes: null`.
   */
  async contents(name: string, maxBytes = Infinity): Promise<(ObjectInfo & { bytes: Buffer | null }) | null> {
    const started = Date.now();
    let header: ObjectInfo | null | undefined;
    let bytes: Buffer | null = null;
    let filled = 0;
    const out = await this.helper.request<(ObjectInfo & { bytes: Buffer | null }) | null>(`contents ${checkName(name)}\n`, {
      feed: (buffer) => {
        let at = 0;
        if (header === undefined) {
          const end = buffer.indexOf(0x0a);
          if (end < 0) return { used: 0, done: false };
          header = parseHeader(buffer.subarray(0, end).toString('utf8'));
          at = end + 1;
          if (header === null) return { used: at, done: true, value: null };
          // A ledger-sized body lands in memory replay's worker threads share (no copy for them).
          if (header.size <= maxBytes) bytes = ledgerBuffer(header.size);
        }
        // The body is copied straight into the result as it arrives, then one LF ends it.
        const h = header as ObjectInfo; // set above (a missing object answered already)
        const piece = buffer.subarray(at, at + h.size - filled);
        if (bytes !== null) piece.copy(bytes, filled);
        filled += piece.length;
        at += piece.length;
        if (filled < h.size || at >= buffer.length) return { used: at, done: false };
        return { used: at + 1, done: true, value: { ...h, bytes } };
      },
    });
    debugEvent('store', 'git', { command: 'cat-file', exit: 0, ms: since(started) });
    return out;
  }

  /** The running process's pid (undefined when none runs: not started yet, or closed when idle). */
  get pid(): number | undefined {
    return this.helper.pid;
  }

  close(): void {
    this.helper.close();
  }
}

function parseHeader(line: string): ObjectInfo | null {
  const parts = line.split(' ');
  if (parts.length === 3 && /^[0-9a-f]{40,64}$/.test(parts[0]!)) return { oid: parts[0]!, type: parts[1]!, size: Number(parts[2]) };
  return null; // `<name> missing`, `<name> ambiguous`
}

export function checkName(name: string): string {
  if (/[\n\r\0]/.test(name) || name === '') throw new Error(`not a git object name: ${JSON.stringify(name)}`);
  return name;
}
