/**
 * Fixture repositories for CLI tests on real Git: a `main` branch with a README and the
 * worker workflow (bootstrap installs only verified worker routes), committed once; the CLI
 * on such a repository, its queue branch's tip, and a folder of input files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFairway } from './cli.ts';
import { writeWorkerWorkflow } from './worker-workflow.ts';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };

/** Runs git in `repo` and returns its trimmed standard output. */
export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim();
}

/** A new repository under the temporary directory, its default branch holding one commit. */
export function fixtureRepo(prefix: string): string {
  const repo = mkdtempSync(join(tmpdir(), prefix));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'project\n');
  writeWorkerWorkflow(repo);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

/** The queue branch's tip commit, or null when the queue does not exist yet. */
export function queueTip(repo: string): string | null {
  try {
    return git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/work-queue');
  } catch {
    return null;
  }
}

/** `fairway --repo <repo> --json ...args` through the real entry point (tests/support/cli.ts). */
export async function repoCli(repo: string, ...args: string[]): Promise<{ code: number; json: any }> {
  let out = '';
  const code = await runFairway(['--repo', repo, '--json', ...args], { out: (s) => (out += s), err: () => undefined });
  return { code, json: JSON.parse(out) };
}

/** A new folder for a test's input files: `file(name, value)` writes `value` as JSON (a string as given) and returns its path. */
export function inputFiles(prefix: string): (name: string, value: unknown) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return (name, value) => {
    const path = join(dir, name);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    return path;
  };
}

/** One CLI run on `repo` (`--dir repo`): exit code, stdout, stderr; a `--json` run's stdout parsed. */
export async function dirCli(repo: string, ...args: string[]): Promise<{ code: number; out: string; err: string; json: any }> {
  let out = '';
  let err = '';
  const line = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
  const code = await runFairway(['--dir', repo, ...args], { out: (s) => (out += line(s)), err: (s) => (err += line(s)) });
  return { code, out, err, json: args.includes('--json') ? JSON.parse(out) : undefined };
}

/** The queue branch as it stands: its tip and its ledger text (null: no queue). */
export function queueLedger(repo: string): { tip: string | null; text: string | null } {
  const tip = queueTip(repo);
  return { tip, text: tip === null ? null : git(repo, 'show', `${tip}:work-queue.jsonl`) };
}

/** Writes (a string) or deletes (null) files on the repository's main branch and commits them (an empty commit when nothing changed); returns the commit. */
export function commitOnMain(repo: string, files: Record<string, string | null>, message = 'change'): string {
  for (const [path, body] of Object.entries(files)) {
    if (body === null) rmSync(join(repo, path));
    else {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), body);
    }
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '--allow-empty', '-m', message);
  return git(repo, 'rev-parse', 'main');
}
