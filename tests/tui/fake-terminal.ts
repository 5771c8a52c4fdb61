/**
 * A fake terminal for driving the real browser (`startTui`) in-process: ink renders to
 * `FakeStdout` (a TTY of a given size that keeps every frame) and reads terminal bytes
 * written to `FakeStdin`. Plus the small Git and CLI helpers the integration tests share.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { runFairway } from '../support/cli.ts';
import { WORKER_WORKFLOW, workerWorkflowYaml } from '../support/worker-workflow.ts';

export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
}

export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** A fresh Git repository with one commit on main and the worker workflow (a queue's first submission needs it). */
export function projectRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'fairway-tui-'));
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'project\n');
  mkdirSync(join(repo, '.github/workflows'), { recursive: true });
  writeFileSync(join(repo, WORKER_WORKFLOW), workerWorkflowYaml());
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
  return repo;
}

export class FakeStdin extends PassThrough {
  isTTY = true;
  setRawMode(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

export class FakeStdout extends Writable {
  isTTY = true;
  columns = 120;
  rows = 30;
  frames: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.frames.push(String(chunk));
    done();
  }
  /** The latest full frame (debug mode writes every frame whole). */
  screen(): string {
    return stripVTControlCharacters(this.frames.at(-1) ?? '');
  }
  /** The terminal changes size, as a window resize (SIGWINCH) tells a TTY stream. */
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

export async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
