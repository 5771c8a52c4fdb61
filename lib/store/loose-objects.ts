/**
 * Writing the ledger commit's objects (blob, tree, commit) as loose objects from this process,
 * instead of spawning `hash-object`, `ls-tree`, `mktree` and `commit-tree` (issue 13 §4: a local
 * publication within 1.3× of `git hash-object -w` of the same blob). The objects are exactly
 * what those commands write: `<type> <size>\0<body>` deflated with zlib at git's default loose
 * compression, named by its SHA-1 or SHA-256 (the repository's object format), written to a
 * temporary file and renamed into place read-only, so a concurrent reader sees the object whole
 * or not at all. The ref itself is still moved by `git update-ref` (the compare-and-swap).
 *
 * Only the repository facts git reports are used (`rev-parse --git-path objects`,
 * `--show-object-format`); a repository this module cannot serve (an unknown object format, a
 * commit date given in a format git parses but we do not) takes the plumbing path.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate as deflateCb } from 'node:zlib';

const deflate = promisify(deflateCb);

export interface ObjectDatabase {
  /** Absolute path of the repository's object directory. */
  dir: string;
  format: 'sha1' | 'sha256';
}

export interface TreeEntry {
  mode: string;
  name: Buffer;
  /** Binary object id. */
  id: Buffer;
}

/** Writes one object; returns its hex id. Existing objects are left as they are (same name, same content). */
export async function writeObject(db: ObjectDatabase, type: 'blob' | 'tree' | 'commit', body: Uint8Array): Promise<string> {
  const header = Buffer.from(`${type} ${body.length}\0`, 'latin1');
  const id = createHash(db.format === 'sha1' ? 'sha1' : 'sha256').update(header).update(body).digest('hex');
  const data = await deflate(Buffer.concat([header, body]), { level: 1 });
  const folder = join(db.dir, id.slice(0, 2));
  await mkdir(folder, { recursive: true });
  const tmp = join(folder, `tmp_obj_fairway_${process.pid}_${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(tmp, data, { mode: 0o444, flag: 'wx' });
    await rename(tmp, join(folder, id.slice(2)));
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  return id;
}

/** Tree object body: entries sorted as git sorts them (a tree's name compares as `name/`). */
export function treeBody(entries: TreeEntry[]): Buffer {
  const key = (e: TreeEntry): Buffer => (e.mode === '40000' ? Buffer.concat([e.name, Buffer.from('/')]) : e.name);
  const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} `, 'latin1'), e.name, Buffer.from([0]), e.id]));
}

/** `git ls-tree -z --full-tree` records (`<mode> <type> <id>\t<name>`) as tree entries. */
export function entriesOfListing(records: Buffer[]): TreeEntry[] {
  return records.map((record) => {
    const tab = record.indexOf(0x09);
    const [mode, , id] = record.subarray(0, tab).toString('latin1').split(' ');
    // ls-tree prints a tree's mode as 040000; the object stores 40000.
    return { mode: mode === '040000' ? '40000' : mode!, name: record.subarray(tab + 1), id: Buffer.from(id!, 'hex') };
  });
}

/** Commit body as `git commit-tree` writes it for our fixed identity (no signature, message as given). */
export function commitBody(tree: string, parent: string | null, when: { seconds: number; offset: string }, message: string): Buffer {
  const ident = `fairway <fairway@localhost> ${when.seconds} ${when.offset}`;
  const head = `tree ${tree}\n${parent === null ? '' : `parent ${parent}\n`}author ${ident}\ncommitter ${ident}\n\n`;
  return Buffer.from(head + message, 'utf8');
}

/** The commit time for `date` (unset: now); null when `date` is not the raw form `[@]<seconds> <±hhmm>` (then the plumbing path lets git parse it). */
export function commitTime(date: string | undefined, now = Date.now()): { seconds: number; offset: string } | null {
  if (date === undefined) return { seconds: Math.floor(now / 1000), offset: '+0000' };
  const raw = /^@?(\d+) ([+-]\d{4})$/.exec(date);
  if (raw !== null) return { seconds: Number(raw[1]), offset: raw[2]! };
  return null;
}
