/**
 * Git object plumbing shared by the local and remote stores: resolve refs, read
 * a file at a commit, and build the next ledger commit. Never touches a work
 * tree or the real index: objects only (`hash-object`, `mktree`, `commit-tree`).
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';
import { LEDGER_FILE, type RepositoryRevision } from './types.ts';
import { checkRepoPath, ledgerMissing, SYMLINK_MODE } from './checks.ts';
import { git, gitFailure, gitOk, type GitContext } from './git-cli.ts';
import { HelperGone, type CatFile } from './git-batch.ts';
import { commitBody, commitTime, entriesOfListing, entriesOfTree, treeBody, writeObject, type ObjectDatabase, type TreeEntry } from './loose-objects.ts';

const LEDGER_NAME = Buffer.from(LEDGER_FILE, 'utf8');

/** The object a ref points at, or null when the ref does not exist. */
export async function resolveRef(ctx: GitContext, ref: string): Promise<string | null> {
  const args = ['rev-parse', '--verify', '-q', ref];
  const r = await git(ctx, args);
  if (r.code === 0) return r.stdout.toString('utf8').trim();
  if (r.code === 1 && r.stderr.trim() === '') return null;
  throw gitFailure(args, r);
}

/**
 * `store_ref_dangling`: `ref` exists but names `oid`, which the repository does not hold (a
 * broken or partial clone, a ref written by hand, objects pruned under it). Never read as "no
 * queue yet": a bootstrap onto it would fail its compare-and-swap, and the queue's history is
 * somewhere this repository cannot see.
 */
export function danglingRef(ref: string, oid: string): ProtocolError {
  return new ProtocolError('store_ref_dangling', `${ref} points at ${oid}, which is not in this repository (a partial clone, a ref written by hand, or pruned objects): fetch the object or reset the ref; the queue is not read as empty`, {}, { ref, object: oid });
}

/**
 * `store_ref_not_a_commit`: `ref` names a tree, a blob or a tag object. A queue branch's tip is
 * a commit; a publication on anything else would write a commit whose parent is not one.
 */
export function refNotACommit(ref: string, oid: string, type: string): ProtocolError {
  return new ProtocolError('store_ref_not_a_commit', `${ref} points at ${oid}, a ${type}, not a commit: a queue branch's tip must be a commit (reset the ref to the queue's last commit)`, {}, { ref, object: oid, type });
}

/**
 * The commit `ref` names; null when the ref does not exist. `lookup` answers the object the ref
 * names (its id and type) only when it is present (the long-lived cat-file's `info`), so its
 * null is checked against the ref itself: a ref naming a missing object is `store_ref_dangling`,
 * not an absent queue; one naming a tree, blob or tag is `store_ref_not_a_commit`.
 */
export async function presentRef(ctx: GitContext, ref: string, lookup: () => Promise<{ oid: string; type: string } | null>): Promise<string | null> {
  let found: { oid: string; type: string } | null;
  try {
    found = await lookup();
  } catch (e) {
    if (!(e instanceof HelperGone)) throw e;
    const oid = await resolveRef(ctx, ref);
    if (oid === null) return null;
    const t = await git(ctx, ['cat-file', '-t', oid]);
    if (t.code !== 0) throw danglingRef(ref, oid);
    found = { oid, type: t.stdout.toString('utf8').trim() };
  }
  if (found === null) {
    const named = await resolveRef(ctx, ref);
    if (named !== null) throw danglingRef(ref, named);
    return null;
  }
  if (found.type !== 'commit') throw refNotACommit(ref, found.oid, found.type);
  return found.oid;
}

/**
 * `store_ref_symbolic`: the queue branch is a symbolic ref (`work-queue` -> `main`). Reads would
 * read the other branch and a publication would move it, so neither is done.
 */
export async function refuseSymbolicRef(ctx: GitContext, ref: string): Promise<void> {
  const r = await git(ctx, ['symbolic-ref', '-q', ref]);
  if (r.code !== 0) return; // not symbolic (or absent)
  throw symbolicRef(ref, r.stdout.toString('utf8').trim());
}

/** `store_ref_symbolic` for `ref` -> `target` (`where`: "on origin" for a remote's). */
export function symbolicRef(ref: string, target: string, where = ''): ProtocolError {
  const at = where === '' ? '' : ` ${where}`;
  return new ProtocolError('store_ref_symbolic', `${ref}${at} is a symbolic ref to ${target}: the queue branch must be a branch of its own (a publication would move ${target}); delete the symbolic ref or name the queue's real branch with --branch`, {}, { ref, target });
}

export async function hasCommit(ctx: GitContext, sha: string): Promise<boolean> {
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return false;
  return (await git(ctx, ['cat-file', '-e', `${sha}^{commit}`])).code === 0;
}

