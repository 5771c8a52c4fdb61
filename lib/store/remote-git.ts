/**
 * The ledger on a branch of a Git remote (`--repo CLONE --remote NAME`). The
 * remote branch is the authority; the clone only holds objects. Reads fetch;
 * writes build the commit locally on the fetched tip and push it without force,
 * leased on the expected tip, so the remote's ref update is the
 * compare-and-swap (spec 7.7). Rejections because the branch moved are
 * conflicts; a transport failure after sending is `uncertain`.
 *
 * Per attempt only the network operations spawn git (a fetch, a push): the clone's refs and
 * objects are read through a long-lived `git cat-file --batch-command` (git-batch.ts), the
 * commit's objects are written by this process (loose-objects.ts), and a fetch lands in a ref
 * that stays (`refs/fairway/tips/...`), so the next one brings only what is new. A push the remote refuses
 * because the branch moved is a conflict at once (no `ls-remote` to name the new tip: the
 * publisher's next read fetches it anyway).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError } from '../../engine/errors.ts';
import { DEFAULT_BRANCH, LEDGER_FILE, type CasOutcome, type LedgerSnapshot, type LedgerStore, type RepositoryRevision } from './types.ts';
import { checkBranchName, checkRepoPath, checkVersion } from './checks.ts';
import { LEDGER_MAX_BYTES } from './checks.ts';
import { CatFile, HelperGone } from './git-batch.ts';
import { RefTransaction } from './ref-transactions.ts';
import { git, lastLine, type GitContext, type GitResult } from './git-cli.ts';
import { gitRevision, hasCommit, objectDatabase, presentRef, readFileAt, refuseDeletedLedger, refuseLink, resolveRef, symbolicRef, writeLedgerCommit } from './git-objects.ts';
import { deleteRefs, isStaleScratch, listScratchRefs, SCRATCH_MAX_AGE_MS, scratchRefName } from './git-locks.ts';
import type { ObjectDatabase } from './loose-objects.ts';

export interface RemoteGitStoreOptions {
  /** The local clone (work tree or bare) that holds objects. */
  repo: string;
  /** The remote whose branch is the authority. */
  remote: string;
  branch?: string;
  /** Fixed author/committer date for reproducible commits; unset: the current time. */
  date?: string;
}

/** Failures before anything was sent: nothing can have been written. */
const NOT_SENT = /unable to connect|connection refused|could not resolve host|name or service not known|no route to host|network is unreachable|timed out|does not appear to be a git repository|repository not found|not exported|access denied|authentication failed|permission denied|could not read username|no such file or directory|not a git repository/i;
/** Push rejections that mean "the branch is not where you expected". */
const MOVED = /stale info|fetch first|non-fast-forward|already exists/;
const LOCK_RETRIES = 5;
/** Where the last fetched tip of each remote branch is kept (the next fetch negotiates from it). */
export const TIPS_PREFIX = 'refs/fairway/tips/';

/** The clone's last-fetched tip of `branch` of `remote` (a lock left on it makes every later fetch land in a scratch ref). */
export function tipsRefOf(remote: string, branch: string): string {
  return `${TIPS_PREFIX}${remote}/${branch}`;
}
/** A fetch refused by the clone's own connectivity check: one of its refs names a missing object. */
const CLONE_REF_BROKEN = /did not send all necessary objects|bad object|missing (?:blob|tree|commit) object/i;
const FETCH = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-auto-maintenance', '--no-recurse-submodules'];

let fetchCounter = 0;

export class RemoteGitStore implements LedgerStore {
  readonly label: string;
  readonly branch: string;
  readonly remote: string;
  private readonly ctx: GitContext;
  /** The queue branch's full ref name. */
  readonly ref: string;
  private urls: Promise<{ fetch: string; push: string }> | undefined;
  private db: Promise<ObjectDatabase | null> | undefined;
  private readonly cat: CatFile;

  constructor(options: RemoteGitStoreOptions) {
    this.branch = options.branch ?? DEFAULT_BRANCH;
    checkBranchName(this.branch);
    if (options.remote === '' || options.remote.startsWith('-') || /[\s\0]/.test(options.remote)) {
      throw new ProtocolError('store_options_invalid', `invalid remote name ${JSON.stringify(options.remote)}`, {}, { usage: true });
    }
    this.remote = options.remote;
    this.ctx = { cwd: resolve(options.repo), ...(options.date !== undefined && { date: options.date }) };
    this.ref = `refs/heads/${this.branch}`;
    this.label = `git:${this.ctx.cwd}@${this.remote}#${this.branch}`;
    this.cat = new CatFile(this.ctx);
  }

