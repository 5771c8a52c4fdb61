/**
 * Input files of the CLI: every option that takes a file to read accepts `-` for
 * standard input (README "Global options"). Standard input can be read once per run, so
 * `-` for two options of one command is a usage error (`stdin_reused`).
 */
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { fail } from '../engine/errors.ts';
import { parseJsonInput } from '../lib/json-input.ts';
import { readLedgerFile } from '../lib/ledger-file.ts';
import { ledgerBuffer } from '../lib/replay/thread-verifier.ts';
import { UsageError } from './output.ts';

export const STDIN = '-';

/** The ceiling on bytes read from standard input (the parser's absolute limit, 80 MiB). */
const STDIN_BYTES = 83_886_080;

let stdinTakenBy: string | undefined;

/** Reads all of standard input (once per run); `what` names the option for the error message. */
export async function readStdin(what: string): Promise<Uint8Array> {
  if (stdinTakenBy !== undefined) throw new UsageError(`${what} - and ${stdinTakenBy} - both read standard input; give a file to one of them`, 'stdin_reused');
  stdinTakenBy = what;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > STDIN_BYTES) fail('resource_limit', `standard input for ${what} is over ${STDIN_BYTES} bytes`, {}, { limit: 'stdin_bytes', max: STDIN_BYTES });
    chunks.push(b);
  }
  // Into thread-verifier.ts `ledgerBuffer`: a ledger-sized input lands in memory replay's worker threads share.
  const out = ledgerBuffer(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return new Uint8Array(out.buffer, out.byteOffset, size);
}

/** The bytes of `path` (`-`: standard input); unreadable files are `input_unreadable`. */
export async function readInput(path: string, what: string): Promise<Uint8Array> {
  if (path === STDIN) return readStdin(what);
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    return fail('input_unreadable', `cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/**
 * A directory a command reads files from by name (`reconcile --receipts DIR`), checked before
 * anything is read or written: a mistyped or missing path is not quietly a directory without
 * files. Missing is `<what>_not_found`; a file, or a directory that cannot be searched,
 * `<what>_unreadable` (as `--ledger`, `--settings` and `--workload` report their files; exit 3).
 */
export async function checkInputDirectory(path: string, flag: string, what: string): Promise<void> {
  let directory: boolean;
  try {
    directory = (await stat(path)).isDirectory();
    if (directory) await access(path, constants.X_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? `${what}_not_found` : `${what}_unreadable`, `cannot read ${flag} directory ${path}: ${code ?? String(e)}`);
  }
  if (!directory) fail(`${what}_unreadable`, `${flag} ${path} is not a directory`);
}

/**
 * `path` (`-`: standard input) parsed as JSON within the wire profile (spec 7.6, "Canonical
 * encoding"), since what it holds is written to the ledger as it was read: UTF-8 only, and no
 * duplicated keys, non-canonical numbers (`1e3`, `1.5`, `-0`, past 2^53) or unpaired
 * surrogates. `JSON.parse` would quietly keep the last of two keys, turn `1e3` into 1000 and
 * an invalid byte into U+FFFD. Anything refused is `code` (default `input_invalid`) with the
 * parser's own code as `details.reason`.
 */
export async function readJsonInput(path: string, what: string, code = 'input_invalid'): Promise<unknown> {
  return parseJsonInput(await readInput(path, what), `${what} ${path === STDIN ? '(standard input)' : path}`, code);
}

/** The bytes of `--ledger FILE` (`-`: standard input). */
export async function readLedgerInput(path: string): Promise<Uint8Array> {
  return path === STDIN ? readStdin('--ledger') : readLedgerFile(path);
}
