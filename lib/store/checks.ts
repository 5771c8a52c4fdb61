/** Input checks shared by every ledger store (synchronous, so constructors can use them). */
import { ProtocolError } from '../../engine/errors.ts';
import { LEDGER_FILE } from './types.ts';

/** The ledger parser's ceiling (contract `canonical_json.parser_bytes`, 80 MiB). */
export const LEDGER_MAX_BYTES = 83_886_080;

/** A Git tree entry's mode for a symbolic link: its blob is the link's target path, not a file's content. */
export const SYMLINK_MODE = '120000';

/**
 * A branch name the stores accept: the `git check-ref-format --branch` rules,
 * checked without a process so constructors stay synchronous.
 */
export function checkBranchName(branch: string): void {
  const bad =
    branch === '' || branch === '@' || branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') ||
    branch.endsWith('.') || branch.endsWith('.lock') || branch.includes('..') || branch.includes('//') ||
    branch.includes('@{') || branch.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock')) ||
    // eslint-disable-next-line no-control-regex
    /[\x00-\x20\x7f~^:?*[\\]/.test(branch);
  if (bad) throw new ProtocolError('store_options_invalid', `invalid branch name ${JSON.stringify(branch)}`, {}, { usage: true });
}

/** A repository-relative file path: no absolute paths, no `.`/`..` segments. */
export function checkRepoPath(path: string): string {
  const clean = path.replace(/^\.\//, '');
  const parts = clean.split('/');
  if (clean === '' || clean.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..') || clean.includes('\0')) {
    throw new ProtocolError('store_path_invalid', `not a repository-relative file path: ${JSON.stringify(path)}`);
  }
  return clean;
}

/** Versions are full object ids; anything else is a caller bug, not a conflict. */
export function checkVersion(expected: string | null): void {
  if (expected !== null && !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(expected)) {
    throw new ProtocolError('store_version_invalid', `not a commit id: ${JSON.stringify(expected)}`);
  }
}

/**
 * `ledger_missing`: the queue branch's tip `tip` has no ledger file, but commit `last` of its
 * history changed it (a hand deletion, a bad merge). Such a branch is never read as "no queue
 * yet", so no first submit re-creates a queue over it (every store: git-objects.ts
 * `refuseDeletedLedger`, github.ts `refuseDeletedLedger`).
 */
export function ledgerMissing(tip: string, last: string): ProtocolError {
  return new ProtocolError('ledger_missing', `the queue branch's tip ${tip} has no ${LEDGER_FILE}, but its history had one (last changed by commit ${last}): a deleted ledger is an error, never an empty queue, and is never re-created; restore it from ${last}^ (or reset the branch to a commit that has it); if that file was never this queue's ledger (a branch made from one that once held it), start the queue on a fresh orphan branch`, {}, { commit: last });
}