  /** Ends the long-lived reader now instead of when idle. */
  close(): void {
    this.cat.close();
  }

  /** The local clone git runs in (for `fairway doctor`). */
  get repository(): string {
    return this.ctx.cwd;
  }

  /**
   * The remote's URLs (insteadOf applied). Talking to URLs rather than the remote
   * name keeps git from updating the clone's own remote-tracking refs, which
   * concurrent publishers sharing one clone would contend on.
   */
  private endpoints(): Promise<{ fetch: string; push: string }> {
    return (this.urls ??= (async () => {
      await this.objects();
      const fetchUrl = await git(this.ctx, ['remote', 'get-url', this.remote]);
      if (fetchUrl.code !== 0) {
        throw new ProtocolError('store_remote_unknown', `${this.ctx.cwd} has no remote named ${this.remote}`, {}, { usage: true });
      }
      const pushUrl = await git(this.ctx, ['remote', 'get-url', '--push', this.remote]);
      await removeStaleScratchRefs(this.ctx);
      const url = fetchUrl.stdout.toString('utf8').trim();
      return { fetch: url, push: (pushUrl.code === 0 && pushUrl.stdout.toString('utf8').trim()) || url };
    })());
  }

  /** Checks once that the clone is a repository; where its objects are written (null: plumbing only). */
  private objects(): Promise<ObjectDatabase | null> {
    return (this.db ??= objectDatabase(this.ctx));
  }

  async read(): Promise<LedgerSnapshot> {
    const tip = await this.fetchBranch(this.ref);
    if (tip === null) return { version: null, bytes: null }; // spec 7.1: absent branch, empty queue
    const bytes = await this.ledgerAt(tip);
    if (bytes === null) {
      // Before a first publication on this branch: it must be a branch of its own, whose history never held the ledger.
      await this.refuseRemoteSymbolicRef();
      await refuseDeletedLedger(this.ctx, tip);
    }
    return { version: tip, bytes };
  }

  /** An earlier branch commit: its objects arrived with the branch history the last fetch brought. */
  async readAt(version: string): Promise<Uint8Array | null> {
    if (!(await this.has(version))) {
      await this.fetchBranch(this.ref);
      if (!(await this.has(version))) return null;
    }
    return this.ledgerAt(version);
  }

  /** Whether the clone holds commit `sha` (through the reader; plumbing if it is unavailable). */
  private async has(sha: string): Promise<boolean> {
    if (!/^[0-9a-f]{40,64}$/.test(sha)) return false;
    try {
      return (await this.cat.info(`${sha}^{commit}`)) !== null;
    } catch (e) {
      if (!(e instanceof HelperGone)) throw e;
      return hasCommit(this.ctx, sha);
    }
  }

