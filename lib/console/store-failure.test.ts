/**
 * The console's answer to a store failure (lib/console/store-failure.ts): 503, the code and a
 * fixed message, uncacheable; the message is chosen by when the failure came, never taken from
 * the store; /metrics gets the code alone as text.
 */
import { describe, expect, it } from 'vitest';
import { isStoreFailure, storeFailureResponse } from './store-failure.ts';

describe('storeFailureResponse', () => {
  it('answers 503 with the code and a fixed message (read, publish), or the code alone as text; never cached', async () => {
    const cases = [
      [{}, 'application/json', '{"ok":false,"error":{"code":"store_unreachable","message":"the ledger could not be read"}}'],
      [{ when: 'read' }, 'application/json', '{"ok":false,"error":{"code":"store_unreachable","message":"the ledger could not be read"}}'],
      [{ when: 'publish' }, 'application/json', '{"ok":false,"error":{"code":"store_unreachable","message":"the queue store failed while publishing: reload the queue to see whether the action was published before trying again"}}'],
      [{ text: true }, 'text/plain; charset=utf-8', 'store_unreachable\n'],
    ] as const;
    for (const [options, type, body] of cases) {
      const res = storeFailureResponse('store_unreachable', options);
      expect(res.status, JSON.stringify(options)).toBe(503);
      expect(res.headers.get('cache-control'), JSON.stringify(options)).toBe('no-store');
      expect(res.headers.get('content-type'), JSON.stringify(options)).toBe(type);
      expect(await res.text(), JSON.stringify(options)).toBe(body);
    }
  });

  it('isStoreFailure: the store\'s codes (store_*, github_*, git_*, the local repository\'s), not verdicts on the request', () => {
    for (const code of ['store_unreachable', 'store_git_failed', 'github_rate_limited', 'git_failed', 'not_a_git_repository', 'ledger_unreadable']) expect(isStoreFailure(code), code).toBe(true);
    for (const code of ['no_change', 'preview_stale', 'request_invalid', 'queue_uninitialized', 'internal_error', 'gitlike_code', 'restore_x']) expect(isStoreFailure(code), code).toBe(false);
  });
});
