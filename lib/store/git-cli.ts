/**
 * Running the git CLI for the Git ledger stores: no shell, no prompts, a fixed
 * identity (commits work on machines without git config), binary-exact stdout.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ProtocolError } from '../../engine/errors.ts';
import type { EventMeta } from '../debug/events.ts';
import { debugEvent, since } from '../debug/log.ts';
import { LEDGER_MAX_BYTES } from './checks.ts';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitContext {
  /** Directory git runs in (a work tree, or a bare repository). */
  cwd: string;
  /** Commit date for author and committer (any format git accepts); unset: now. */
  date?: string;
}

/** Variables that would redirect git away from `cwd` or into the real index. */
const INHERITED_OVERRIDES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_NAMESPACE', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

export function gitEnv(ctx: GitContext): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_OVERRIDES) delete env[name];
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    LC_ALL: 'C',
    LANGUAGE: 'C',
    GIT_AUTHOR_NAME: 'fairway',
    GIT_AUTHOR_EMAIL: 'fairway@localhost',
    GIT_COMMITTER_NAME: 'fairway',
    GIT_COMMITTER_EMAIL: 'fairway@localhost',
  });
  if (ctx.date !== undefined) {
    env.GIT_AUTHOR_DATE = ctx.date;
    env.GIT_COMMITTER_DATE = ctx.date;
  }
  return env;
}

/**
 * Runs `git args...` in `ctx.cwd`; resolves with the exit code (never rejects on
 * a non-zero exit). Output beyond the ledger ceiling (plus headroom) is an error.
 */
export function git(ctx: GitContext, args: string[], input?: Uint8Array): Promise<GitResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: ctx.cwd, env: gitEnv(ctx), encoding: 'buffer', maxBuffer: LEDGER_MAX_BYTES, windowsHide: true },
      (error, stdout, stderr) => {
        debugEvent('store', 'git', { command: gitCommand(args[0]), exit: typeof (error as { code?: unknown } | null)?.code === 'number' ? (error as { code: number }).code : error === null ? 0 : -1, ms: since(started) });
        const err = error as (NodeJS.ErrnoException & { code?: string | number | null; signal?: string | null }) | null;
        if (err && (err.code === null || err.code === undefined) && err.signal) {
          // Killed by a signal (e.g. SIGPIPE when the remote hung up): a failed run, not a spawn error.
          resolve({ code: 128, stdout, stderr: `${stderr.toString('utf8')}\nterminated by ${err.signal}` });
          return;
        }
        if (err && typeof err.code !== 'number') {
          if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
            reject(new ProtocolError('resource_limit', `git ${args[0]} produced more than ${LEDGER_MAX_BYTES} bytes (the ledger parser limit)`, {}, { limit: 'ledger_bytes', max: LEDGER_MAX_BYTES }));
          } else if (err.code === 'ENOENT' && !existsSync(ctx.cwd)) {
            reject(new ProtocolError('not_a_git_repository', `${ctx.cwd} does not exist`, {}, { path: ctx.cwd }));
          } else if (err.code === 'ENOENT') {
            reject(new ProtocolError('git_unavailable', 'the git executable was not found on PATH'));
          } else {
            reject(new ProtocolError('store_git_failed', `git ${args[0]} failed to run: ${err.message}`));
          }
          return;
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr: stderr.toString('utf8') });
      },
    );
    child.stdin?.on('error', () => undefined); // git may exit before reading all input; the exit code tells
    child.stdin?.end(input === undefined ? undefined : Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  });
}

/** Like `git`, but any non-zero exit is a `store_git_failed` error. */
export async function gitOk(ctx: GitContext, args: string[], input?: Uint8Array): Promise<Buffer> {
  const r = await git(ctx, args, input);
  if (r.code !== 0) throw gitFailure(args, r);
  return r.stdout;
}

export function gitFailure(args: string[], r: GitResult, code = 'store_git_failed'): ProtocolError {
  const line = lastLine(r.stderr) || `exit ${r.code}`;
  return new ProtocolError(code, `git ${args[0]} failed: ${line}`, {}, { exit: r.code, stderr: r.stderr.trim().slice(0, 2000) });
}

export function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}

const GIT_COMMANDS = new Set(['cat-file', 'commit-tree', 'fetch', 'for-each-ref', 'hash-object', 'ls-remote', 'ls-tree', 'mktree', 'push', 'remote', 'rev-parse', 'symbolic-ref', 'update-ref']);

/** The plumbing command for a debug event (`-c key=value` prefixes and anything unlisted: `other`). */
function gitCommand(first: string | undefined): EventMeta<'store', 'git'>['command'] {
  return (first !== undefined && GIT_COMMANDS.has(first) ? first : 'other') as EventMeta<'store', 'git'>['command'];
}
