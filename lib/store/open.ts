/**
 * The CLI's global store flags (design/INTERFACES.md) → one LedgerStore:
 * `--repo PATH` (default: the current directory), `--repo CLONE --remote NAME`,
 * `--github OWNER/NAME` with a token, or a read-only `--ledger FILE`. Flag misuse is a ProtocolError whose
 * `details.usage` is true, so a surface can report it as a usage error.
 * Whether `--repo` is a Git repository is checked by the store on first use
 * (`not_a_git_repository`), keeping this function synchronous.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';
import { isDotComApiRoot } from '../github/host.ts';
import { FileStore } from './file.ts';
import { LazyGitHubStore, type GitHubApiKind } from './github-lazy.ts';
import { storeTimeouts } from './github-timeouts.ts';
import { LocalGitStore } from './local-git.ts';
import { RemoteGitStore } from './remote-git.ts';
import type { LedgerStore } from './types.ts';

export interface OpenStoreOptions {
  /** A ledger file, read-only (`--ledger FILE`); a missing file is `ledger_not_found`. */
  ledger?: string;
  /** How `ledger: '-'` reads standard input (the CLI's once-per-run reader). */
  stdin?: () => Promise<Uint8Array>;
  repo?: string;
  remote?: string;
  /** `OWNER/NAME`. */
  github?: string;
  branch?: string;
  /** GitHub token (the CLI passes GH_TOKEN / GITHUB_TOKEN). */
  token?: string;
  /** GitHub API root for GitHub Enterprise Server or a test server. */
  githubBaseUrl?: string;
  /**
   * Which GitHub API the store speaks: `graphql` (two requests per checked
   * read + publication) or `rest` (the Git data API, for hosts without
   * GraphQL). Default: `FAIRWAY_GITHUB_STORE_API` when set, else `graphql` for
   * api.github.com and `rest` for any other API root.
   */
  githubApi?: GitHubApiKind;
  /** Read by default for `githubApi` and the request timeouts (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Resolves a relative `--repo` and is the default repository. */
  cwd: string;
}

function usage(code: string, message: string): never {
  throw new ProtocolError(code, message, {}, { usage: true });
}

export type { GitHubApiKind };

/** The API the GitHub store uses for `baseUrl` (see `OpenStoreOptions.githubApi`). */
export function githubApiFor(baseUrl: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): GitHubApiKind {
  const chosen = env.FAIRWAY_GITHUB_STORE_API;
  if (chosen !== undefined && chosen !== '') {
    if (chosen !== 'graphql' && chosen !== 'rest') usage('store_options_invalid', `FAIRWAY_GITHUB_STORE_API must be graphql or rest, not ${JSON.stringify(chosen)}`);
    return chosen;
  }
  return isDotComApiRoot(baseUrl) ? 'graphql' : 'rest';
}

export function openStore(options: OpenStoreOptions): LedgerStore {
  const { branch } = options;
  if (options.ledger !== undefined) {
    if (options.repo !== undefined || options.remote !== undefined || options.github !== undefined) {
      usage('source_conflict', '--ledger reads a file offline; it cannot be combined with --repo, --dir or --remote');
    }
    return new FileStore(options.ledger, { required: true, ...(options.stdin !== undefined && { stdin: options.stdin }) });
  }
  if (options.github !== undefined) {
    if (options.repo !== undefined) usage('store_options_invalid', '--github and --repo name two different stores; give only one');
    if (options.remote !== undefined) usage('store_options_invalid', '--remote works with --repo CLONE, not with --github');
    const m = /^([^/\s]+)\/([^/\s]+)$/.exec(options.github);
    if (m === null) usage('store_options_invalid', `--github expects OWNER/NAME, not ${JSON.stringify(options.github)}`);
    if (options.token === undefined || options.token === '') usage('github_token_missing', '--github needs a token in GH_TOKEN or GITHUB_TOKEN');
    if (options.githubBaseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.githubBaseUrl)) {
      usage('store_options_invalid', `the GitHub API URL must be http(s), not ${JSON.stringify(options.githubBaseUrl)}`);
    }
    const env = options.env ?? process.env;
    const api = options.githubApi ?? githubApiFor(options.githubBaseUrl, env);
    const storeOptions = {
      owner: m[1]!, repo: m[2]!, token: options.token, timeouts: storeTimeouts({}, env),
      ...(branch !== undefined && { branch }), ...(options.githubBaseUrl !== undefined && { baseUrl: options.githubBaseUrl }),
    };
    // The GitHub client loads on the store's first request (github-lazy.ts).
    return new LazyGitHubStore(api, storeOptions);
  }
  if (options.repo === '') usage('store_options_invalid', '--dir needs a path');
  const repo = resolve(options.cwd, options.repo ?? '.');
  let isDirectory = false;
  try {
    isDirectory = statSync(repo).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new ProtocolError('not_a_git_repository', `${repo} is not a directory`, {}, { path: repo });
  if (options.remote !== undefined) return new RemoteGitStore({ repo, remote: options.remote, ...(branch !== undefined && { branch }) });
  return new LocalGitStore({ repo, ...(branch !== undefined && { branch }) });
}