/**
 * A symbolic link's blob is its target path, at most PATH_MAX bytes: a blob that short may be
 * one, and its mode is looked up (one more git call, for small files only).
 */
const LINK_TARGET_BYTES = 4096;

/**
 * The bytes of `path` at `commit`; null when the path is absent. A path that names a directory,
 * a submodule or a symbolic link (whose blob is its target's path, not the file's content) is
 * `store_path_not_a_file`.
 */
export async function readFileAt(ctx: GitContext, commit: string, path: string): Promise<Uint8Array | null> {
  const r = await git(ctx, ['cat-file', 'blob', `${commit}:${path}`]);
  if (r.code === 0) {
    await refuseLink(ctx, commit, path, r.stdout);
    return r.stdout;
  }
  // Tell "absent" from "not a file" from "no such commit" (only on the failure path).
  const entry = await treeEntry(ctx, commit, path);
  if (entry === undefined) return null;
  if (entry.type !== 'blob') throw new ProtocolError('store_path_not_a_file', `${path} at ${commit} is a ${entry.type}, not a file`, { commit });
  throw gitFailure(['cat-file'], r);
}

/**
 * `store_path_not_a_file` when the blob `bytes` read at `path` is a symbolic link's (its target
 * path): only a blob of at most LINK_TARGET_BYTES can be, so only then is its mode looked up.
 */
export async function refuseLink(ctx: GitContext, commit: string, path: string, bytes: Uint8Array): Promise<void> {
  if (bytes.length > LINK_TARGET_BYTES || (await treeEntry(ctx, commit, path))?.mode !== SYMLINK_MODE) return;
  throw new ProtocolError('store_path_not_a_file', `${path} at ${commit} is a symbolic link (to ${JSON.stringify(Buffer.from(bytes).toString('utf8'))}), not a file: the branch must hold the file itself`, { commit });
}

/** The mode and type of the tree entry `path` at `commit`, or undefined when there is none. */
async function treeEntry(ctx: GitContext, commit: string, path: string): Promise<{ mode: string; type: string } | undefined> {
  const args = ['ls-tree', '-z', '--full-tree', commit, '--', path];
  const ls = await git(ctx, args);
  if (ls.code !== 0) throw gitFailure(args, ls);
  const entry = ls.stdout.toString('utf8').split('\0').find((e) => e.endsWith(`\t${path}`));
  if (entry === undefined) return undefined;
  const [mode = '', type = ''] = entry.split(' ');
  return { mode, type };
}

/**
 * A branch whose tip has no ledger file but whose history had one lost its ledger (a hand
 * deletion, a bad merge): `ledger_missing`, naming the commit that last touched the file. Such a
 * branch is never read as "no queue yet", so no first submit re-creates a queue over it. A branch
 * that never held the ledger (a README only) stays an uninitialized queue.
 */
export async function refuseDeletedLedger(ctx: GitContext, tip: string): Promise<void> {
  // --full-history: a merge that dropped the file (`-s ours` over an unrelated branch) is found too.
  const args = ['rev-list', '-1', '--full-history', tip, '--', LEDGER_FILE];
  const r = await git(ctx, args);
  if (r.code !== 0) throw gitFailure(args, r);
  const last = r.stdout.toString('utf8').trim();
  if (last !== '') throw ledgerMissing(tip, last);
  // In a shallow clone the walk stops at the boundary commits (listed in $GIT_DIR/shallow): when
  // one is in the branch's history, the file may have been there before it. A branch whose whole
  // history is present (a shallow clone of another branch) is read as usual.
  if (await historyCut(ctx, tip)) {
    throw new ProtocolError('store_history_shallow', `the queue branch's tip ${tip} has no ${LEDGER_FILE} and this clone is shallow, so whether its history had one (a deleted ledger, never an empty queue) cannot be told: fetch the full history (git fetch --unshallow) and run again`, {}, { commit: tip });
  }
}

