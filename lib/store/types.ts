/**
 * The ledger store (design/ARCHITECTURE.md "lib/: the edges"): the only way
 * Fairway reads or writes `work-queue.jsonl`. The branch is the authority;
 * publication is compare-and-swap on its tip.
 */

/** The ledger file name on the queue branch. */
export const LEDGER_FILE = 'work-queue.jsonl';
export const DEFAULT_BRANCH = 'work-queue';

export interface LedgerSnapshot {
  /** Opaque version of the branch tip (a Git commit SHA); null when the branch is absent. */
  version: string | null;
  /** Ledger bytes at that version; null when the branch or the file is absent. */
  bytes: Uint8Array | null;
}

export type CasOutcome =
  /** The branch now points at `version`, whose ledger is exactly the bytes written. */
  | { status: 'committed'; version: string }
  /** The branch moved (or appeared/disappeared) since `expected`: nothing was written. */
  | { status: 'conflict'; actual?: string | null }
  /** The write may or may not have happened (transport failure after sending). */
  | { status: 'uncertain'; reason: string };

/**
 * The repository's default branch at one immutable commit (spec 7.1: the native publisher
 * resolves scheduling and worker routes "at the verified repository revision"). Every read
 * is pinned to `ref`, so a push to the default branch during one derivation changes nothing.
 * I/O failures (permission, rate limit, transport) throw; only absence answers null/[].
 */
export interface RepositoryRevision {
  /** Commit SHA of the default branch tip. */
  ref: string;
  /** The default branch's name. */
  branch: string;
  /** The file at `ref`; null when absent or not a file. */
  readFile(path: string): Promise<Uint8Array | null>;
  /** Names (not paths) of the files directly under `dir` at `ref`; [] when the directory is absent. */
  listFiles(dir: string): Promise<string[]>;
  /**
   * The same repository at another immutable commit (e.g. the revision a Policy installed, to
   * compare a new revision's interface with); its reads fail or answer absent if that commit
   * is unknown. `branch` stays the default branch's name.
   */
  at(commit: string): RepositoryRevision;
}

export interface LedgerStore {
  /** Human label for messages, e.g. `git:/path/repo#work-queue`. */
  readonly label: string;
  /** True when the store cannot publish (an offline ledger file): every compare-and-swap is refused. */
  readonly readOnly?: boolean;
  read(): Promise<LedgerSnapshot>;
  /**
   * Optional cheap read of just the branch version (null when absent), so a
   * warm publisher can skip re-reading unchanged bytes.
   */
  readVersion?(): Promise<string | null>;
  /**
   * Optional read of the ledger at an earlier version of the branch (a Git commit), e.g. the
   * `prior_git_sha` of a checkpoint (spec 7.17: "Earlier history remains accessible through the
   * referenced Git commit, subject to repository retention"). Null when that commit or its
   * ledger is not available.
   */
  readAt?(version: string): Promise<Uint8Array | null>;
  /**
   * Writes `bytes` as the ledger in a new commit whose parent is `expected`
   * (null: create the branch) and moves the branch only if it still points at
   * `expected`. Other files on the branch are preserved. Never forces.
   */
  compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome>;
  /**
   * Optional: `compareAndSwap` of the ledger given as the pieces it is held in (the validated
   * ledger, then the new line), for stores that can write them without joining them into one
   * copy of the whole ledger first. Same contract as `compareAndSwap`. The publisher calls it
   * instead of `compareAndSwap` when it is there, so a wrapper that intercepts one must
   * intercept (or hide) the other.
   */
  compareAndSwapParts?(expected: string | null, parts: readonly Uint8Array[], message: string): Promise<CasOutcome>;
  /**
   * Reads a file at the HEAD of the repository's default branch (for
   * `.github/workflows/aw.json`); null when absent.
   */
  readDefaultBranchFile(path: string): Promise<Uint8Array | null>;
  /**
   * The store's own repository's default branch at its tip commit, read from where the
   * store reads its ledger (the local repository, the remote, or the GitHub API), never
   * from an unrelated clone. Null when there is no default branch distinct from the queue
   * branch. Stores that cannot read a repository (offline ledger files) omit it.
   */
  defaultRevision?(): Promise<RepositoryRevision | null>;
}
