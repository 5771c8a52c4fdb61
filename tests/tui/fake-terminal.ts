/**
 * A fake terminal for driving the real browser (`startTui`) in-process: ink renders to
 * `FakeStdout` (a TTY of a given size that keeps every frame) and reads terminal bytes
 * written to `FakeStdin`. Plus the small Git and CLI helpers the integration tests share.
 */
import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { runFairway } from '../support/cli.ts';
import { fixtureRepo, git } from '../support/fixture-repo.ts';

export { git };

export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(args, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

/** A fresh Git repository with one commit on main and the worker workflow (a queue's first submission needs it). */
export function projectRepo(): string {
  return fixtureRepo('fairway-tui-');
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

/** Types `bytes` into the browser, then waits until `settled` holds and its controller is idle. */
export function typer(stdin: FakeStdin, tui: { controller: { idle(): Promise<void> } }) {
  return async (bytes: string, settled: () => boolean, what: string): Promise<void> => {
    stdin.write(bytes);
    await until(what, settled);
    await tui.controller.idle();
  };
}
