/**
 * The fake GitHub's in-memory Git object database. Object ids are computed the
 * way Git computes them (SHA-1 over `<type> <size>\0<content>`), so blobs,
 * trees and commits have the ids a real repository would give them.
 */
import { createHash } from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  /** As the REST API spells it: `100644`, `100755`, `120000`, `040000`, `160000`. */
  mode: string;
  type: ObjectType;
  sha: string;
  name: string;
}

export interface Signature {
  name: string;
  email: string;
  /** ISO 8601, whole seconds, UTC. */
  date: string;
}

export interface CommitObject {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

/** A change for `ObjectStore.writeTree`: `sha: null` deletes the path. */
export interface TreeChange {
  path: string;
  mode: string;
  type: ObjectType;
  sha: string | null;
}

function objectId(type: ObjectType, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/** Git orders tree entries by name, comparing a subtree's name as if it ended in `/`. */
function sortKey(e: TreeEntry): Buffer {
  return Buffer.from(e.type === 'tree' ? `${e.name}/` : e.name, 'utf8');
}

export class ObjectStore {
  readonly blobs = new Map<string, Buffer>();
  readonly trees = new Map<string, TreeEntry[]>();
  readonly commits = new Map<string, CommitObject>();

  type(sha: string): ObjectType | null {
    if (this.blobs.has(sha)) return 'blob';
    if (this.trees.has(sha)) return 'tree';
    if (this.commits.has(sha)) return 'commit';
    return null;
  }

  putBlob(bytes: Uint8Array): string {
    const content = Buffer.from(bytes);
    const sha = objectId('blob', content);
    this.blobs.set(sha, content);
    return sha;
  }

  putTree(entries: TreeEntry[]): string {
    const sorted = [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
    const content = Buffer.concat(
      sorted.map((e) => Buffer.concat([Buffer.from(`${e.mode.replace(/^0+/, '')} ${e.name}\0`, 'utf8'), Buffer.from(e.sha, 'hex')])),
    );
    const sha = objectId('tree', content);
    this.trees.set(sha, sorted);
    return sha;
  }

  putCommit(commit: CommitObject): string {
    const sig = (s: Signature) => `${s.name} <${s.email}> ${Math.floor(Date.parse(s.date) / 1000)} +0000`;
    const lines = [`tree ${commit.tree}`, ...commit.parents.map((p) => `parent ${p}`), `author ${sig(commit.author)}`, `committer ${sig(commit.committer)}`];
    const sha = objectId('commit', Buffer.from(`${lines.join('\n')}\n\n${commit.message}`, 'utf8'));
    this.commits.set(sha, commit);
    return sha;
  }

  /** The entry at `path` (slash-separated) below `tree`, or null. */
  lookup(tree: string, path: string): TreeEntry | null {
    let entries = this.trees.get(tree);
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const entry = entries?.find((e) => e.name === parts[i]);
      if (entry === undefined) return null;
      if (i === parts.length - 1) return entry;
      if (entry.type !== 'tree') return null;
      entries = this.trees.get(entry.sha);
    }
    return null;
  }

  /**
   * A new tree: `base` (or empty) with `changes` applied; paths may be nested
   * and create or delete subdirectories, as `POST /git/trees` allows.
   */
  writeTree(base: string | null, changes: TreeChange[]): string {
    const entries = new Map((base === null ? [] : (this.trees.get(base) ?? [])).map((e) => [e.name, e]));
    const nested = new Map<string, TreeChange[]>();
    for (const change of changes) {
      const slash = change.path.indexOf('/');
      if (slash < 0) {
        if (change.sha === null) entries.delete(change.path);
        else entries.set(change.path, { mode: change.mode, type: change.type, sha: change.sha, name: change.path });
        continue;
      }
      const dir = change.path.slice(0, slash);
      nested.set(dir, [...(nested.get(dir) ?? []), { ...change, path: change.path.slice(slash + 1) }]);
    }
    for (const [dir, inner] of nested) {
      const current = entries.get(dir);
      const sub = this.writeTree(current?.type === 'tree' ? current.sha : null, inner);
      if (this.trees.get(sub)?.length === 0) entries.delete(dir);
      else entries.set(dir, { mode: '040000', type: 'tree', sha: sub, name: dir });
    }
    return this.putTree([...entries.values()]);
  }

  /** Every non-tree entry below `tree`, by full path. */
  flatten(tree: string, prefix = ''): Map<string, TreeEntry> {
    const out = new Map<string, TreeEntry>();
    for (const e of this.trees.get(tree) ?? []) {
      const path = `${prefix}${e.name}`;
      if (e.type === 'tree') for (const [p, sub] of this.flatten(e.sha, `${path}/`)) out.set(p, sub);
      else out.set(path, e);
    }
    return out;
  }

  /** Whether `ancestor` is `descendant` or reachable from it through parents. */
  isAncestor(ancestor: string, descendant: string): boolean {
    const seen = new Set<string>();
    const stack = [descendant];
    while (stack.length > 0) {
      const sha = stack.pop()!;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      stack.push(...(this.commits.get(sha)?.parents ?? []));
    }
    return false;
  }
}
