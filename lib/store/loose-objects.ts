/**
 * Writing the ledger commit's objects (blob, tree, commit) as loose objects from this process,
 * instead of spawning `hash-object`, `ls-tree`, `mktree` and `commit-tree` (docs/performance.md,
 * "Local Git publication": within 1.3× of `git hash-object -w` of the same blob). The objects are exactly
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
import { closeSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';

/** Bodies up to this size are deflated on the spot; larger ones stream through zlib's thread pool. */
const SMALL = 64 * 1024;
/** zlib output chunk for large bodies (fewer round trips and file writes than the 16 KiB default). */
const CHUNK = 1024 * 1024;

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

/**
 * Writes one object whose body is `body` (or the pieces `body` lists, in order, never joined
 * into one copy); returns its hex id. A large body is deflated by zlib on the thread pool while
 * this thread hashes it (and the caller's next synchronous work, such as starting the ref
 * update's git, runs meanwhile), straight into a temporary file that is renamed into place.
 * An object already present is replaced by the same bytes under the same name.
 */
export function writeObject(db: ObjectDatabase, type: 'blob' | 'tree' | 'commit', body: Uint8Array | readonly Uint8Array[]): Promise<string> {
  const parts = body instanceof Uint8Array ? [body] : body;
  const size = parts.reduce((n, p) => n + p.length, 0);
  const header = Buffer.from(`${type} ${size}\0`, 'latin1');
  const tmp = join(db.dir, `tmp_obj_fairway_${process.pid}_${randomBytes(6).toString('hex')}`);
  const hashOf = (): string => {
    const hash = createHash(db.format === 'sha1' ? 'sha1' : 'sha256').update(header);
    for (const p of parts) hash.update(p);
    return hash.digest('hex');
  };
  let fd: number | null = null;
  const abandon = (e: unknown): never => {
    if (fd !== null) closeSync(fd);
    fd = null;
    try {
      unlinkSync(tmp);
    } catch {
      // not created
    }
    throw e;
  };
  try {
    if (size <= SMALL) {
      // A tree, a commit, a small ledger: cheaper written at once than through the thread pool.
      const id = hashOf();
      writeFileSync(tmp, deflateSync(Buffer.concat([header, ...parts]), { level: 1 }), { mode: 0o444, flag: 'wx' });
      renameInto(db, id, tmp);
      return Promise.resolve(id);
    }
    fd = openSync(tmp, 'wx', 0o444);
    const file = fd;
    const zlib = createDeflate({ level: 1, chunkSize: CHUNK });
    const deflated = new Promise<void>((resolve, reject) => {
      zlib.on('data', (chunk: Buffer) => {
        try {
          for (let at = 0; at < chunk.length;) at += writeSync(file, chunk, at);
        } catch (e) {
          zlib.destroy(e as Error);
        }
      });
      zlib.on('end', resolve);
      zlib.on('error', reject);
    });
    zlib.write(header);
    for (const p of parts) zlib.write(p);
    zlib.end();
    const id = hashOf(); // overlaps the deflate
    return deflated.then(() => {
      closeSync(file);
      fd = null;
      renameInto(db, id, tmp);
      return id;
    }, abandon);
  } catch (e) {
    return Promise.reject(e).catch(abandon);
  }
}

/** Renames `tmp` to the object's path, creating its fan-out folder when it is missing. */
function renameInto(db: ObjectDatabase, id: string, tmp: string): void {
  const target = join(db.dir, id.slice(0, 2), id.slice(2));
  try {
    renameSync(tmp, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(join(db.dir, id.slice(0, 2)), { recursive: true });
    renameSync(tmp, target);
  }
}

/** Tree object body: entries sorted as git sorts them (a tree's name compares as `name/`). */
export function treeBody(entries: TreeEntry[]): Buffer {
  const key = (e: TreeEntry): Buffer => (e.mode === '40000' ? Buffer.concat([e.name, Buffer.from('/')]) : e.name);
  const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} `, 'latin1'), e.name, Buffer.from([0]), e.id]));
}

/** The entries of a tree object's body (`<mode> <name>\0<binary id>` each). */
export function entriesOfTree(body: Buffer, format: 'sha1' | 'sha256'): TreeEntry[] {
  const idLength = format === 'sha1' ? 20 : 32;
  const entries: TreeEntry[] = [];
  for (let at = 0; at < body.length;) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + idLength > body.length) throw new Error('malformed tree object');
    entries.push({ mode: body.subarray(at, space).toString('latin1'), name: body.subarray(space + 1, nul), id: body.subarray(nul + 1, nul + 1 + idLength) });
    at = nul + 1 + idLength;
  }
  return entries;
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
