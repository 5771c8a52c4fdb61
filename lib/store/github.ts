/**
 * The ledger on a branch of a GitHub repository, through the REST Git data API
 * (for hosts without GraphQL; api.github.com uses `GitHubGraphqlStore`).
 * Reads: ref → commit → tree → blob. Writes: blob, tree (on the parent's tree,
 * so other files stay), commit with parent `expected`, then a ref update with
 * `force: false` (absent branch: create the ref). GitHub refuses a
 * non-fast-forward, so a moved branch is a conflict (spec 7.7). The ref update
 * is never retried blindly: a transport failure, a timeout or a 5xx after
 * sending it is `uncertain`.
 *
 * Known gap: `PATCH … force: false` is a fast-forward check, not a strict
 * compare-and-swap. If the branch was rewound to an ancestor of `expected`
 * (a force-push elsewhere) between our read and the update, the new commit
 * still fast-forwards from that ancestor and the update succeeds although the
 * branch was not at `expected`. Nothing is lost (the new commit contains
 * `expected`'s history), but the guard is weaker than on the GraphQL path,
 * whose `createCommitOnBranch(expectedHeadOid)` refuses any head but
 * `expected` (strict CAS).
 */
import { ProtocolError } from '../../engine/errors.ts';
import { ledgerBuffer, MIN_BYTES } from '../replay/thread-verifier.ts';
import { LEDGER_FILE, type CasOutcome, type LedgerSnapshot, type LedgerStore, type RepositoryRevision } from './types.ts';
import { checkRepoPath, checkVersion, LEDGER_MAX_BYTES, ledgerMissing, SYMLINK_MODE } from './checks.ts';
import { createOctokit, githubFailure, githubMessage, isRequestError, neverSent, storeTimeouts, type FairwayOctokit, type GitHubClientOptions, type RequestTimeouts } from './github-client.ts';
import { gitHubTarget } from './github-target.ts';
import { DEFAULT_LAG_POLICY, ReadYourWrites, type LagPolicy } from './read-your-writes.ts';

export interface GitHubStoreOptions extends Omit<GitHubClientOptions, 'timeouts'> {
  owner: string;
  repo: string;
  branch?: string;
  /** Request timeouts (default: `storeTimeouts()`, from the environment or the built-in defaults). */
  timeouts?: Partial<RequestTimeouts>;
  /** How long to wait out a replica that does not yet show this store's own write. */
  lag?: Partial<LagPolicy>;
}

/** Ref-update rejections that mean the branch is not where the caller expected. */
const MOVED = /not a fast forward|reference already exists|reference does not exist/i;

export class GitHubStore implements LedgerStore {
  readonly label: string;
  readonly branch: string;
  protected readonly octokit: FairwayOctokit;
  protected readonly where: { owner: string; repo: string };
  /** commit → tree, for the commits this store read or wrote (saves a request per CAS). */
  private readonly trees = new Map<string, string>();
  protected readonly lag: ReadYourWrites;

  constructor(options: GitHubStoreOptions) {
    const target = gitHubTarget(options);
    this.branch = target.branch;
    this.where = { owner: target.owner, repo: target.repo };
    this.label = target.label;
    this.octokit = createOctokit({ ...options, timeouts: storeTimeouts(options.timeouts) });
    this.lag = new ReadYourWrites(this.label, { ...DEFAULT_LAG_POLICY, ...options.lag });
  }

  read(): Promise<LedgerSnapshot> {
    return this.lag.read(() => this.readOnce(), (s) => s.version);
  }

  private async readOnce(): Promise<LedgerSnapshot> {
    const tip = await this.tip();
    if (tip === null) return { version: null, bytes: null }; // spec 7.1: absent branch, empty queue
    const tree = await this.treeOf(tip);
    const entry = await this.rootEntry(tree, LEDGER_FILE);
    if (entry === null) {
      await this.refuseDeletedLedger(tip);
      return { version: tip, bytes: null };
    }
    if (entry.type !== 'blob') throw new ProtocolError('store_path_not_a_file', `${LEDGER_FILE} at ${tip} is a ${entry.type}, not a file`, { commit: tip });
    if (entry.mode === SYMLINK_MODE) throw new ProtocolError('store_path_not_a_file', `${LEDGER_FILE} at ${tip} is a symbolic link, not a file: the branch must hold the file itself`, { commit: tip });
    return { version: tip, bytes: await this.blob(entry.sha) };
  }

