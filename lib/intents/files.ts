/**
 * Small file helpers for the agent boundary: JSON files are written
 * atomically (a temporary file in the same directory, then rename), so a
 * reader never sees half an intent, receipt or snapshot.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fail } from '../../engine/errors.ts';

export async function writeFileAtomic(path: string, text: string, flag: 'w' | 'wx' = 'w'): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temp, text, { encoding: 'utf8', flag: 'wx', mode: 0o600 });
  try {
    // Exclusive (`wx`): a hard link appears atomically and fails if the name exists.
    if (flag === 'wx') await link(temp, path);
    else await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}

export async function writeJsonAtomic(path: string, value: unknown, flag: 'w' | 'wx' = 'w'): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, flag);
}

/** A file's bytes; missing → `<what>_missing`, otherwise unreadable → `<what>_unreadable`. */
export async function readNamedFile(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? `${what}_missing` : `${what}_unreadable`, `cannot read ${what} ${path}: ${code ?? String(e)}`);
  }
}

/** Reads and parses a JSON file; unreadable → `<what>_unreadable` (`readNamedFile`), not JSON → `<what>_invalid`. */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  const text = (await readNamedFile(path, what)).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    return fail(`${what}_invalid`, `${what} ${path} is not JSON: ${(e as Error).message}`);
  }
}
