/**
 * The console's one answer to a failure of the queue store (docs/console.md): HTTP 503 with the
 * failure's stable code and a fixed message, never the store's own message, which may carry a
 * remote URL with its credentials, an API host, a path or Git's output. Every route handler
 * (/api/tip, /api/targets, /api/whatif, /api/admin/*, /metrics) answers a store failure here.
 */
import { errorResponse } from './body.ts';

/**
 * Failures of the ledger store while reading or publishing (lib/store: `store_*`, `github_*`,
 * `git_*` and the local repository's), not verdicts on the request.
 */
const STORE_FAILURES: ReadonlySet<string> = new Set(['not_a_git_repository', 'ledger_unreadable']);

export function isStoreFailure(code: string): boolean {
  return /^(?:store|github|git)_/.test(code) || STORE_FAILURES.has(code);
}

/** The fixed messages: nothing was published (`read`), or the action may have been (`publish`). */
export const STORE_FAILURE_MESSAGES = {
  read: 'the ledger could not be read',
  publish: 'the queue store failed while publishing: reload the queue to see whether the action was published before trying again',
} as const;

export interface StoreFailureOptions {
  /** `publish`: the failure came while publishing, so the action may have been published (default `read`). */
  when?: keyof typeof STORE_FAILURE_MESSAGES;
  /** A plain-text answer holding the code alone (/metrics, whose answers are text), instead of the JSON error. */
  text?: boolean;
}

export function storeFailureResponse(code: string, options: StoreFailureOptions = {}): Response {
  if (options.text === true) {
    return new Response(`${code}\n`, { status: 503, headers: { 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' } });
  }
  return errorResponse(503, code, STORE_FAILURE_MESSAGES[options.when ?? 'read']);
}
