/**
 * A validated in-process projection bound to the branch version it was derived
 * from (spec 7.17). It is extended incrementally when the branch's new bytes
 * extend the validated bytes, and rebuilt by cold replay otherwise.
 */
import { fail, isProtocolError } from '../../engine/errors.ts';
import { appendLedger, refreshLedger, replayLedger, type Projection, type ReplayProgress } from '../../engine/replay/index.ts';
import { debugEvent, since } from '../debug/log.ts';
import type { LedgerSnapshot, LedgerStore } from '../store/types.ts';

const encoder = new TextEncoder();

export class ProjectionCache {
  private projection: Projection | null = null;
  private version: string | null = null;
  /** The exact ledger bytes at `version` (kept so an unchanged branch is not read again). */
  private bytes: Uint8Array | null = null;

  constructor(
    private readonly store: LedgerStore,
    /** Called during cold replays of large ledgers (progress on a TTY). */
    private readonly onProgress?: ReplayProgress,
  ) {}

  /** Reads the branch and returns a projection validated against exactly those bytes (null: no queue yet). */
  async load(): Promise<{ snapshot: LedgerSnapshot; projection: Projection | null }> {
    if (this.projection !== null && this.projection.valid && this.bytes !== null && this.store.readVersion !== undefined) {
      const version = await this.store.readVersion();
      if (version !== null && version === this.version) {
        debugEvent('memory', 'hit', { commits: this.projection.commitCount });
        return { snapshot: { version, bytes: this.bytes }, projection: this.projection };
      }
    }
    const reading = Date.now();
    const snapshot = await this.store.read();
    debugEvent('store', 'read', { found: snapshot.bytes !== null, bytes: snapshot.bytes?.length ?? 0, ms: since(reading) });
    if (snapshot.bytes === null) {
      this.projection = null;
      this.version = snapshot.version;
      this.bytes = null;
      return { snapshot, projection: null };
    }
    if (snapshot.bytes.length === 0) {
      fail('ledger_empty', `the ledger on ${this.store.label} exists but is empty; an empty ledger is an error, never an empty backlog, and is never overwritten`);
    }
    if (this.projection !== null && this.projection.valid && this.version === snapshot.version) {
      this.bytes = snapshot.bytes;
      debugEvent('memory', 'hit', { commits: this.projection.commitCount });
      return { snapshot, projection: this.projection };
    }
    const reusable = this.projection !== null && this.projection.valid ? this.projection : null;
    this.projection = null; // if validation throws below, nothing stale survives
    this.projection = this.replay(reusable, snapshot.bytes);
    this.version = snapshot.version;
    this.bytes = snapshot.bytes;
    return { snapshot, projection: this.projection };
  }

  /** Cold replay, or incremental when `reusable` validated a prefix of `bytes` (debug: replay, memory). */
  private replay(reusable: Projection | null, bytes: Uint8Array): Projection {
    const started = Date.now();
    const incremental = reusable !== null && reusable.isPrefixOf(bytes);
    const before = incremental ? reusable.validatedLength : 0;
    const beforeCommits = incremental ? reusable.commitCount : 0;
    debugEvent('memory', 'refresh', { reused: incremental, cached: reusable !== null });
    if (!incremental) return coldReplay(bytes, this.onProgress);
    let projection: Projection;
    try {
      projection = refreshLedger(reusable, bytes, this.onProgress);
    } catch (e) {
      debugEvent('replay', 'rejected', { bytes: bytes.length, protocol: isProtocolError(e) });
      throw e;
    }
    debugEvent('replay', 'incremental', { bytes: bytes.length, appended_bytes: bytes.length - before, commits: projection.commitCount - beforeCommits, ms: since(started) });
    return projection;
  }

  /** Validates a candidate line by applying it to the cached projection (which then runs ahead of the branch). */
  applyCandidate(line: string): void {
    if (this.projection === null) fail('projection_invalid', 'no projection to validate against');
    const bytes = encoder.encode(line);
    try {
      appendLedger(this.projection, bytes);
    } catch (e) {
      debugEvent('replay', 'candidate', { bytes: bytes.length, valid: false });
      this.discard('invalid');
      throw e;
    }
    debugEvent('replay', 'candidate', { bytes: bytes.length, valid: true });
  }

  /** The candidate was committed: the projection now matches `version`. */
  confirm(version: string, bytes: Uint8Array): void {
    if (this.projection !== null) debugEvent('memory', 'confirm', { commits: this.projection.commitCount });
    this.version = version;
    this.bytes = bytes;
  }

  /** The projection and version last confirmed (after a committed write: no need to read again). */
  current(): { version: string; projection: Projection } | null {
    return this.projection !== null && this.projection.valid && this.version !== null ? { version: this.version, projection: this.projection } : null;
  }

  /** The candidate was not (or not surely) committed: forget the projection. */
  discard(reason: 'conflict' | 'uncertain' | 'invalid' | 'write_failed' = 'invalid'): void {
    if (this.projection !== null) debugEvent('memory', 'discard', { reason });
    this.projection = null;
    this.version = null;
    this.bytes = null;
  }
}

/** A cold replay of ledger bytes with its `replay cold` (or `replay rejected`) debug event. */
export function coldReplay(bytes: Uint8Array, onProgress?: ReplayProgress): Projection {
  const started = Date.now();
  try {
    const projection = replayLedger(bytes, onProgress);
    debugEvent('replay', 'cold', { bytes: bytes.length, commits: projection.commitCount, ms: since(started) });
    return projection;
  } catch (e) {
    debugEvent('replay', 'rejected', { bytes: bytes.length, protocol: isProtocolError(e) });
    throw e;
  }
}