  /** The ledger blob at `commit`; a link is refused; what is not a plain blob takes the plumbing path (which names it). */
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
    const { push } = await this.endpoints();
    if (expected !== null && !(await this.has(expected))) {
      const tip = await this.fetchBranch(this.ref); // another clone read it: get its objects
      if (tip !== expected) return { status: 'conflict', actual: tip };
    }
    const next = await writeLedgerCommit(this.ctx, expected, parts, message, await this.objects(), this.cat);
    // The lease makes the remote update conditional on `expected` (empty: the
    // branch must not exist); `next` extends `expected`, so nothing is forced.
    const args = ['push', '--porcelain', '--no-verify', '--no-signed', `--force-with-lease=${this.ref}:${expected ?? ''}`, push, `${next}:${this.ref}`];
    for (let attempt = 0; ; attempt++) {
      const r = await git(this.ctx, args);
      const status = pushStatus(r.stdout.toString('utf8'), this.ref);
      if (status === null) {
        if (r.code !== 0 && NOT_SENT.test(r.stderr)) throw this.unreachable('push', r);
        return { status: 'uncertain', reason: `push to ${this.remote} ended without a status: ${lastLine(r.stderr) || `exit ${r.code}`}` };
      }
      if (status.flag !== '!') return { status: 'committed', version: next };
      if (/remote failure/.test(status.summary)) return { status: 'uncertain', reason: `push: ${status.summary}` };
      // The lease or a fast-forward check refused it: the branch is not at `expected`. Where it
      // is now is the next read's business (the publisher reads before it retries).
      if (MOVED.test(status.summary)) return { status: 'conflict' };
      const actual = await this.lsRemote(this.ref);
      if (actual === next) return { status: 'committed', version: next };
      if (actual !== expected) return { status: 'conflict', actual };
      // Another push held the remote ref lock and has not landed yet: try again, briefly.
      if (/lock|failed to update ref/.test(status.summary) && attempt < LOCK_RETRIES) {
        await sleep(5 + Math.random() * 25);
        continue;
      }
      throw new ProtocolError('store_write_denied', `${this.remote} refused the ledger update: ${status.summary}`, {}, { summary: status.summary });
    }
  }

  /**
   * The file at the tip of the remote's HEAD branch; null when the remote has no
   * HEAD branch, when HEAD is the queue branch (spec 7.1), or the file is absent.
   */
  async readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    const file = checkRepoPath(path);
    const revision = await this.defaultRevision();
    return revision === null ? null : revision.readFile(file);
  }

  /**
   * The remote's HEAD branch at the tip just fetched from the remote (not the clone's own
   * branches, which may be stale or diverged); null as for `readDefaultBranchFile`.
   */
  async defaultRevision(): Promise<RepositoryRevision | null> {
    const { fetch } = await this.endpoints();
    const r = await git(this.ctx, ['ls-remote', '--symref', fetch, 'HEAD']);
    if (r.code !== 0) throw this.unreachable('ls-remote', r);
    const target = /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(r.stdout.toString('utf8'))?.[1];
    if (target === undefined || target === this.ref) return null;
    const tip = await this.fetchBranch(target);
    return tip === null ? null : gitRevision(this.ctx, tip, target);
  }

  /**
   * Fetches one remote branch; returns its tip, or null when the remote has no such branch.
   * The fetch lands in `refs/fairway/tips/<remote>/<branch>`, which stays: the next fetch
   * negotiates from it and its connectivity check stops there, so a fetch costs what is new,
   * not the history since the clone was made. When another fetch in the same clone holds that
   * ref's lock, this one lands in a scratch ref of its own instead (dropped by an `update-ref`
   * started with it); the objects stay in the clone either way.
   */
  private async fetchBranch(ref: string): Promise<string | null> {
    const { fetch } = await this.endpoints();
    const tips = tipsRefOf(this.remote, ref.replace(/^refs\/heads\//, ''));
    let r = await git(this.ctx, [...FETCH, fetch, `+${ref}:${tips}`]);
    // Our own last-fetched tip naming a missing object (pruned, a broken copy of the clone) stops
    // every fetch: it is only a negotiation hint, so it is dropped and the fetch made again.
    if (r.code !== 0 && CLONE_REF_BROKEN.test(r.stderr) && (await this.dropDanglingTip(tips))) r = await git(this.ctx, [...FETCH, fetch, `+${ref}:${tips}`]);
    if (r.code === 0) return this.resolveLocal(tips);
    if (/couldn't find remote ref/i.test(r.stderr)) return null;
    if (!/cannot lock ref|unable to update local ref/i.test(r.stderr)) throw this.fetchFailure(ref, r);
    const scratch = scratchRefName(++fetchCounter, randomBytes(4).toString('hex'));
    const cleanup = new RefTransaction(this.ctx, 'fairway: drop scratch fetch ref');
    const again = await git(this.ctx, [...FETCH, fetch, `+${ref}:${scratch}`]);
    if (again.code !== 0) {
      cleanup.abort();
      if (/couldn't find remote ref/i.test(again.stderr)) return null;
      throw this.fetchFailure(ref, again);
    }
    try {
      return await this.resolveLocal(scratch);
    } finally {
      const dropped = await cleanup.delete([scratch]);
      if (!dropped.ok) await git(this.ctx, ['update-ref', '-d', scratch]);
    }
  }

  /** Deletes the clone's last-fetched tip `tips` when it names a missing object; whether it did. */
  private async dropDanglingTip(tips: string): Promise<boolean> {
    const oid = await resolveRef(this.ctx, tips);
    if (oid === null || (await git(this.ctx, ['cat-file', '-e', oid])).code === 0) return false;
    await git(this.ctx, ['update-ref', '-d', tips]);
    return true;
  }

  /**
   * A failed fetch of `ref`: a ref naming a missing object, on the remote (`not our ref`) or in
   * the clone (git's connectivity check), is `store_ref_dangling` with where to repair it; anything
   * else is `store_unreachable`.
   */
  private fetchFailure(ref: string, r: GitResult): ProtocolError {
    const said = lastLine(r.stderr) || `exit ${r.code}`;
    if (/not our ref/i.test(r.stderr)) {
      return new ProtocolError('store_ref_dangling', `${ref} on ${this.remote} names an object that remote does not hold (${said}): repair the remote repository; the queue is not read as empty`, {}, { ref, remote: this.remote, stderr: r.stderr.trim().slice(0, 2000) });
    }
    if (CLONE_REF_BROKEN.test(r.stderr)) {
      return new ProtocolError('store_ref_dangling', `fetching ${ref} from ${this.remote} failed because a ref of the clone ${this.ctx.cwd} names a missing object (${said}): find it with \`git fsck\` or \`git for-each-ref\` and delete or repair it`, {}, { ref, remote: this.remote, stderr: r.stderr.trim().slice(0, 2000) });
    }
    return this.unreachable('fetch', r);
  }

  /** A ref of the clone, through the reader (plumbing if it is unavailable). */
  private async resolveLocal(ref: string): Promise<string | null> {
    return presentRef(this.ctx, ref, () => this.cat.info(ref));
  }

  /**
   * The remote's queue branch is not a symbolic ref (a push through one moves the branch it names;
   * git-objects.ts `symbolicRef`). Asked when a read finds no ledger at the tip, before a first
   * publication there: one more network round trip on that path only. Needs protocol v2 (git's
   * default), whose ref advertisement names symbolic refs.
   */
  private async refuseRemoteSymbolicRef(): Promise<void> {
    const { fetch } = await this.endpoints();
    const r = await git(this.ctx, ['ls-remote', '--symref', fetch, this.ref]);
    if (r.code !== 0) throw this.unreachable('ls-remote', r);
    // `ref: <target>\t<ref>` comes before the resolved line when the remote's ref is symbolic.
    const line = r.stdout.toString('utf8').split('\n').find((l) => l.startsWith('ref: ') && l.endsWith(`\t${this.ref}`));
    const target = line?.slice('ref: '.length, line.lastIndexOf('\t'));
    if (target !== undefined) throw symbolicRef(this.ref, target, `on ${this.remote}`);
  }

  private async lsRemote(ref: string): Promise<string | null> {
    const { fetch } = await this.endpoints();
    const r = await git(this.ctx, ['ls-remote', fetch, ref]);
    if (r.code !== 0) throw this.unreachable('ls-remote', r);
    for (const line of r.stdout.toString('utf8').split('\n')) {
      const [sha, name] = line.split('\t');
      if (name === ref && sha) return sha;
    }
    return null;
  }

  private unreachable(op: string, r: GitResult): ProtocolError {
    return new ProtocolError('store_unreachable', `cannot reach remote ${this.remote} (${op}): ${lastLine(r.stderr) || `exit ${r.code}`}`, {}, {
      remote: this.remote,
      stderr: r.stderr.trim().slice(0, 2000),
    });
  }
}

/**
 * Scratch refs a killed fetch left behind (older than SCRATCH_MAX_AGE_MS, or
 * whose process is gone), removed once per store; a failure here never fails
 * the read (`fairway doctor` reports what is left).
 */
async function removeStaleScratchRefs(ctx: GitContext): Promise<void> {
  try {
    const now = Date.now();
    await deleteRefs(ctx, (await listScratchRefs(ctx)).filter((s) => isStaleScratch(s, SCRATCH_MAX_AGE_MS, now)).map((s) => s.ref));
  } catch {
    // best effort
  }
}

/** The `git push --porcelain` line for `ref`: `<flag>\t<src>:<dst>\t<summary>`. */
function pushStatus(stdout: string, ref: string): { flag: string; summary: string } | null {
  for (const line of stdout.split('\n')) {
    const [flag, refs, summary] = line.split('\t');
    if (flag !== undefined && flag.length === 1 && refs?.endsWith(`:${ref}`)) return { flag, summary: summary ?? '' };
  }
  return null;
}
