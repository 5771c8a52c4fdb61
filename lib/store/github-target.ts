/**
 * Which GitHub repository and branch a GitHub ledger store names, checked without loading the
 * GitHub client: the GitHub stores check it in their constructors, and `openStore` through the
 * lazily loaded store (lib/store/github-lazy.ts), so a malformed `--github` is a usage error at
 * once in both.
 */
import { ProtocolError } from '../../engine/errors.ts';
import { checkBranchName } from './checks.ts';
import { DEFAULT_BRANCH } from './types.ts';

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;

export interface GitHubTarget {
  owner: string;
  repo: string;
  branch: string;
  /** `github:OWNER/NAME#BRANCH`, the store's label. */
  label: string;
}

/** The store's repository and branch, or a usage `ProtocolError` (`store_options_invalid`, `github_token_missing`). */
export function gitHubTarget(options: { owner: string; repo: string; branch?: string; token?: string }): GitHubTarget {
  if (!OWNER.test(options.owner) || !REPO.test(options.repo)) {
    throw new ProtocolError('store_options_invalid', `not a GitHub repository name: ${JSON.stringify(`${options.owner}/${options.repo}`)}`, {}, { usage: true });
  }
  if (options.token === '') throw new ProtocolError('github_token_missing', 'the GitHub store needs a token (GH_TOKEN or GITHUB_TOKEN)', {}, { usage: true });
  const branch = options.branch ?? DEFAULT_BRANCH;
  checkBranchName(branch);
  return { owner: options.owner, repo: options.repo, branch, label: `github:${options.owner}/${options.repo}#${branch}` };
}
