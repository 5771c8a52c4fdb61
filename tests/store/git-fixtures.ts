/**
 * Real Git repositories in temporary directories for store tests: create,
 * seed branches through plumbing (works in bare repositories), and inspect
 * refs and trees directly, independent of the store under test.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'seed',
  GIT_AUTHOR_EMAIL: 'seed@example.invalid',
  GIT_COMMITTER_NAME: 'seed',
  GIT_COMMITTER_EMAIL: 'seed@example.invalid',
  GIT_TERMINAL_PROMPT: '0',
};

export function gitSync(cwd: string, args: string[], options: { input?: Uint8Array | string; env?: NodeJS.ProcessEnv } = {}): Buffer {
  return execFileSync('git', args, { cwd, env: options.env ?? GIT_ENV, input: options.input, maxBuffer: 256 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

export function gitText(cwd: string, ...args: string[]): string {
  return gitSync(cwd, args).toString('utf8').trim();
}

const dirs: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fairway-${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** For afterAll: removes every directory `tempDir` made in this file. */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function initRepo(options: { bare?: boolean; defaultBranch?: string; dir?: string } = {}): string {
  const dir = options.dir ?? tempDir(options.bare ? 'bare' : 'repo');
  mkdirSync(dir, { recursive: true });
  gitSync(dir, ['init', '-q', ...(options.bare ? ['--bare'] : []), '-b', options.defaultBranch ?? 'main', dir]);
  return dir;
}

/** A file's content (mode 100644), or its bytes and mode; null removes the path. */
export type SeedFile = string | Uint8Array | { bytes: string | Uint8Array; mode: string } | null;
export type Files = Record<string, SeedFile>;

export function refTip(repo: string, branch: string): string | null {
  try {
    return gitText(repo, 'rev-parse', '--verify', '-q', `refs/heads/${branch}`);
  } catch {
    return null;
  }
}

/**
 * Commits `files` on top of `branch` (keeping its other files) with a
 * throw-away index, so it works in bare repositories and never touches a work
 * tree. Returns the new commit id.
 */
export function commitFiles(repo: string, branch: string, files: Files, message = 'seed'): string {
  const env = { ...GIT_ENV, GIT_INDEX_FILE: join(tempDir('index'), 'index') };
  const run = (args: string[], input?: Uint8Array | string) => execFileSync('git', args, { cwd: repo, env, input }).toString('utf8').trim();
  const parent = refTip(repo, branch);
  if (parent !== null) run(['read-tree', parent]);
  for (const [path, file] of Object.entries(files)) {
    if (file === null) {
      // Mode 0 removes the entry (--index-info needs no work tree, so bare repositories take it too).
      run(['update-index', '--index-info'], `0 ${'0'.repeat(40)}\t${path}\n`);
      continue;
    }
    const { bytes, mode } = typeof file === 'string' || file instanceof Uint8Array ? { bytes: file, mode: '100644' } : file;
    const sha = run(['hash-object', '-w', '--no-filters', '--stdin'], bytes);
    run(['update-index', '--add', '--cacheinfo', `${mode},${sha},${path}`]);
  }
  const tree = run(['write-tree']);
  const commit = run(['commit-tree', tree, ...(parent === null ? [] : ['-p', parent]), '-m', message]);
  run(['update-ref', `refs/heads/${branch}`, commit]);
  return commit;
}

/** Every file of `commit` (recursively): path → mode and bytes. */
export function treeFiles(repo: string, commit: string): Map<string, { mode: string; bytes: Buffer }> {
  const out = new Map<string, { mode: string; bytes: Buffer }>();
  const listing = gitSync(repo, ['ls-tree', '-r', '-z', '--full-tree', commit]).toString('utf8');
  for (const record of listing.split('\0').filter((r) => r !== '')) {
    const [meta, path] = record.split('\t') as [string, string];
    const [mode, , sha] = meta.split(' ') as [string, string, string];
    out.set(path, { mode, bytes: gitSync(repo, ['cat-file', 'blob', sha]) });
  }
  return out;
}

export function parentsOf(repo: string, commit: string): string[] {
  return gitText(repo, 'rev-list', '--parents', '-n', '1', commit).split(' ').slice(1);
}
