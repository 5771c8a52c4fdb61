/**
 * Leftovers of killed git processes in a repository the Git stores use, and
 * how to tell them from the work of live ones:
 *
 * - A ref lock (`refs/heads/<branch>.lock`, `packed-refs.lock`) that a
 *   `kill -9` during `git update-ref` left behind blocks every later update of
 *   that ref. Only a lock no running git process can own may be removed: the
 *   running processes are found through /proc (a `git` whose working directory
 *   or arguments touch the repository). Where /proc cannot be read, nothing is
 *   ever removed.
 * - Scratch refs `refs/fairway/fetch/<pid>-<ms>-<n>-<hex>` that RemoteGitStore
 *   creates per fetch and deletes after it; a killed fetch leaves its ref.
 *   A scratch ref is stale when it is older than a bound or its process is gone.
 */
import { readdirSync, readFileSync, readlinkSync, statSync, unlinkSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';
import { git, gitFailure, type GitContext } from './git-cli.ts';
import { processAlive } from '../process-alive.ts';
import { isIdleRefHelper } from './ref-transactions.ts';

export interface GitDirs {
  /** The directory git runs in (work tree or bare repository). */
  cwd: string;
  /** This work tree's git directory. */
  gitDir: string;
  /** The directory holding refs shared by all work trees. */
  commonDir: string;
}

export interface GitProcess {
  pid: number;
  args: string[];
  cwd: string | null;
}

export interface RefLock {
  path: string;
  ageMs: number;
}

export const SCRATCH_PREFIX = 'refs/fairway/fetch/';
/** Scratch refs older than this are removed automatically (a fetch takes seconds, not minutes). */
export const SCRATCH_MAX_AGE_MS = 15 * 60_000;

export async function gitDirs(ctx: GitContext): Promise<GitDirs> {
  const args = ['rev-parse', '--absolute-git-dir', '--git-common-dir'];
  const r = await git(ctx, args);
  if (r.code !== 0) {
    // Outside a repository this is the same answer every other command gives, not a git failure.
    if (/not a git repository/i.test(r.stderr)) throw new ProtocolError('not_a_git_repository', `${ctx.cwd} is not a Git repository`, {}, { path: ctx.cwd });
    throw gitFailure(args, r);
  }
  const out = r.stdout.toString('utf8').trim().split('\n');
  const gitDir = out[0]!;
  const common = out[1] ?? gitDir;
  return { cwd: ctx.cwd, gitDir, commonDir: isAbsolute(common) ? common : resolve(ctx.cwd, common) };
}

/** The lock files that block an update of `ref`, if present: the ref's own lock and packed-refs'. */
export function refLocks(dirs: GitDirs, ref: string, now = Date.now()): RefLock[] {
  const out: RefLock[] = [];
  for (const path of [join(dirs.commonDir, `${ref}.lock`), join(dirs.commonDir, 'packed-refs.lock')]) {
    try {
      out.push({ path, ageMs: Math.max(0, now - statSync(path).mtimeMs) });
    } catch {
      // absent
    }
  }
  return out;
}

/**
 * Running git processes whose working directory is inside, or whose arguments
 * name, one of `paths`; null when processes cannot be listed (no /proc), in
 * which case no lock may be judged stale. `git cat-file` processes (the stores'
 * long-lived readers, lib/store/git-batch.ts) are left out: they take no ref lock; so are
 * Fairway's own `update-ref --stdin` helpers while blocked between transactions
 * (lib/store/ref-transactions.ts).
 */
export function gitProcessesTouching(paths: readonly string[]): GitProcess[] | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const roots = paths.map((p) => resolve(p));
  const inside = (candidate: string) => roots.some((root) => candidate === root || candidate.startsWith(`${root}/`));
  const found: GitProcess[] = [];
  for (const name of pids) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    } catch {
      continue; // exited meanwhile
    }
    const program = basename(args[0] ?? '');
    if (program !== 'git' && !program.startsWith('git-')) continue;
    if (gitSubcommand(args) === 'cat-file') continue; // reads objects and refs, never locks one
    if (isIdleRefHelper(pid, args)) continue; // a Fairway update-ref between transactions holds no lock
    let cwd: string | null = null;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      // another user's process: judge by its arguments alone, and by caution below
    }
    const touches = (cwd !== null && inside(cwd)) || args.some((a) => roots.some((root) => a.includes(root)));
    // A git whose directory we cannot see might be working here: count it, never remove under it.
    if (touches || cwd === null) found.push({ pid, args, cwd });
  }
  return found;
}