/** Whether the history of `tip` reaches a shallow clone's boundary (a commit whose parents are not fetched). */
async function historyCut(ctx: GitContext, tip: string): Promise<boolean> {
  const path = await git(ctx, ['rev-parse', '--git-path', 'shallow']);
  if (path.code !== 0) throw gitFailure(['rev-parse', '--git-path', 'shallow'], path);
  let boundary: string;
  try {
    boundary = await readFile(resolve(ctx.cwd, path.stdout.toString('utf8').trim()), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false; // not shallow
    throw new ProtocolError('store_git_failed', `cannot read the shallow clone's boundary list ${path.stdout.toString('utf8').trim()}: ${code ?? String(e)}`);
  }
  const cut = new Set(boundary.split('\n').filter((l) => l !== ''));
  if (cut.size === 0) return false;
  const args = ['rev-list', tip];
  const r = await git(ctx, args);
  if (r.code !== 0) throw gitFailure(args, r);
  return r.stdout.toString('utf8').split('\n').some((c) => cut.has(c));
}

/** Names of the files (blobs) directly under `dir` at `commit`; [] when `dir` is absent. */
export async function listFilesAt(ctx: GitContext, commit: string, dir: string): Promise<string[]> {
  const prefix = `${checkRepoPath(dir)}/`;
  const args = ['ls-tree', '-z', '--full-tree', commit, '--', prefix];
  const ls = await git(ctx, args);
  if (ls.code !== 0) throw gitFailure(args, ls);
  const names: string[] = [];
  for (const entry of ls.stdout.toString('utf8').split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0 || entry.split(' ')[1] !== 'blob') continue;
    const path = entry.slice(tab + 1);
    if (path.startsWith(prefix) && !path.slice(prefix.length).includes('/')) names.push(path.slice(prefix.length));
  }
  return names;
}

/** The default branch `branchRef` of a local object store at its tip `commit`, every read pinned there. */
export function gitRevision(ctx: GitContext, commit: string, branchRef: string, known = true): RepositoryRevision {
  // Another commit (`at`) may be absent from this object store (a shallow or re-created clone):
  // then it has no files, as a contents read of an unknown SHA answers on GitHub.
  const present = known ? Promise.resolve(true) : hasCommit(ctx, commit);
  return {
    ref: commit,
    branch: branchRef.replace(/^refs\/heads\//, ''),
    readFile: async (path) => ((await present) ? readFileAt(ctx, commit, checkRepoPath(path)) : null),
    listFiles: async (dir) => ((await present) ? listFilesAt(ctx, commit, dir) : []),
    at: (other) => gitRevision(ctx, other, branchRef, false),
  };
}

/**
 * Writes `bytes` (or the pieces it lists, in order) as the ledger in a new commit on `parent`
 * (null: a root commit holding only the ledger). Every other entry of the parent's tree
 * (files, subdirectories, modes, submodules) is carried over by object id. With an object
 * database (`db`) the objects are written by this process, reading the parent's tree through
 * `cat` when given; otherwise through git plumbing.
 */
export async function writeLedgerCommit(
  ctx: GitContext,
  parent: string | null,
  bytes: Uint8Array | readonly Uint8Array[],
  message: string,
  db?: ObjectDatabase | null,
  cat?: CatFile | null,
): Promise<string> {
  const when = db === undefined || db === null ? null : commitTime(ctx.date);
  if (db !== undefined && db !== null && when !== null) return writeLedgerCommitInProcess(ctx, db, when, parent, bytes, message, cat ?? null);
  const blob = (await gitOk(ctx, ['hash-object', '-w', '--no-filters', '--stdin'], bytes instanceof Uint8Array ? bytes : Buffer.concat(bytes))).toString('utf8').trim();
  const records = await listedEntries(ctx, parent);
  records.push(Buffer.from(`100644 blob ${blob}\t${LEDGER_FILE}`, 'utf8'));
  const listing = Buffer.concat(records.flatMap((r) => [r, Buffer.from([0])]));
  // mktree sorts entries; --missing skips re-checking objects copied from an existing tree.
  const tree = (await gitOk(ctx, ['mktree', '-z', '--missing'], listing)).toString('utf8').trim();
  const args = ['commit-tree', '--no-gpg-sign', tree];
  if (parent !== null) args.push('-p', parent);
  return (await gitOk(ctx, args, Buffer.from(message, 'utf8'))).toString('utf8').trim();
}

/** The parent tree's entries other than the ledger, as `ls-tree -z` records (the plumbing path). */
async function listedEntries(ctx: GitContext, parent: string | null): Promise<Buffer[]> {
  if (parent === null) return [];
  // The parent itself must be a commit (ls-tree takes any tree-ish: a tag, a tree).
  const type = await git(ctx, ['cat-file', '-t', parent]);
  if (type.code !== 0 || type.stdout.toString('utf8').trim() !== 'commit') throw new ProtocolError('store_parent_missing', `parent commit ${parent} is not available`, { commit: parent });
  const ls = await git(ctx, ['ls-tree', '-z', '--full-tree', parent]);
  if (ls.code !== 0) throw new ProtocolError('store_parent_missing', `parent commit ${parent} is not available`, { commit: parent });
  return splitNul(ls.stdout).filter((record) => {
    const tab = record.indexOf(0x09);
    return !(tab >= 0 && record.subarray(tab + 1).equals(LEDGER_NAME)); // replaced by the caller
  });
}

/**
 * The parent tree's entries other than the ledger, remembered for commits this process wrote,
 * so a writer publishing on its own last commit reads no tree.
 */
const carried = new Map<string, TreeEntry[]>();
const CARRIED_MAX = 64;

async function carriedEntries(ctx: GitContext, db: ObjectDatabase, parent: string | null, cat: CatFile | null): Promise<TreeEntry[]> {
  if (parent === null) return [];
  const known = carried.get(`${ctx.cwd}\0${parent}`);
  if (known !== undefined) return [...known];
  let entries: TreeEntry[] | null = null;
  if (cat !== null) {
    try {
      // The parent itself must be a commit: `^{tree}` would peel a tag or take a tree as it is.
      if ((await cat.info(parent))?.type !== 'commit') throw new ProtocolError('store_parent_missing', `parent commit ${parent} is not available`, { commit: parent });
      const tree = await cat.contents(`${parent}^{tree}`);
      if (tree === null || tree.bytes === null) throw new ProtocolError('store_parent_missing', `parent commit ${parent} is not available`, { commit: parent });
      entries = entriesOfTree(tree.bytes, db.format);
    } catch (e) {
      if (!(e instanceof HelperGone)) throw e;
    }
  }
  entries ??= entriesOfListing(await listedEntries(ctx, parent));
  return entries.filter((e) => !e.name.equals(LEDGER_NAME));
}

function remember(ctx: GitContext, commit: string, entries: TreeEntry[]): void {
  if (carried.size >= CARRIED_MAX) carried.delete(carried.keys().next().value!);
  carried.set(`${ctx.cwd}\0${commit}`, entries);
}

/** Same objects as the plumbing path, written by this process (lib/store/loose-objects.ts). */
async function writeLedgerCommitInProcess(
  ctx: GitContext,
  db: ObjectDatabase,
  when: { seconds: number; offset: string },
  parent: string | null,
  bytes: Uint8Array | readonly Uint8Array[],
  message: string,
  cat: CatFile | null,
): Promise<string> {
  const write = async (type: 'blob' | 'tree' | 'commit', body: Uint8Array | readonly Uint8Array[]): Promise<string> => {
    try {
      return await writeObject(db, type, body);
    } catch (e) {
      // A file-system refusal (read-only or full disk, permissions) is the store's write failing, as
      // `hash-object` failing would be; never a JS exception surfacing as a verdict.
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code !== 'string') throw e;
      throw new ProtocolError('store_git_failed', `writing the ledger's ${type} object into ${db.dir} failed: ${code}`, {}, { errno: code });
    }
  };
  const [blob, carriedOver] = await Promise.all([write('blob', bytes), carriedEntries(ctx, db, parent, cat)]);
  const entries = [...carriedOver, { mode: '100644', name: LEDGER_NAME, id: Buffer.from(blob, 'hex') }];
  const tree = await write('tree', treeBody(entries));
  const commit = await write('commit', commitBody(tree, parent, when, message));
  remember(ctx, commit, carriedOver);
  return commit;
}

