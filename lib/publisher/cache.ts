/**
 * A validated in-process projection bound to the branch version it was derived
 * from (spec 7.17). It is extended incrementally when the branch's new bytes
 * extend the validated bytes, and rebuilt by cold replay otherwise.
 *
 * A candidate commit is validated on a fork of the projection (`Projection.fork()`), never on
 * the projection itself: when the compare-and-swap commits, the same line is appended to the
 * projection (its cost is the commit's, not the ledger's); when it conflicts, is uncertain or
 * throws, the fork is dropped and the projection stays validated at its version, so the next
 * read only appends the new tail (docs/performance.md, "Contention").
 */
import { fail, isProtocolError, refusedCandidate } from '../../engine/errors.ts';
import { appendLedger, replayLedger, type Projection, type ReplayProgress } from '../../engine/replay/index.ts';
import { threadVerifier, type ThreadVerifier } from '../replay/thread-verifier.ts';
import { debugEvent, since } from '../debug/log.ts';
import type { LedgerStore } from '../store/types.ts';

/** The branch as the cache holds it: the version and the validated ledger bytes, in the pieces they arrived in. */
export interface CachedSnapshot {
  /** Opaque version of the branch tip; null when the branch is absent. */
  version: string | null;
  /** The ledger bytes at `version` (never concatenated); null when there is no queue. */
  parts: readonly Uint8Array[] | null;
  /** Total length of `parts`. */
  length: number;
}

type DropReason = 'conflict' | 'uncertain' | 'invalid' | 'write_failed';

export class ProjectionCache {
  private projection: Projection | null = null;
  private version: string | null = null;

  constructor(
    private readonly store: LedgerStore,
    /** Called during cold replays of large ledgers (progress on a TTY). */
    private readonly onProgress?: ReplayProgress,
  ) {}

  /** Reads the branch and returns a projection validated against exactly its bytes (null: no queue yet). */
  async load(): Promise<{ snapshot: CachedSnapshot; projection: Projection | null }> {
    const cached = this.projection !== null && this.projection.valid ? this.projection : null;
    if (cached !== null && this.store.readVersion !== undefined) {
      const version = await this.store.readVersion();
      if (version !== null && version === this.version) {
        debugEvent('memory', 'hit', { commits: cached.commitCount });
        return { snapshot: this.snapshotOf(cached), projection: cached };
      }
    }
    const reading = Date.now();
    const read = await this.store.read();
    debugEvent('store', 'read', { found: read.bytes !== null, bytes: read.bytes?.length ?? 0, ms: since(reading) });
    if (read.bytes === null) {
      this.projection = null;
      this.version = read.version;
      return { snapshot: { version: read.version, parts: null, length: 0 }, projection: null };
    }
    if (read.bytes.length === 0) {
      fail('ledger_empty', `the ledger on ${this.store.label} exists but is empty; an empty ledger is an error, never an empty backlog, and is never overwritten`);
    }
    if (cached !== null && this.version === read.version && cached.validatedLength === read.bytes.length) {
      debugEvent('memory', 'hit', { commits: cached.commitCount });
      return { snapshot: this.snapshotOf(cached), projection: cached };
    }
    // A cold replay that throws leaves nothing cached. A tail that throws is refused on a fork
    // (refresh): the cached projection is untouched and still exactly the bytes at `this.version`,
    // so it stays cached, and the next read of the same bad bytes checks only the tail again.
    const reusable = cached !== null && cached.isPrefixOf(read.bytes) ? cached : null;
    if (reusable === null) this.projection = null;
    const projection = this.refresh(reusable, cached !== null, read.bytes);
    this.projection = projection;
    this.version = read.version;
    return { snapshot: this.snapshotOf(projection), projection };
  }

  private snapshotOf(projection: Projection): CachedSnapshot {
    return { version: this.version, parts: projection.validatedChunks(), length: projection.validatedLength };
  }

