/**
 * The ledger on a branch of a local Git repository (bare or not), through git
 * plumbing. Publication is an `update-ref` transaction `update <ref> <new> <expected-old>`:
 * git checks the old value under the ref lock, so it is a true compare-and-swap (spec 7.7).
 * The blob, tree and commit are written as loose objects by this process
 * (loose-objects.ts, never joining the ledger into one copy), refs and objects are read
 * through a long-lived `git cat-file --batch-command` (git-batch.ts), and the transaction runs
 * in a long-lived `git update-ref --stdin` (ref-transactions.ts): a warm publication spawns no
 * process.
 * A ref lock that outlives the retries (a git killed mid-update leaves it) is
 * `store_locked`, naming the lock, its age and the command that clears it
 * (`fairway doctor --fix` removes it once no git process can own it).
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError } from '../../engine/errors.ts';
import { DEFAULT_BRANCH, LEDGER_FILE, type CasOutcome, type LedgerSnapshot, type LedgerStore, type RepositoryRevision } from './types.ts';
import { checkBranchName, checkRepoPath, checkVersion } from './checks.ts';
import { LEDGER_MAX_BYTES } from './checks.ts';
import { CatFile, HelperGone } from './git-batch.ts';
import { RefTransactions } from './ref-transactions.ts';
import { git, gitFailure, type GitContext } from './git-cli.ts';
import { gitRevision, hasCommit, objectDatabase, presentRef, readFileAt, refuseDeletedLedger, refuseLink, refuseSymbolicRef, resolveRef, writeLedgerCommit } from './git-objects.ts';
import type { ObjectDatabase } from './loose-objects.ts';
import { gitDirs, gitProcessesTouching, refLocks, storeLocked, type GitDirs } from './git-locks.ts';

export interface LocalGitStoreOptions {
  /** The repository: a work tree (or any directory inside one) or a bare repository. */
  repo: string;
  /** Queue branch (default `work-queue`). */
  branch?: string;
  /** Fixed author/committer date for reproducible commits; unset: the current time. */
  date?: string;
}

/** Another writer holds the ref lock: retry briefly, then decide from the ref itself. */
const LOCK_RETRIES = 50;
/** A lock this old is no live update-ref's (they hold it for milliseconds): report it at once. */
const LOCK_STALE_MS = 10_000;
/** Older than this with no running git on the repository: nobody will release it. */
const LOCK_ORPHAN_MS = 1_000;

export class LocalGitStore implements LedgerStore {
  readonly label: string;
  readonly branch: string;
  private readonly ctx: GitContext;
  /** The queue branch's full ref name. */
  readonly ref: string;
  /** Verified once: the repository exists; where its objects are written (null: plumbing only). */
  private verified: Promise<ObjectDatabase | null> | undefined;
  private dirs: Promise<GitDirs> | undefined;
  private readonly cat: CatFile;
  private readonly transactions: RefTransactions;

  constructor(options: LocalGitStoreOptions) {
    this.branch = options.branch ?? DEFAULT_BRANCH;
    checkBranchName(this.branch);
    this.ctx = { cwd: resolve(options.repo), ...(options.date !== undefined && { date: options.date }) };
    this.ref = `refs/heads/${this.branch}`;
    this.label = `git:${this.ctx.cwd}#${this.branch}`;
    this.cat = new CatFile(this.ctx);
    this.transactions = new RefTransactions(this.ctx, 'fairway: publish ledger');
  }

  /** The directory git runs in (for `fairway doctor`). */
  get repository(): string {
    return this.ctx.cwd;
  }

  /** The long-lived reader's pid, when one runs (tests). */
  get readerPid(): number | undefined {
    return this.cat.pid;
  }

  /** The long-lived ref-transaction git's pid, when one runs (tests). */
  get transactionsPid(): number | undefined {
    return this.transactions.pid;
  }

  /** Ends the long-lived git helpers now instead of when idle. */
  close(): void {
    this.cat.close();
    this.transactions.close();
  }

  private ready(): Promise<ObjectDatabase | null> {
    return (this.verified ??= objectDatabase(this.ctx));
  }

  /** Spec 7.1: an absent branch is an empty queue; an absent file on a branch is bytes null. */
  async read(): Promise<LedgerSnapshot> {
    await this.ready();
    const tip = await this.tip();
    if (tip === null) return { version: null, bytes: null };
    const bytes = await this.ledgerAt(tip);
    if (bytes === null) {
      // Before a first publication on this branch: it must be a branch of its own, whose history never held the ledger.
      await refuseSymbolicRef(this.ctx, this.ref);
      await refuseDeletedLedger(this.ctx, tip);
    }
    return { version: tip, bytes };
  }

  async readVersion(): Promise<string | null> {
    await this.ready();
    return this.tip();
  }

  async readAt(version: string): Promise<Uint8Array | null> {
    await this.ready();
    if (!(await hasCommit(this.ctx, version))) return null;
    return this.ledgerAt(version);
  }

