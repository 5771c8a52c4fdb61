/**
 * Opens the ledger store a console configuration names: the same stores as the
 * CLI (`lib/store/open.ts`) for repositories, remotes and GitHub (token from
 * GH_TOKEN / GITHUB_TOKEN, read here and never logged), or a read-only file;
 * and the GitHub host whose pages the console links to.
 */
import type { LedgerStore } from '../store/types.ts';
import { openStore } from '../store/open.ts';
import type { ConsoleSource } from './config.ts';
import { FileStore } from '../store/file.ts';
import { DOTCOM_HOST, explicitApiRoot, servedHost } from '../github/host.ts';

export function openConsoleStore(source: ConsoleSource, env: Readonly<Record<string, string | undefined>> = process.env): LedgerStore {
  switch (source.kind) {
    case 'ledger':
      return new FileStore(source.ledger);
    case 'repo':
      return openStore({ repo: source.repo, branch: source.branch, cwd: process.cwd() });
    case 'remote':
      return openStore({ repo: source.repo, remote: source.remote, branch: source.branch, cwd: process.cwd() });
    case 'github': {
      const root = explicitApiRoot(env);
      return openStore({
        github: source.github,
        branch: source.branch,
        token: env.GH_TOKEN ?? env.GITHUB_TOKEN,
        ...(root !== undefined && { githubBaseUrl: root }),
        cwd: process.cwd(),
      });
    }
  }
}

/**
 * The host the console names and links runs on (`https://HOST/OWNER/REPO/actions/runs/ID`): for a
 * GitHub-backed store, the host its API root (`explicitApiRoot`, as `openConsoleStore` reads it)
 * serves (lib/github/host.ts `servedHost`: `https://HOST/api/v3` serves HOST). A local Git or file
 * store names no server: github.com, as the console always linked.
 */
export function consoleGitHubHost(source: ConsoleSource, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return source.kind === 'github' ? servedHost(explicitApiRoot(env), env) : DOTCOM_HOST;
}