  async readVersion(): Promise<string | null> {
    return this.lag.read(() => this.tip(), (v) => v);
  }

  async readAt(version: string): Promise<Uint8Array | null> {
    let tree: string;
    try {
      tree = await this.treeOf(version);
    } catch (e) {
      if (e instanceof ProtocolError && (e.code === 'github_not_found' || (e.code === 'github_request_failed' && e.details?.status === 422))) return null;
      throw e;
    }
    const entry = await this.rootEntry(tree, LEDGER_FILE);
    if (entry === null || entry.type !== 'blob') return null;
    if (entry.mode === SYMLINK_MODE) throw new ProtocolError('store_path_not_a_file', `${LEDGER_FILE} at ${version} is a symbolic link, not a file`, { commit: version });
    return this.blob(entry.sha);
  }

  async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    checkVersion(expected);
    let baseTree: string | undefined;
    if (expected !== null) {
      try {
        baseTree = await this.treeOf(expected);
      } catch (e) {
        // An unknown parent cannot be the tip: nothing written, report what is.
        const unknown = e instanceof ProtocolError && (e.code === 'github_not_found' || (e.code === 'github_request_failed' && e.details?.status === 422));
        if (unknown) return { status: 'conflict', actual: await this.tip() };
        throw e;
      }
    }
    const next = await this.writeCommit(baseTree, expected, bytes, message);
    const ref = `heads/${this.branch}`;
    try {
      // retries: 0 — a ref update is not idempotent under concurrency; decide from the answer.
      if (expected === null) {
        await this.octokit.rest.git.createRef({ ...this.where, ref: `refs/${ref}`, sha: next, request: { retries: 0 } });
      } else {
        // Not a strict CAS: see the module comment (a rewound branch fast-forwards).
        await this.octokit.rest.git.updateRef({ ...this.where, ref, sha: next, force: false, request: { retries: 0 } });
      }
      this.lag.committed(next, expected);
      return { status: 'committed', version: next };
    } catch (e) {
      if (!isRequestError(e)) throw e;
      if (e.response === undefined) {
        if (neverSent(e)) throw githubFailure('update the branch', e, this.label, true);
        return { status: 'uncertain', reason: `ref update: connection failed after sending (${e.message})` };
      }
      if (e.status >= 500) return { status: 'uncertain', reason: `ref update: GitHub answered ${e.status}` };
      if (e.status === 422 || e.status === 409) {
        const actual = await this.tip();
        if (actual === next) {
          this.lag.committed(next, expected);
          return { status: 'committed', version: next };
        }
        if (actual !== expected || MOVED.test(githubMessage(e))) return { status: 'conflict', actual };
      }
      throw githubFailure('update the branch', e, this.label, true);
    }
  }

  /** The file at the default branch's tip; null when absent or when the default branch is the queue branch (spec 7.1). */
  async readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    const file = checkRepoPath(path);
    const defaultBranch = (await this.repository()).default_branch;
    if (defaultBranch === this.branch) return null;
    let data: unknown;
    try {
      data = (await this.octokit.rest.repos.getContent({ ...this.where, path: file, ref: defaultBranch })).data;
    } catch (e) {
      if (isRequestError(e) && e.status === 404) return null;
      throw githubFailure(`read ${file}`, e, this.label);
    }
    const item = data as { type?: string; encoding?: string; content?: string; sha?: string; size?: number };
    if (Array.isArray(data) || item.type !== 'file') throw new ProtocolError('store_path_not_a_file', `${file} on ${defaultBranch} is not a file`);
    if (item.encoding === 'base64' && typeof item.content === 'string') return exactBytes(decodedBytes(item.content, 'base64'), item.size, file);
    if (typeof item.sha === 'string') return this.blob(item.sha); // over 1 MiB: content is empty, encoding "none"
    throw new ProtocolError('github_response_invalid', `unexpected contents response for ${file}`);
  }

  /**
   * The default branch at its tip commit through the commits API (`GET /repos/{o}/{r}/commits/{branch}`),
   * then every file and directory read through the contents API at that exact SHA. Null when the
   * default branch is the queue branch or the repository has no commit yet; permission, rate-limit
   * and transport errors throw (githubFailure), never "absent".
   */
  async defaultRevision(): Promise<RepositoryRevision | null> {
    const branch = (await this.repository()).default_branch;
    if (branch === this.branch) return null;
    let sha: string;
    try {
      sha = (await this.octokit.rest.repos.getCommit({ ...this.where, ref: branch, per_page: 1 })).data.sha;
    } catch (e) {
      // No commit on the default branch (an empty repository answers 409; an unborn branch 404/422).
      if (isRequestError(e) && (e.status === 404 || e.status === 409 || e.status === 422)) return null;
      throw githubFailure(`read the ${branch} commit`, e, this.label);
    }
    return this.revisionAt(branch, sha);
  }

  /** Reads of the repository pinned to the commit `sha` (contents API with `ref` = the SHA). */
  private revisionAt(branch: string, sha: string): RepositoryRevision {
    const contents = async (path: string): Promise<unknown> => {
      try {
        return (await this.octokit.rest.repos.getContent({ ...this.where, path, ref: sha })).data;
      } catch (e) {
        if (isRequestError(e) && e.status === 404) return null;
        throw githubFailure(`read ${path} at ${sha}`, e, this.label);
      }
    };
    return {
      ref: sha,
      branch,
      readFile: async (path) => {
        const file = checkRepoPath(path);
        const data = await contents(file);
        if (data === null) return null;
        const item = data as { type?: string; encoding?: string; content?: string; sha?: string; size?: number };
        if (Array.isArray(data) || item.type !== 'file') throw new ProtocolError('store_path_not_a_file', `${file} at ${sha} is not a file`, { commit: sha });
        if (item.encoding === 'base64' && typeof item.content === 'string') return exactBytes(decodedBytes(item.content, 'base64'), item.size, file);
        if (typeof item.sha === 'string') return this.blob(item.sha);
        throw new ProtocolError('github_response_invalid', `unexpected contents response for ${file}`);
      },
      listFiles: async (dir) => {
        const data = await contents(checkRepoPath(dir));
        if (!Array.isArray(data)) return [];
        return (data as { type?: string; name?: string }[]).filter((e) => e.type === 'file' && typeof e.name === 'string').map((e) => e.name!);
      },
      at: (other) => this.revisionAt(branch, other),
    };
  }

  /**
   * A tip without the ledger whose history had one is `ledger_missing` (checks.ts), never an
   * empty queue: one more request (the commits that changed the file, newest first), made only
   * when the file is absent from an existing branch. GitHub walks history with git's default
   * simplification, so a merge that dropped the file while keeping the tree of a parent that
   * never had it (`-s ours` over an unrelated history) is not found here; the Git stores find
   * it (`--full-history`).
   */
  protected async refuseDeletedLedger(tip: string): Promise<void> {
    const { data } = await this.call(`read the history of ${LEDGER_FILE}`, () => this.octokit.rest.repos.listCommits({ ...this.where, sha: tip, path: LEDGER_FILE, per_page: 1 }));
    const last = data[0]?.sha;
    if (last !== undefined) throw ledgerMissing(tip, last);
  }

  private async tip(): Promise<string | null> {
    try {
      const { data } = await this.octokit.rest.git.getRef({ ...this.where, ref: `heads/${this.branch}` });
      if (data.object.type !== 'commit') throw new ProtocolError('github_response_invalid', `refs/heads/${this.branch} points at a ${data.object.type}`);
      return data.object.sha;
    } catch (e) {
      if (isRequestError(e) && e.status === 404) {
        await this.repository(); // a 404 is also what a missing or inaccessible repository gives
        return null;
      }
      // 409 "Git Repository is empty": not proof of absence (spec 7.1), so it stays an error.
      throw e instanceof ProtocolError ? e : githubFailure('read the queue branch', e, this.label);
    }
  }

  private async repository(): Promise<{ default_branch: string }> {
    return (await this.call('read the repository', () => this.octokit.rest.repos.get(this.where))).data;
  }

  private async treeOf(commit: string): Promise<string> {
    let tree = this.trees.get(commit);
    if (tree === undefined) {
      tree = (await this.call(`read commit ${commit}`, () => this.octokit.rest.git.getCommit({ ...this.where, commit_sha: commit }))).data.tree.sha;
      this.remember(commit, tree);
    }
    return tree;
  }

  private async rootEntry(tree: string, name: string): Promise<{ type: string; sha: string; mode: string | undefined } | null> {
    const { data } = await this.call(`read tree ${tree}`, () => this.octokit.rest.git.getTree({ ...this.where, tree_sha: tree }));
    const entry = data.tree.find((e) => e.path === name);
    if (entry === undefined && data.truncated) throw new ProtocolError('github_response_invalid', `tree ${tree} listing was truncated`);
    return entry?.type !== undefined && entry.sha !== undefined ? { type: entry.type, sha: entry.sha, mode: entry.mode } : null;
  }

  protected async blob(sha: string): Promise<Uint8Array> {
    const { data } = await this.call(`read blob ${sha}`, () => this.octokit.rest.git.getBlob({ ...this.where, file_sha: sha }));
    // Octokit answers a JSON body it could not read whole (cut off in transfer) as a string.
    if (typeof (data as unknown) !== 'object' || typeof (data as { content?: unknown }).content !== 'string') {
      throw new ProtocolError('github_response_invalid', `GitHub's answer to read blob ${sha} (${this.label}) is not a blob: cut off in transfer, or not JSON`);
    }
    if (data.size !== null && data.size > LEDGER_MAX_BYTES) throw new ProtocolError('resource_limit', `blob ${sha} is ${data.size} bytes; the parser limit is ${LEDGER_MAX_BYTES}`, {}, { limit: 'ledger_bytes', max: LEDGER_MAX_BYTES });
    const bytes = decodedBytes(data.content, data.encoding === 'base64' ? 'base64' : 'utf8');
    return exactBytes(bytes, data.size, sha);
  }

  private async writeCommit(baseTree: string | undefined, parent: string | null, bytes: Uint8Array, message: string): Promise<string> {
    const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    const blob = await this.call('create the ledger blob', () => this.octokit.rest.git.createBlob({ ...this.where, content, encoding: 'base64' }), true);
    const entry = { path: LEDGER_FILE, mode: '100644' as const, type: 'blob' as const, sha: blob.data.sha };
    const tree = await this.call('create the ledger tree', () =>
      this.octokit.rest.git.createTree({ ...this.where, tree: [entry], ...(baseTree !== undefined && { base_tree: baseTree }) }), true);
    const commit = await this.call('create the ledger commit', () =>
      this.octokit.rest.git.createCommit({ ...this.where, message, tree: tree.data.sha, parents: parent === null ? [] : [parent] }), true);
    this.remember(commit.data.sha, tree.data.sha);
    return commit.data.sha;
  }

  private async call<T>(action: string, request: () => Promise<T>, write = false): Promise<T> {
    try {
      return await request();
    } catch (e) {
      throw githubFailure(action, e, this.label, write);
    }
  }

  private remember(commit: string, tree: string): void {
    if (this.trees.size >= 64) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(commit, tree);
  }
}

/**
 * `content` decoded, a ledger-sized blob into thread-verifier.ts `ledgerBuffer` (memory replay's
 * worker threads share, so a threaded replay copies nothing). UTF-8 text is written straight
 * into it; base64 is decoded first, since GitHub wraps it every 60 characters and its length
 * only bounds the size (next to the transfer of that much base64, the copy is small).
 */
export function decodedBytes(content: string, encoding: 'base64' | 'utf8'): Buffer {
  if (encoding === 'utf8') {
    const bytes = ledgerBuffer(Buffer.byteLength(content, 'utf8'));
    bytes.write(content, 'utf8');
    return bytes;
  }
  const decoded = Buffer.from(content, 'base64');
  if (decoded.length < MIN_BYTES) return decoded;
  const bytes = ledgerBuffer(decoded.length);
  decoded.copy(bytes);
  return bytes;
}

/** Decoded content must have the size GitHub reports (a truncated transfer is not a ledger). */
function exactBytes(bytes: Buffer, size: number | null | undefined, what: string): Uint8Array {
  if (typeof size === 'number' && bytes.length !== size) {
    throw new ProtocolError('github_response_invalid', `${what}: decoded ${bytes.length} bytes, GitHub reported ${size}`);
  }
  return bytes;
}
