/**
 * Read-your-writes for the GitHub stores. GitHub serves reads from replicas
 * that can lag the primary for a moment: right after this store committed a
 * version, a read may still answer "no such branch" (the ref was just created)
 * or the commit it replaced. Such an answer is not evidence about the branch,
 * only about the replica, so the read is retried with backoff (bounded) until
 * the replica shows something other than what the write replaced. Nothing is
 * ever reported as absent or unchanged on the strength of a lagging answer: if
 * the bound runs out, the read fails with `store_read_lagging` and the version
 * that was committed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError } from '../../engine/errors.ts';

export interface LagPolicy {
  /** Further reads after a lagging answer (default 6). */
  retries: number;
  /** First wait in ms; doubles each time, with jitter (default 200: at most about 12 s in all). */
  baseMs: number;
}

export const DEFAULT_LAG_POLICY: LagPolicy = { retries: 6, baseMs: 200 };

export class ReadYourWrites {
  /** The last version this store committed and the version it replaced, until a read has shown it. */
  private pending: { version: string; replaced: string | null } | null = null;

  constructor(
    private readonly label: string,
    private readonly policy: LagPolicy = DEFAULT_LAG_POLICY,
  ) {}

  /** A compare-and-swap from `replaced` to `version` committed. */
  committed(version: string, replaced: string | null): void {
    this.pending = { version, replaced };
  }

  /**
   * Runs `once` until the branch version it reports (`versionOf`) is not the
   * one this store's last committed write replaced (null for a branch it
   * created), then returns that result.
   */
  async read<T>(once: () => Promise<T>, versionOf: (result: T) => string | null): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const result = await once();
      const pending = this.pending;
      if (pending === null) return result;
      const seen = versionOf(result);
      if (seen !== pending.replaced) {
        this.pending = null; // the replica caught up (or the branch moved on): trust reads again
        return result;
      }
      if (attempt >= this.policy.retries) {
        this.pending = null;
        const shown = seen === null ? 'no branch' : `the replaced version ${seen}`;
        throw new ProtocolError(
          'store_read_lagging',
          `${this.label} still shows ${shown} after ${attempt + 1} reads, although this process committed ${pending.version}; GitHub's replicas are lagging. The write landed: read again shortly.`,
          {},
          { committed: pending.version, observed: seen, reads: attempt + 1 },
        );
      }
      const ceiling = this.policy.baseMs * 2 ** attempt;
      await sleep(ceiling / 2 + Math.random() * (ceiling / 2));
    }
  }
}
