/**
 * Cold replay with its per-record checks on worker threads (issue 13: "parallel parse and
 * validate on a worker thread pool, keeping the fold sequential and deterministic").
 *
 * Every record's own checks (UTF-8, canonical form, version, the closed schema, the request
 * envelope: engine/replay/record.ts) depend on no other record. Workers run them ahead of
 * the fold over the ledger's bytes in shared memory; replay's thread, reaching a record,
 * takes a worker's PASSED verdict and only parses it, checks inline any record no worker
 * has taken yet, and checks again any record a worker failed, so the error it throws is the
 * one sequential replay names. Nothing a worker does can change a verdict: a worker that
 * dies or stalls only costs time (a replay waits for workers WAIT_MS in all, then checks every
 * record itself). A worker that fails or exits stops the pool for the rest of the process
 * (debug event `replay threads_stopped`).
 *
 * The pool starts with the first ledger of at least MIN_BYTES and lives as long as the
 * process, without keeping it alive. Threads: FAIRWAY_REPLAY_THREADS, none by default.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RecordVerdicts, RecordVerifier, VerifiedRecord } from '../../engine/replay/record.ts';
import { debugEvent } from '../debug/log.ts';
import { CLAIMED, CLOSED, CONTROL_SLOTS, FAILED, FREE, PASSED, PAYLOAD_BYTES_PER_ENTRY, REACHED, READY, verifiedOf, type MeasureSlots, type VerifyJob } from './slots.ts';

const MiB = 1 << 20;
/** Below this a ledger replays faster than a worker starts. */
export const MIN_BYTES = 4 << 20;
/**
 * Memory for `size` bytes of a ledger that a replay may hand its worker threads: from MIN_BYTES
 * on, shared memory, which `open` gives the workers as it is; below, an ordinary buffer. Readers
 * that learn a ledger's size before its bytes (a file's stat, git's object header, GitHub's
 * blob) read into it, so a threaded replay copies nothing. Measured at 64 MiB (docs/performance.md,
 * "Replay: twelfth round"): steady replay with a worker about 10% faster than from a read into an
 * ordinary buffer, and replay alone no slower.
 */
export function ledgerBuffer(size: number): Buffer {
  return size >= MIN_BYTES ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafe(size);
}

/** Most worker threads one replay may use (FAIRWAY_REPLAY_THREADS, `verify --threads`). */
export const MAX_THREADS = 16;
/** How long one replay waits, in all, for records workers have taken; after that it checks every record itself. */
const WAIT_MS = 1000;

export interface ThreadVerifierOptions {
  /** Worker threads (default: FAIRWAY_REPLAY_THREADS, else none). */
  threads?: number;
  /** Smallest ledger handed to the workers (default MIN_BYTES). */
  minBytes?: number;
}

/** How the last verification went: of all records, those whose checks a worker ran and passed, and those a worker failed (checked again inline). */
export interface ThreadVerifierReport {
  threads: number;
  records: number;
  ahead: number;
  rechecked: number;
}

export class ThreadVerifier implements RecordVerifier {
  private workers: Worker[] | null = null;
  /**
   * The shared copy of an earlier ledger's bytes, reused by the next ledger that fits: a fresh
   * SharedArrayBuffer costs a page fault per page on the copy (measured at 64 MiB: about 43 ms,
   * as much as reading the file). Only one open verification holds it (`scratchHeld`): a replay
   * started while another is open (from its progress callback) copies into a buffer of its own,
   * so the outer ledger's records are never checked against the inner's bytes. A worker still
   * finishing a record of a closed verification writes only that job's verdicts, which nothing
   * reads again. It is never more than twice the last ledger's size (rounded up to a MiB), and
   * `close()` drops it.
   */
  private scratch: SharedArrayBuffer | null = null;
  private scratchHeld = false;
  private readonly loaded = new WeakMap<Worker, Promise<boolean>>();
  private broken = false;
  readonly threads: number;
  readonly minBytes: number;
  last: ThreadVerifierReport | null = null;

  constructor(options: ThreadVerifierOptions = {}) {
    this.threads = Math.max(0, Math.floor(options.threads ?? defaultThreads()));
    this.minBytes = options.minBytes ?? MIN_BYTES;
  }

