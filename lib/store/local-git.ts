/**
 * The ledger on a branch of a local Git repository (bare or not), through git
 * plumbing. Publication is `update-ref <ref> <new> <expected-old>`: git checks
 * the old value under the ref lock, so it is a true compare-and-swap (spec 7.7).
 * The blob, tree and commit are written as loose objects by this process
 * (loose-objects.ts), so a publication spawns `update-ref` and nothing else.
 * A ref lock that outlives the retries (a git killed mid-update leaves it) is
 * `store_locked`, naming the lock, its age and the command that clears it
 * (`fairway doctor --fix` removes it once no git process can own it).
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError } from '../../engine/errors.ts';
import { DEFAULT_BRANCH, LEDGER_FILE, type CasOutcome, type LedgerSnapshot, type LedgerStore, type RepositoryRevision } from './types.ts';
import { checkBranchName, checkRepoPath, checkVersion } from './checks.ts';
import { git, gitFailure, type GitContext } from './git-cli.ts';
import { gitRevision, hasCommit, objectDatabase, readFileAt, resolveRef, writeLedgerCommit } from './git-objects.ts';
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

  constructor(options: LocalGitStoreOptions) {
    this.branch = options.branch ?? DEFAULT_BRANCH;
    checkBranchName(this.branch);
    this.ctx = { cwd: resolve(options.repo), ...(options.date !== undefined && { date: options.date }) };
    this.ref = `refs/heads/${this.branch}`;
    this.label = `git:${this.ctx.cwd}#${this.branch}`;
  }

  /** The directory git runs in (for `fairway doctor`). */
  get repository(): string {
    return this.ctx.cwd;
  }

  private ready(): Promise<ObjectDatabase | null> {
    return (this.verified ??= objectDatabase(this.ctx));
  }

  /** Spec 7.1: an absent branch is an empty queue; an absent file on a branch is bytes null. */
  async read(): Promise<LedgerSnapshot> {
    await this.ready();
    const tip = await resolveRef(this.ctx, this.ref);
    if (tip === null) return { version: null, bytes: null };
    return { version: tip, bytes: await readFileAt(this.ctx, tip, LEDGER_FILE) };
  }

  async readVersion(): Promise<string | null> {
    await this.ready();
    return resolveRef(this.ctx, this.ref);
  }

  async readAt(version: string): Promise<Uint8Array | null> {
    await this.ready();
    if (!(await hasCommit(this.ctx, version))) return null;
    return readFileAt(this.ctx, version, LEDGER_FILE);
  }

  async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    checkVersion(expected);
    const db = await this.ready();
    let next: string;
    try {
      next = await writeLedgerCommit(this.ctx, expected, bytes, message, db);
    } catch (e) {
      // An unknown parent cannot be the tip: nothing written, report what is.
      if (e instanceof ProtocolError && e.code === 'store_parent_missing') return { status: 'conflict', actual: await resolveRef(this.ctx, this.ref) };
      throw e;
    }
    // An empty old value means "must not exist yet" (works for SHA-1 and SHA-256 repositories).
    const args = ['update-ref', '-m', 'fairway: publish ledger', this.ref, next, expected ?? ''];
    for (let attempt = 0; ; attempt++) {
      const r = await git(this.ctx, args);
      if (r.code === 0) return { status: 'committed', version: next };
      const actual = await resolveRef(this.ctx, this.ref);
      if (actual !== expected) return { status: 'conflict', actual };
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
      throw gitFailure(args, r, 'store_write_failed');
    }
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
