/**
 * The CLI's global store flags (design/INTERFACES.md) → one LedgerStore:
 * `--repo PATH` (default: the current directory), `--repo CLONE --remote NAME`,
 * or `--github OWNER/NAME` with a token. Flag misuse is a ProtocolError whose
 * `details.usage` is true, so a surface can report it as a usage error.
 * Whether `--repo` is a Git repository is checked by the store on first use
 * (`not_a_git_repository`), keeping this function synchronous.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProtocolError } from '../../engine/errors.ts';
import { GitHubStore } from './github.ts';
import { LocalGitStore } from './local-git.ts';
import { RemoteGitStore } from './remote-git.ts';
import type { LedgerStore } from './types.ts';

export interface OpenStoreOptions {
  repo?: string;
  remote?: string;
  /** `OWNER/NAME`. */
  github?: string;
  branch?: string;
  /** GitHub token (the CLI passes GH_TOKEN / GITHUB_TOKEN). */
  token?: string;
  /** GitHub API root for GitHub Enterprise Server or a test server. */
  githubBaseUrl?: string;
  /** Resolves a relative `--repo` and is the default repository. */
  cwd: string;
}

function usage(code: string, message: string): never {
  throw new ProtocolError(code, message, {}, { usage: true });
}

export function openStore(options: OpenStoreOptions): LedgerStore {
  const { branch } = options;
  if (options.github !== undefined) {
    if (options.repo !== undefined) usage('store_options_invalid', '--github and --repo name two different stores; give only one');
    if (options.remote !== undefined) usage('store_options_invalid', '--remote works with --repo CLONE, not with --github');
    const m = /^([^/\s]+)\/([^/\s]+)$/.exec(options.github);
    if (m === null) usage('store_options_invalid', `--github expects OWNER/NAME, not ${JSON.stringify(options.github)}`);
    if (options.token === undefined || options.token === '') usage('github_token_missing', '--github needs a token in GH_TOKEN or GITHUB_TOKEN');
    if (options.githubBaseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.githubBaseUrl)) {
      usage('store_options_invalid', `the GitHub API URL must be http(s), not ${JSON.stringify(options.githubBaseUrl)}`);
    }
    return new GitHubStore({ owner: m[1]!, repo: m[2]!, token: options.token, ...(branch !== undefined && { branch }), ...(options.githubBaseUrl !== undefined && { baseUrl: options.githubBaseUrl }) });
  }
  if (options.remote !== undefined && options.repo === undefined) usage('store_options_invalid', '--remote NAME needs --repo CLONE (the local clone that holds the objects)');
  if (options.repo === '') usage('store_options_invalid', '--repo needs a path');
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
