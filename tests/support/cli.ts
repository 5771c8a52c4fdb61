/**
 * The one way tests run the `fairway` CLI in-process. It is `main(argv, io)` plus a
 * guard: an `internal_error` (exit 70, or the code in any output) is a bug in Fairway,
 * never an expected verdict, so the run fails the test unless the test says it expects
 * one (`{ expectInternalError: true }`).
 */
import { expect } from 'vitest';
import { main } from '../../cli/main.ts';
import { EXIT_INTERNAL, type Io } from '../../cli/output.ts';

export interface RunOptions {
  /** The test is about an internal fault (asserts it itself). */
  expectInternalError?: boolean;
}

export async function runFairway(argv: string[], io: Io, options: RunOptions = {}): Promise<number> {
  let seen = '';
  const tee: Io = {
    out: (s) => {
      seen += s;
      io.out(s);
    },
    err: (s) => {
      seen += s;
      io.err(s);
    },
  };
  const code = await main(argv, tee);
  if (options.expectInternalError !== true) {
    const internal = code === EXIT_INTERNAL || /"internal_error"|fairway: internal error/.test(seen);
    expect(internal, `fairway ${argv.join(' ')} hit an internal error (a bug, exit ${code}):\n${seen}`).toBe(false);
  }
  return code;
}

/** One captured in-process run: exit code, stdout, stderr (each line LF-terminated) and stdout as JSON (null for human output). */
export interface CapturedRun {
  code: number;
  out: string;
  err: string;
  /** Each test reads its command's own shape. */
  json: any;
}

/** `runFairway` with its output captured. */
export async function runCaptured(argv: string[], options: RunOptions = {}): Promise<CapturedRun> {
  let out = '';
  let err = '';
  const code = await runFairway(argv, { out: (s) => void (out += s.endsWith('\n') ? s : `${s}\n`), err: (s) => void (err += s.endsWith('\n') ? s : `${s}\n`) }, options);
  let json: unknown = null;
  try {
    json = JSON.parse(out);
  } catch {
    // human output
  }
  return { code, out, err, json };
}
