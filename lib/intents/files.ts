/**
 * Small file helpers for the agent boundary: JSON files are written
 * atomically (a temporary file in the same directory, then rename), so a
 * reader never sees half an intent, receipt or snapshot.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fail, isProtocolError } from '../../engine/errors.ts';

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

/**
 * The bytes of a regular file the agent may have placed (a staged intent): a symbolic link is
 * refused, not followed (it could point at any file the trusted step can read, whose text would
 * reach the receipts), a FIFO or device is refused without waiting on it, and a file over
 * `maxBytes` is refused before it is read. Each is `<what>_unreadable` (missing: `<what>_missing`).
 */
export async function readAgentFile(path: string, what: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return fail(`${what}_unreadable`, `${what} ${path} is a symbolic link: only regular files are read`);
    return fail(code === 'ENOENT' ? `${what}_missing` : `${what}_unreadable`, `cannot read ${what} ${path}: ${code ?? String(e)}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return fail(`${what}_unreadable`, `${what} ${path} is not a regular file`);
    if (info.size > maxBytes) return fail(`${what}_unreadable`, `${what} ${path} is ${info.size} bytes, more than the ${maxBytes} it can be`);
    // Read at most one byte past the limit: a file that grew since is refused too.
    const bytes = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === bytes.length) break;
    }
    if (filled > maxBytes) return fail(`${what}_unreadable`, `${what} ${path} is more than the ${maxBytes} bytes it can be`);
    return bytes.subarray(0, filled);
  } catch (e) {
    if (isProtocolError(e)) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    return fail(`${what}_unreadable`, `cannot read ${what} ${path}: ${code ?? String(e)}`);
  } finally {
    await handle.close();
  }
}

/**
 * `dir`/`name` is a directory of its own, or absent: a symbolic link (or a file) there is
 * `output_unwritable`, so the trusted step never writes through a link the agent placed; so is
 * a `*.json` entry in it that is not a regular file.
 */
export async function refuseLinkedDirectory(dir: string, name: string): Promise<void> {
  const path = join(dir, name);
  let info;
  try {
    info = await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (!info.isDirectory()) fail('output_unwritable', `${path} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: the trusted step writes only into a directory of its own`);
  // The files the run writes there (`<dispatch id>.json`) have names an agent can predict (request
  // and dispatch ids are derived): a directory, link or FIFO planted under one such name would make
  // the write fail after its grant was published. Refused here, before anything is published.
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.name.endsWith('.json') && !entry.isFile()) {
      fail('output_unwritable', `${join(path, entry.name)} is not a regular file: the trusted step writes only its own files there`);
    }
  }
}

/** Parses JSON text read from `path`; not JSON → `<what>_invalid`. */
export function parseJsonFile(bytes: Buffer, path: string, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (e) {
    return fail(`${what}_invalid`, `${what} ${path} is not JSON: ${(e as Error).message}`);
  }
}

/** Reads and parses a JSON file; unreadable → `<what>_unreadable` (`readNamedFile`), not JSON → `<what>_invalid`. */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  return parseJsonFile(await readNamedFile(path, what), path, what);
}