function splitNul(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0); i >= 0; i = buf.indexOf(0, start)) {
    if (i > start) out.push(buf.subarray(start, i));
    start = i + 1;
  }
  if (start < buf.length) out.push(buf.subarray(start));
  return out;
}

/** Checks once that `cwd` is inside a Git repository (`not_a_git_repository`). */
export async function verifyRepository(ctx: GitContext): Promise<void> {
  await objectDatabase(ctx);
}

/**
 * Checks that `cwd` is inside a Git repository and answers where its objects live and their
 * format (null: a format this process does not write; the plumbing path is used then).
 */
export async function objectDatabase(ctx: GitContext): Promise<ObjectDatabase | null> {
  // A repository that keeps a second (compatibility) object format maps every object it writes;
  // only git itself does that, so such a repository takes the plumbing path.
  const [r, compat] = await Promise.all([
    git(ctx, ['rev-parse', '--git-dir', '--git-path', 'objects', '--show-object-format']),
    git(ctx, ['config', '--get', 'extensions.compatObjectFormat']),
  ]);
  if (r.code !== 0) {
    const plain = await git(ctx, ['rev-parse', '--git-dir']);
    if (plain.code === 0) return null; // an older git without --show-object-format
    throw new ProtocolError('not_a_git_repository', `${ctx.cwd} is not a Git repository`, {}, { path: ctx.cwd });
  }
  const [, objects, format] = r.stdout.toString('utf8').split('\n');
  if (objects === undefined || (format !== 'sha1' && format !== 'sha256') || compat.stdout.toString('utf8').trim() !== '') return null;
  return { dir: isAbsolute(objects) ? objects : resolve(ctx.cwd, objects), format };
}
