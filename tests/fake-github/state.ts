/**
 * The fake GitHub's repositories: refs, default branch and an object store per
 * repository, plus helpers tests use to seed and inspect them directly.
 */
import { ObjectStore, type TreeChange } from './objects.ts';

export interface FakeRepository {
  owner: string;
  name: string;
  /** Numeric repository id (GitHub ids are int64; these stay small). */
  id: number;
  defaultBranch: string;
  /** Full ref name (`refs/heads/main`) → commit id. */
  refs: Map<string, string>;
  objects: ObjectStore;
  createdAt: string;
  /**
   * Fault injection (a lagging replica): full ref name → how many more reads
   * (REST `GET /git/ref`, GraphQL `ref(qualifiedName:)`) answer as if the ref
   * did not exist. Set on creation from `FakeGitHubState.refReadLag`.
   */
  laggingReads?: Map<string, number>;
}

/** A seeded file: bytes (mode 100644) or bytes with a mode. */
/** A file's content (mode 100644), or its bytes and mode; null removes the path. */
export type SeedFile = string | Uint8Array | { bytes: string | Uint8Array; mode: string } | null;

export const FAKE_USER = { login: 'fairway-fake', id: 583231, name: 'Fairway Fake', email: 'fake@users.noreply.github.com' };

export class FakeGitHubState {
  readonly repos = new Map<string, FakeRepository>();
  /** Fault injection: every ref created from now on reads as absent for this many reads (default 0). */
  refReadLag = 0;
  private nextId = 1296269;

  createRepo(owner: string, name: string, options: { defaultBranch?: string } = {}): FakeRepository {
    const repo: FakeRepository = {
      owner,
      name,
      id: this.nextId++,
      defaultBranch: options.defaultBranch ?? 'main',
      refs: new Map(),
      objects: new ObjectStore(),
      createdAt: isoNow(),
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repo);
    return repo;
  }

  repo(owner: string, name: string): FakeRepository | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }
}

/** A ref was created through the API: a lagging replica will not show it for `state.refReadLag` reads. */
export function noteRefCreated(state: FakeGitHubState, repo: FakeRepository, ref: string): void {
  if (state.refReadLag > 0) (repo.laggingReads ??= new Map()).set(ref, state.refReadLag);
}

/** Whether a read of an existing ref sees it (false while its replica lags; each call is one read). */
export function refVisible(repo: FakeRepository, ref: string): boolean {
  const left = repo.laggingReads?.get(ref) ?? 0;
  if (left <= 0) return true;
  repo.laggingReads!.set(ref, left - 1);
  return false;
}

/** The current time as GitHub prints it: ISO 8601, whole seconds, `Z`. */
export function isoNow(): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Test seeding: commits `files` onto `branch` (its tip as parent, keeping every
 * other file) and moves the branch. Returns the new commit id.
 */
export function seedCommit(repo: FakeRepository, branch: string, files: Record<string, SeedFile>, message = 'seed'): string {
  const ref = `refs/heads/${branch}`;
  const parent = repo.refs.get(ref) ?? null;
  const changes: TreeChange[] = Object.entries(files).map(([path, file]) => {
    if (file === null) return { path, mode: '100644', type: 'blob', sha: null };
    const { bytes, mode } = typeof file === 'string' || file instanceof Uint8Array ? { bytes: file, mode: '100644' } : file;
    return { path, mode, type: 'blob', sha: repo.objects.putBlob(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes) };
  });
  const base = parent === null ? null : repo.objects.commits.get(parent)!.tree;
  const tree = repo.objects.writeTree(base, changes);
  const who = { name: FAKE_USER.name, email: FAKE_USER.email, date: isoNow() };
  const commit = repo.objects.putCommit({ tree, parents: parent === null ? [] : [parent], author: who, committer: who, message });
  repo.refs.set(ref, commit);
  return commit;
}
