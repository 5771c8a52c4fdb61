/**
 * Git object plumbing shared by the local and remote stores: resolve refs, read
 * a file at a commit, and build the next ledger commit. Never touches a work
 * tree or the real index: objects only (`hash-object`, `mktree`, `commit-tree`).
 */
import { ProtocolError } from '../../engine/errors.ts';
import { LEDGER_FILE, type RepositoryRevision } from './types.ts';
import { checkRepoPath } from './checks.ts';
import { git, gitFailure, gitOk, type GitContext } from './git-cli.ts';

const LEDGER_NAME = Buffer.from(LEDGER_FILE, 'utf8');

/** The object a ref points at, or null when the ref does not exist. */
export async function resolveRef(ctx: GitContext, ref: string): Promise<string | null> {
  const args = ['rev-parse', '--verify', '-q', ref];
  const r = await git(ctx, args);
  if (r.code === 0) return r.stdout.toString('utf8').trim();
  if (r.code === 1 && r.stderr.trim() === '') return null;
  throw gitFailure(args, r);
}

export async function hasCommit(ctx: GitContext, sha: string): Promise<boolean> {
  if (!/^[0-9a-f]{40,64}$/.test(sha)) return false;
  return (await git(ctx, ['cat-file', '-e', `${sha}^{commit}`])).code === 0;
}

/**
 * The bytes of `path` at `commit`; null when the path is absent. A path that
 * names a directory or submodule is `store_path_not_a_file`.
 */
export async function readFileAt(ctx: GitContext, commit: string, path: string): Promise<Uint8Array | null> {
  const r = await git(ctx, ['cat-file', 'blob', `${commit}:${path}`]);
  if (r.code === 0) return r.stdout;
  // Tell "absent" from "not a file" from "no such commit" (only on the failure path).
  const lsArgs = ['ls-tree', '-z', '--full-tree', commit, '--', path];
  const ls = await git(ctx, lsArgs);
  if (ls.code !== 0) throw gitFailure(lsArgs, ls);
  const entry = ls.stdout.toString('utf8').split('\0').find((e) => e.endsWith(`\t${path}`));
  if (entry === undefined) return null;
  const type = entry.split(' ')[1];
  if (type !== 'blob') throw new ProtocolError('store_path_not_a_file', `${path} at ${commit} is a ${type}, not a file`, { commit });
  throw gitFailure(['cat-file'], r);
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
 * Writes `bytes` as the ledger in a new commit on `parent` (null: a root commit
 * holding only the ledger). Every other entry of the parent's tree (files,
 * subdirectories, modes, submodules) is carried over by object id.
 */
export async function writeLedgerCommit(ctx: GitContext, parent: string | null, bytes: Uint8Array, message: string): Promise<string> {
  const blob = (await gitOk(ctx, ['hash-object', '-w', '--no-filters', '--stdin'], bytes)).toString('utf8').trim();
  const records: Buffer[] = [];
  if (parent !== null) {
    const ls = await git(ctx, ['ls-tree', '-z', '--full-tree', parent]);
    if (ls.code !== 0) throw new ProtocolError('store_parent_missing', `parent commit ${parent} is not available`, { commit: parent });
    for (const record of splitNul(ls.stdout)) {
      const tab = record.indexOf(0x09);
      if (tab >= 0 && record.subarray(tab + 1).equals(LEDGER_NAME)) continue; // replaced below
      records.push(record);
    }
  }
  records.push(Buffer.from(`100644 blob ${blob}\t${LEDGER_FILE}`, 'utf8'));
  const listing = Buffer.concat(records.flatMap((r) => [r, Buffer.from([0])]));
  // mktree sorts entries; --missing skips re-checking objects copied from an existing tree.
  const tree = (await gitOk(ctx, ['mktree', '-z', '--missing'], listing)).toString('utf8').trim();
  const args = ['commit-tree', '--no-gpg-sign', tree];
  if (parent !== null) args.push('-p', parent);
  return (await gitOk(ctx, args, Buffer.from(message, 'utf8'))).toString('utf8').trim();
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
  const r = await git(ctx, ['rev-parse', '--git-dir']);
  if (r.code !== 0) {
    throw new ProtocolError('not_a_git_repository', `${ctx.cwd} is not a Git repository`, {}, { path: ctx.cwd });
  }
}
