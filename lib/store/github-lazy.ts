/**
 * A GitHub ledger store that loads the GitHub client (Octokit and its plugins) on its first
 * request, so a command that can open a store but runs on a local repository (or only prints
 * its help) never loads it. `openStore` returns one for `--github`; it answers every
 * `LedgerStore` call through the real store (GraphQL or REST, as chosen), created once.
 * The target and the timeouts are checked at once, like the real store's constructor.
 */
import type { GitHubStoreOptions } from './github.ts';
import { gitHubTarget } from './github-target.ts';
import { storeTimeouts } from './github-timeouts.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore, RepositoryRevision } from './types.ts';

/** Which GitHub API a GitHub store speaks (see `OpenStoreOptions.githubApi`). */
export type GitHubApiKind = 'graphql' | 'rest';

export class LazyGitHubStore implements LedgerStore {
  readonly label: string;
  readonly branch: string;
  private loading: Promise<LedgerStore> | null = null;

  constructor(
    readonly api: GitHubApiKind,
    private readonly options: GitHubStoreOptions,
  ) {
    const target = gitHubTarget(options);
    storeTimeouts(options.timeouts);
    this.label = target.label;
    this.branch = target.branch;
  }

  /** The real store (`GitHubGraphqlStore` or `GitHubStore`), loaded and created on first use. */
  store(): Promise<LedgerStore> {
    this.loading ??= this.api === 'graphql'
      ? import('./github-graphql.ts').then((m) => new m.GitHubGraphqlStore(this.options))
      : import('./github.ts').then((m) => new m.GitHubStore(this.options));
    return this.loading;
  }

  async read(): Promise<LedgerSnapshot> {
    return (await this.store()).read();
  }

  async readVersion(): Promise<string | null> {
    return (await this.store()).readVersion!();
  }

  async readAt(version: string): Promise<Uint8Array | null> {
    return (await this.store()).readAt!(version);
  }

  async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    return (await this.store()).compareAndSwap(expected, bytes, message);
  }

  async readDefaultBranchFile(path: string): Promise<Uint8Array | null> {
    return (await this.store()).readDefaultBranchFile(path);
  }

  async defaultRevision(): Promise<RepositoryRevision | null> {
    return (await this.store()).defaultRevision!();
  }
}
