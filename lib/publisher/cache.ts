/**
 * A validated in-process projection bound to the branch version it was derived
 * from (spec 7.17). It is extended incrementally when the branch's new bytes
 * extend the validated bytes, and rebuilt by cold replay otherwise.
 */
import { fail } from '../../engine/errors.ts';
import { appendLedger, refreshLedger, replayLedger, type Projection, type ReplayProgress } from '../../engine/replay/index.ts';
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
      if (version !== null && version === this.version) return { snapshot: { version, bytes: this.bytes }, projection: this.projection };
    }
    const snapshot = await this.store.read();
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
      return { snapshot, projection: this.projection };
    }
    const reusable = this.projection !== null && this.projection.valid ? this.projection : null;
    this.projection = null; // if validation throws below, nothing stale survives
    this.projection = reusable === null ? replayLedger(snapshot.bytes, this.onProgress) : refreshLedger(reusable, snapshot.bytes, this.onProgress);
    this.version = snapshot.version;
    this.bytes = snapshot.bytes;
    return { snapshot, projection: this.projection };
  }

  /** Validates a candidate line by applying it to the cached projection (which then runs ahead of the branch). */
  applyCandidate(line: string): void {
    if (this.projection === null) fail('projection_invalid', 'no projection to validate against');
    try {
      appendLedger(this.projection, encoder.encode(line));
    } catch (e) {
      this.discard();
      throw e;
    }
  }

  /** The candidate was committed: the projection now matches `version`. */
  confirm(version: string, bytes: Uint8Array): void {
    this.version = version;
    this.bytes = bytes;
  }

  /** The projection and version last confirmed (after a committed write: no need to read again). */
  current(): { version: string; projection: Projection } | null {
    return this.projection !== null && this.projection.valid && this.version !== null ? { version: this.version, projection: this.projection } : null;
  }

  /** The candidate was not (or not surely) committed: forget the projection. */
  discard(): void {
    this.projection = null;
    this.version = null;
    this.bytes = null;
  }
}