  /** The branch tip (git's own ref lookup, through the long-lived cat-file). */
  private async tip(): Promise<string | null> {
    return presentRef(this.ctx, this.ref, () => this.cat.info(this.ref));
  }

  /** The ledger blob at `commit`, read into one buffer; a link is refused; what is not a plain blob takes the plumbing path (which names it). */
  private async ledgerAt(commit: string): Promise<Uint8Array | null> {
    try {
      const blob = await this.cat.contents(`${commit}:${LEDGER_FILE}`, LEDGER_MAX_BYTES);
      if (blob !== null && blob.type === 'blob') {
        if (blob.bytes === null) throw new ProtocolError('resource_limit', `the ledger at ${commit} is ${blob.size} bytes, more than the ledger parser limit ${LEDGER_MAX_BYTES}`, {}, { limit: 'ledger_bytes', max: LEDGER_MAX_BYTES });
        await refuseLink(this.ctx, commit, LEDGER_FILE, blob.bytes);
        return blob.bytes;
      }
    } catch (e) {
      if (!(e instanceof HelperGone)) throw e;
    }
    return readFileAt(this.ctx, commit, LEDGER_FILE);
  }

  compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    return this.compareAndSwapParts(expected, [bytes], message);
  }

  async compareAndSwapParts(expected: string | null, parts: readonly Uint8Array[], message: string): Promise<CasOutcome> {
    checkVersion(expected);
    const db = await this.ready();
    let next: string | null = null; // once written, a lock retry only repeats the update
    for (let attempt = 0; ; attempt++) {
      // The object writes start first (the blob deflates on the thread pool); the ref update's
      // git, when none runs, is started meanwhile, so its start-up overlaps them.
      const writing: Promise<string> = next === null ? writeLedgerCommit(this.ctx, expected, parts, message, db, this.cat) : Promise.resolve(next);
      this.transactions.warm();
      let written: string;
      try {
        written = next = await writing;
      } catch (e) {
        // An unknown parent cannot be the tip: nothing written, report what is.
        if (e instanceof ProtocolError && e.code === 'store_parent_missing') return { status: 'conflict', actual: await this.tip() };
        throw e;
      }
      const r = await this.transactions.update(this.ref, written, expected);
      if (r.ok) return { status: 'committed', version: written };
      // Refused or ended: the ref itself says what happened.
      const actual = await this.tip();
      if (actual === written) return { status: 'committed', version: written };
      if (actual !== expected) return { status: 'conflict', actual };
      if (/unknown command|usage: git update-ref/i.test(r.stderr)) return this.updateRefOnce(written, expected);
      if (/\.lock'?: File exists|cannot lock ref/i.test(r.stderr)) {
        const dirs = await (this.dirs ??= gitDirs(this.ctx));
        const lock = refLocks(dirs, this.ref)[0];
        const orphaned = () => lock!.ageMs >= LOCK_ORPHAN_MS && gitProcessesTouching([dirs.cwd, dirs.gitDir, dirs.commonDir])?.length === 0;
        if (lock !== undefined && (attempt >= LOCK_RETRIES || lock.ageMs >= LOCK_STALE_MS || orphaned())) throw storeLocked(lock, dirs, this.ref);
        if (attempt < LOCK_RETRIES) {
          await sleep(2 + Math.random() * 20);
          continue;
        }
      }
      throw gitFailure(['update-ref'], { code: 128, stdout: Buffer.alloc(0), stderr: r.stderr }, 'store_write_failed');
    }
  }

  /** A git without `update-ref --stdin` transactions (before 2.27): one `update-ref` process. */
  private async updateRefOnce(next: string, expected: string | null): Promise<CasOutcome> {
    // An empty old value means "must not exist yet" (works for SHA-1 and SHA-256 repositories).
    const args = ['update-ref', '--no-deref', '-m', 'fairway: publish ledger', this.ref, next, expected ?? ''];
    const r = await git(this.ctx, args);
    if (r.code === 0) return { status: 'committed', version: next };
    const actual = await resolveRef(this.ctx, this.ref);
    if (actual === next) return { status: 'committed', version: next };
    if (actual !== expected) return { status: 'conflict', actual };
    throw gitFailure(args, r, 'store_write_failed');
  }

  /**
   * The file at the tip of the branch HEAD names. The default branch must differ
   * from the queue branch (spec 7.1), so a HEAD on the queue branch gives null;
   * so do a detached or unborn HEAD.
   */
  async readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    const file = checkRepoPath(path);
    const revision = await this.defaultRevision();
    return revision === null ? null : revision.readFile(file);
  }

  /** The branch HEAD names at its tip (null: detached or unborn HEAD, or HEAD on the queue branch). */
  async defaultRevision(): Promise<RepositoryRevision | null> {
    await this.ready();
    const head = await git(this.ctx, ['symbolic-ref', '-q', 'HEAD']);
    if (head.code !== 0) return null;
    const target = head.stdout.toString('utf8').trim();
    if (target === this.ref) return null;
    const tip = await resolveRef(this.ctx, target);
    return tip === null ? null : gitRevision(this.ctx, tip, target);
  }
}
