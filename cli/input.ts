/**
 * Input files of the CLI: every option that takes a file to read accepts `-` for
 * standard input (README "Global options"). Standard input can be read once per run, so
 * `-` for two options of one command is a usage error (`stdin_reused`).
 */
import { readFile } from 'node:fs/promises';
import { fail } from '../engine/errors.ts';
import { readLedgerFile } from '../lib/ledger-file.ts';
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
  return new Uint8Array(Buffer.concat(chunks));
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

/** `path` (`-`: standard input) parsed as JSON; not JSON is `input_invalid`. */
export async function readJsonInput(path: string, what: string): Promise<unknown> {
  const text = new TextDecoder().decode(await readInput(path, what));
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail('input_invalid', `${what} ${path === STDIN ? '(standard input)' : path} is not JSON: ${(e as Error).message}`);
  }
}

/** The bytes of `--ledger FILE` (`-`: standard input). */
export async function readLedgerInput(path: string): Promise<Uint8Array> {
  return path === STDIN ? readStdin('--ledger') : readLedgerFile(path);
}