  open(input: Uint8Array, frames: readonly { start: number; end: number }[]): RecordVerdicts | null {
    this.last = null;
    if (this.threads === 0 || input.length < this.minBytes || frames.length < 2) return null;
    const workers = this.pool();
    if (workers === null) return null;
    let job: VerifyJob | null = null;
    let holds = false;
    try {
      let bytes: SharedArrayBuffer;
      if (input.buffer instanceof SharedArrayBuffer && input.byteOffset === 0) bytes = input.buffer;
      else if (this.scratchHeld) bytes = copyShared(input, new SharedArrayBuffer(input.length));
      else {
        bytes = copyShared(input, this.scratchFor(input.length));
        holds = this.scratchHeld = true;
      }
      job = share(bytes, input.length, frames);
      for (const w of workers) w.postMessage(job);
    } catch {
      // No shared memory for a copy of the ledger, or a worker that cannot be posted to: replay goes on alone.
      if (job !== null) Atomics.store(new Int32Array(job.control), CLOSED, 1);
      if (holds) this.scratchHeld = false;
      return null;
    }
    return new SharedVerdicts(job, (ahead, rechecked) => {
      // Released once: a second close of this job must not release a newer job's hold.
      if (holds) holds = this.scratchHeld = false;
      this.last = { threads: workers.length, records: frames.length, ahead, rechecked };
    });
  }

  /**
   * Starts the pool now rather than at the first large ledger (a long-lived process, a test):
   * resolves with the number of workers loaded and waiting, 0 when there are none.
   */
  async start(): Promise<number> {
    if (this.threads === 0) return 0;
    const workers = this.pool();
    if (workers === null) return 0;
    const loaded = await Promise.all(workers.map((w) => this.loaded.get(w) ?? Promise.resolve(false)));
    return loaded.filter(Boolean).length;
  }

  /** Bytes of shared memory kept for the next replay's copy of its ledger (0 when none). */
  get retainedBytes(): number {
    return this.scratch?.byteLength ?? 0;
  }

  /** Stops the workers (a long-lived process that no longer replays large ledgers). */
  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = null;
    this.scratch = null;
    if (workers !== null) await Promise.all(workers.map((w) => w.terminate()));
  }

  /** The kept copy, grown to fit `length`, or given up for one that fits when `length` needs under half of it. */
  private scratchFor(length: number): SharedArrayBuffer {
    const fit = Math.ceil(length / MiB) * MiB;
    if (this.scratch === null || this.scratch.byteLength < length || this.scratch.byteLength > 2 * fit) {
      this.scratch = null; // the old one is not kept alive beside the new
      this.scratch = new SharedArrayBuffer(fit);
    }
    return this.scratch;
  }

  private pool(): Worker[] | null {
    if (this.workers !== null || this.broken) return this.workers;
    const spec = workerScript();
    if (spec === null) {
      this.broken = true;
      return null;
    }
    try {
      this.workers = Array.from({ length: this.threads }, () => {
        const w = new Worker(spec.script, { eval: spec.eval });
        w.unref();
        this.loaded.set(w, new Promise<boolean>((resolve) => {
          w.once('message', (m) => resolve(m === READY));
          w.once('error', () => resolve(false));
          w.once('exit', () => resolve(false));
        }));
        // A worker that fails to start never takes a record; one that dies mid-record costs at most the replay's WAIT_MS.
        w.on('error', () => this.drop(w));
        w.on('exit', () => this.drop(w));
        return w;
      });
    } catch {
      this.broken = true;
      return null;
    }
    return this.workers;
  }

  /** A worker of the pool failed or exited on its own: the pool is not used again. */
  private drop(worker: Worker): void {
    const workers = this.workers;
    if (workers === null || !workers.includes(worker)) return;
    this.workers = null;
    this.broken = true;
    debugEvent('replay', 'threads_stopped', { threads: workers.length });
    for (const w of workers) void w.terminate();
  }
}

class SharedVerdicts implements RecordVerdicts {
  private readonly status: Int32Array;
  private readonly repeats: Int32Array;
  private readonly measures: MeasureSlots;
  private readonly control: Int32Array;
  private waited = 0;
  private ahead = 0;
  private rechecked = 0;

  constructor(job: VerifyJob, private readonly report: (ahead: number, rechecked: number) => void) {
    this.status = new Int32Array(job.status);
    this.repeats = new Int32Array(job.repeats);
    this.control = new Int32Array(job.control);
    this.measures = { measures: new Int32Array(job.measures), payloads: new Int32Array(job.payloads), control: this.control };
  }

  verdictOf(n: number): VerifiedRecord | null {
    const { status } = this;
    Atomics.store(this.control, REACHED, n);
    let slot = Atomics.compareExchange(status, n, FREE, CLAIMED);
    if (slot === FREE) return null; // ours now: replay checks it inline
    while (slot === CLAIMED) {
      // A worker has this record: wait for it, within what is left of this replay's waiting budget.
      if (this.waited >= WAIT_MS) return null;
      const since = performance.now();
      Atomics.wait(status, n, CLAIMED, WAIT_MS - this.waited);
      this.waited += performance.now() - since;
      slot = Atomics.load(status, n);
    }
    if ((slot & PASSED) === 0) {
      if (slot === FAILED) this.rechecked++;
      return null;
    }
    this.ahead++;
    return verifiedOf(slot, this.repeats, this.measures, n);
  }

