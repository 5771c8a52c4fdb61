/**
 * The store contract's fixture (contract.ts `StoreFixture`) over one repository of the fake
 * GitHub: its authority is the fake's object store and refs, read directly. Shared by the REST,
 * GraphQL and GitHub Enterprise Server contract runs.
 */
import { seedCommit, type FakeRepository } from '../fake-github/state.ts';
import type { LedgerStore } from '../../lib/store/types.ts';
import type { StoreFixture } from './contract.ts';

/** The fake repository's queue branch tip (read directly, not through a store). */
export const tipOf = (repo: FakeRepository): string | null => repo.refs.get('refs/heads/work-queue') ?? null;

export function fakeRepositoryFixture(repo: FakeRepository, makeStore: () => LedgerStore): StoreFixture {
  return {
    queueBranch: 'work-queue',
    makeStore,
    tip: async () => tipOf(repo),
    seed: async (branch, files) => seedCommit(repo, branch, files),
    files: async (commit) => {
      const out = new Map<string, { mode: string; bytes: Buffer }>();
      for (const [path, e] of repo.objects.flatten(repo.objects.commits.get(commit)!.tree)) out.set(path, { mode: e.mode, bytes: repo.objects.blobs.get(e.sha)! });
      return out;
    },
    parents: async (commit) => repo.objects.commits.get(commit)!.parents,
    setDefaultBranch: async (branch) => void (repo.defaultBranch = branch),
  };
}