  /**
   * Cold replay, or only the new tail when `reusable` validated a prefix of `bytes` (debug:
   * replay, memory). The tail is copied out of `bytes`, so the projection retains the new
   * bytes once, not the whole new ledger beside the old one.
   *
   * The tail is validated on a fork first, and appended to `reusable` only once the fork took
   * it: a refused tail poisons only the fork. Callers keep the projections `load` returned
   * (the console's last good view, a TUI snapshot, an MCP session's read), so a bad commit
   * appended later must never poison them: they go on answering, and the read answers the
   * ledger's own verdict (e.g. unsupported_protocol), never projection_invalid.
   */
  private refresh(reusable: Projection | null, cached: boolean, bytes: Uint8Array): Projection {
    const started = Date.now();
    debugEvent('memory', 'refresh', { reused: reusable !== null, cached });
    if (reusable === null) return coldReplay(bytes, this.onProgress);
    const before = reusable.validatedLength;
    const beforeCommits = reusable.commitCount;
    const tail = bytes.slice(before);
    try {
      appendLedger(reusable.fork(), tail);
    } catch (e) {
      debugEvent('replay', 'rejected', { bytes: bytes.length, protocol: isProtocolError(e) });
      throw e;
    }
    try {
      appendLedger(reusable, tail);
    } catch (e) {
      // The fork accepted what the projection refuses: a bug in the fork, never a verdict on the ledger.
      this.discard('invalid');
      throw new Error(`the tail was accepted on a fork but refused by the projection: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    debugEvent('replay', 'incremental', { bytes: bytes.length, appended_bytes: bytes.length - before, commits: reusable.commitCount - beforeCommits, ms: since(started) });
    return reusable;
  }

  /**
   * Validates a candidate line on a fork of the cached projection and returns the fork (the
   * tentative projection). The cached projection is not changed; an invalid candidate throws
   * its refusal (`refusedCandidate`: no commit id or ledger line, for it was never written).
   */
  validate(line: Uint8Array): Projection {
    if (this.projection === null || !this.projection.valid) fail('projection_invalid', 'no projection to validate against');
    const tentative = this.projection.fork();
    try {
      appendLedger(tentative, line);
    } catch (e) {
      debugEvent('replay', 'candidate', { bytes: line.length, valid: false });
      this.drop('invalid');
      throw refusedCandidate(e);
    }
    debugEvent('replay', 'candidate', { bytes: line.length, valid: true });
    return tentative;
  }

  /**
   * The candidate `tentative` validated was committed as `version`: the same line is appended to
   * the cached projection (the fork is dropped), which now matches the branch without a read.
   */
  confirm(tentative: Projection, version: string, line: Uint8Array): Projection {
    const projection = this.projection!;
    const validated = tentative.tip; // read before the append below makes the fork stale
    try {
      appendLedger(projection, line);
    } catch (e) {
      // The fork accepted what the projection refuses: a bug in the fork, never a verdict on the ledger.
      this.discard('invalid');
      throw new Error(`the committed candidate was accepted on a fork but refused by the projection: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (projection.tip !== validated) throw new Error('the committed candidate folded to another tip than on its fork');
    debugEvent('memory', 'confirm', { commits: projection.commitCount });
    this.version = version;
    return projection;
  }

  /** The candidate was not (or not surely) committed: its tentative projection is dropped, the validated one kept. */
  drop(reason: DropReason): void {
    debugEvent('memory', 'discard', { reason, kept: this.projection !== null && this.projection.valid });
  }

  /** The projection and version last confirmed (after a committed write: no need to read again). */
  current(): { version: string; projection: Projection } | null {
    return this.projection !== null && this.projection.valid && this.version !== null ? { version: this.version, projection: this.projection } : null;
  }

  /** Forgets the cached projection: the next load replays cold. */
  discard(reason: DropReason = 'invalid'): void {
    if (this.projection !== null) debugEvent('memory', 'discard', { reason, kept: false });
    this.projection = null;
    this.version = null;
  }
}

/** A cold replay of ledger bytes with its `replay cold` (or `replay rejected`) debug event; `verifier`: the process's worker threads unless given. */
export function coldReplay(bytes: Uint8Array, onProgress?: ReplayProgress, verifier: ThreadVerifier = threadVerifier): Projection {
  const started = Date.now();
  try {
    const projection = replayLedger(bytes, onProgress, verifier);
    const threads = verifier.last;
    debugEvent('replay', 'cold', { bytes: bytes.length, commits: projection.commitCount, ms: since(started), ...(threads === null ? {} : { threads: threads.threads, checked_ahead: threads.ahead }) });
    return projection;
  } catch (e) {
    debugEvent('replay', 'rejected', { bytes: bytes.length, protocol: isProtocolError(e) });
    throw e;
  }
}
