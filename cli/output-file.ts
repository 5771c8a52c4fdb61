/**
 * Files a command writes (`--out`, `--output`): a path that cannot be written is
 * `output_unwritable` (a missing directory, a directory in its place, no permission), and a
 * file that must be new but exists is `existsCode`; never an `internal_error`.
 */
import { writeFile } from 'node:fs/promises';
import { fail } from '../engine/errors.ts';

export interface WriteOptions {
  /** The file must not exist yet (written with the `wx` flag). */
  exclusive?: boolean;
  /** The code when an exclusive file exists (default `output_exists`). */
  existsCode?: string;
}

export async function writeOutputFile(path: string, data: string, options: WriteOptions = {}): Promise<void> {
  try {
    await writeFile(path, data, options.exclusive === true ? { flag: 'wx' } : {});
  } catch (e) {
    fail(...outputFailure(path, e, options));
  }
}

/** The code and message for a failed write of `path` (also for writers other than `writeOutputFile`). */
export function outputFailure(path: string, e: unknown, options: WriteOptions = {}): [string, string] {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EEXIST' && options.exclusive === true) return [options.existsCode ?? 'output_exists', `${path} exists; write a new file`];
  return ['output_unwritable', `cannot write ${path}: ${code ?? String(e)}`];
}