/** The git subcommand of a command line (`git [-c k=v] [-C dir] [--opt] <subcommand> ...`, or `git-<subcommand>`). */
export function gitSubcommand(args: readonly string[]): string | null {
  const program = basename(args[0] ?? '');
  if (program.startsWith('git-')) return program.slice(4);
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-C' || a === '--git-dir' || a === '--work-tree' || a === '--namespace' || a === '--exec-path' || a === '--config-env') i++;
    else if (!a.startsWith('-')) return a;
  }
  return null;
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The `store_locked` error for a lock that outlived the store's retries. */
export function storeLocked(lock: RefLock, dirs: GitDirs, ref: string): ProtocolError {
  const holders = gitProcessesTouching([dirs.cwd, dirs.gitDir, dirs.commonDir]);
  const seconds = Math.round(lock.ageMs / 1000);
  const command = `rm -f -- ${shellQuote(lock.path)}`;
  const doctor = `fairway doctor --dir ${shellQuote(dirs.cwd)} --fix`;
  const held = holders === null
    ? 'running processes cannot be listed here, so check by hand that no git is working on this repository'
    : holders.length > 0
      ? `git is running on this repository (pid ${holders.map((h) => h.pid).join(', ')}): wait for it to finish`
      : 'no git process is running on this repository, so it was probably left by a killed git';
  return new ProtocolError(
    'store_locked',
    `cannot update ${ref}: the lock file ${lock.path} exists (age ${seconds} s); ${held}. Once no git process holds it, clear it with: ${command} (or: ${doctor})`,
    {},
    { lock: lock.path, age_ms: Math.round(lock.ageMs), holders: holders?.map((h) => h.pid) ?? null, command, doctor },
  );
}

/** Removes a lock only when no running git process can own it; says what it did. */
export function removeStaleLock(lock: RefLock, dirs: GitDirs): { removed: boolean; holders: GitProcess[] | null } {
  const holders = gitProcessesTouching([dirs.cwd, dirs.gitDir, dirs.commonDir]);
  if (holders === null || holders.length > 0) return { removed: false, holders };
  try {
    unlinkSync(lock.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new ProtocolError('store_write_failed', `cannot remove ${lock.path}: ${String(e)}`);
  }
  return { removed: true, holders };
}

export interface ScratchRef {
  ref: string;
  pid: number | null;
  /** Creation time encoded in the name (ms), when the name has one. */
  createdAt: number | null;
}

/** A fresh scratch ref name for this process. */
export function scratchRefName(counter: number, random: string, now = Date.now()): string {
  return `${SCRATCH_PREFIX}${process.pid}-${now}-${counter}-${random}`;
}

export async function listScratchRefs(ctx: GitContext): Promise<ScratchRef[]> {
  const args = ['for-each-ref', '--format=%(refname)', SCRATCH_PREFIX];
  const r = await git(ctx, args);
  if (r.code !== 0) throw gitFailure(args, r);
  return r.stdout.toString('utf8').split('\n').filter((l) => l !== '').map((ref) => {
    const parts = ref.slice(SCRATCH_PREFIX.length).split('-');
    const pid = /^\d+$/.test(parts[0] ?? '') ? Number(parts[0]) : null;
    // New names: pid-ms-counter-hex (4 parts); old names: pid-counter-hex (no time).
    const createdAt = parts.length >= 4 && /^\d{12,}$/.test(parts[1]!) ? Number(parts[1]) : null;
    return { ref, pid, createdAt };
  });
}


/** Stale: older than `maxAgeMs`, or its process is gone (never this process's own live fetches). */
export function isStaleScratch(s: ScratchRef, maxAgeMs: number, now = Date.now()): boolean {
  if (s.createdAt !== null && now - s.createdAt > maxAgeMs) return true;
  if (s.pid === process.pid) return false;
  return s.pid !== null && !processAlive(s.pid);
}

/** Deletes `refs` in one `git update-ref --stdin`; returns how many were named. */
export async function deleteRefs(ctx: GitContext, refs: readonly string[]): Promise<number> {
  if (refs.length === 0) return 0;
  const args = ['update-ref', '--stdin'];
  const r = await git(ctx, args, new TextEncoder().encode(refs.map((ref) => `delete ${ref}\n`).join('')));
  if (r.code !== 0) throw gitFailure(args, r);
  return refs.length;
}