  close(): void {
    Atomics.store(this.control, CLOSED, 1);
    this.report(this.ahead, this.rechecked);
  }
}

function share(bytes: SharedArrayBuffer, length: number, frames: readonly { start: number; end: number }[]): VerifyJob {
  const framesBuffer = new SharedArrayBuffer(frames.length * 8);
  const offsets = new Int32Array(framesBuffer);
  for (let i = 0; i < frames.length; i++) {
    offsets[2 * i] = frames[i]!.start;
    offsets[2 * i + 1] = frames[i]!.end;
  }
  return { bytes, length, frames: framesBuffer, status: new SharedArrayBuffer(frames.length * 4), repeats: new SharedArrayBuffer(frames.length * 8), measures: new SharedArrayBuffer(frames.length * 16), payloads: new SharedArrayBuffer(4 * Math.ceil(length / PAYLOAD_BYTES_PER_ENTRY)), control: new SharedArrayBuffer(CONTROL_SLOTS * 4) };
}

function copyShared(input: Uint8Array, shared: SharedArrayBuffer): SharedArrayBuffer {
  new Uint8Array(shared, 0, input.length).set(input);
  return shared;
}

/**
 * FAIRWAY_REPLAY_THREADS: an integer 0..16, none when unset or empty; any other value is
 * `envThreadsError()` (`fairway verify` refuses it, other commands replay alone). Measured on
 * 2 cores, a worker made steady replay about 25-30% faster (wall) at 16 MiB and 18-30% at
 * 64 MiB, and a fresh process's first replay 12% slower at 16 MiB and no faster at 64 MiB,
 * since it competes with replay's thread and V8's compiler and GC threads (docs/performance.md,
 * "Replay: worker threads", "Replay: fourth round" and "Replay: sixth round"); a default for
 * larger machines waits for a measurement on one.
 */
function defaultThreads(): number {
  return envThreadsError() === null ? Number(process.env.FAIRWAY_REPLAY_THREADS?.trim() || 0) : 0;
}

/** Why FAIRWAY_REPLAY_THREADS is not a thread count, or null when it is one (or unset). */
export function envThreadsError(): string | null {
  const env = process.env.FAIRWAY_REPLAY_THREADS?.trim();
  if (env === undefined || env === '') return null;
  const n = /^\d+$/.test(env) ? Number(env) : Number.NaN;
  return Number.isSafeInteger(n) && n <= MAX_THREADS ? null : `FAIRWAY_REPLAY_THREADS must be an integer 0..${MAX_THREADS}, not ${JSON.stringify(env)}`;
}

/**
 * The worker's script: verify-worker.js beside this module's chunk in the compiled CLI
 * (bin/build.js builds it as an entry), or the TypeScript source through tsx when running
 * from source (tests, bench: tsx is a devDependency). Null where neither exists (e.g. inside a Next.js bundle).
 */
function workerScript(): { script: URL | string; eval: boolean } | null {
  // Inside Next.js (the console) this module is compiled into the server bundle: no workers there.
  if (process.env.NEXT_RUNTIME !== undefined) return null;
  try {
    const here = new URL(import.meta.url);
    if (here.protocol !== 'file:') return null;
    const source = here.pathname.endsWith('.ts');
    const url = new URL(source ? './verify-worker.ts' : './verify-worker.js', here);
    if (!existsSync(fileURLToPath(url))) return null;
    if (!source) return { script: url, eval: false };
    // A worker does not inherit tsx's loader (nor take it by --import on Node 20): it registers it first.
    const tsx = tsxApi(dirname(fileURLToPath(here)));
    return tsx === null ? null : { script: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`, eval: true };
  } catch {
    return null;
  }
}

/**
 * The ESM build of tsx's API (the CommonJS one cannot register from a worker), found by walking
 * up to node_modules on disk rather than by a `require.resolve` a bundler would try to follow.
 */
function tsxApi(from: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'node_modules', 'tsx', 'package.json');
    if (existsSync(pkg)) {
      const exports = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> }).exports;
      const api = exports?.['./esm/api']?.import?.default;
      return api === undefined ? null : pathToFileURL(join(dir, 'node_modules', 'tsx', api)).href;
    }
    if (dirname(dir) === dir) return null;
  }
}

/** The process's one pool, shared by every cold replay of lib/. */
export const threadVerifier = new ThreadVerifier();
