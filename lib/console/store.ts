/**
 * Opens the ledger store a console configuration names: the same stores as the
 * CLI (`lib/store/open.ts`) for repositories, remotes and GitHub (token from
 * GH_TOKEN / GITHUB_TOKEN, read here and never logged), or a read-only file.
 */
import type { LedgerStore } from '../store/types.ts';
import { openStore } from '../store/open.ts';
import type { ConsoleSource } from './config.ts';
import { FileStore } from '../store/file.ts';
import { explicitApiRoot } from '../github/host.ts';

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
