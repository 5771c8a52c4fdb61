/**
 * The projection journal on its own branch (`<queue-branch>-issues`), written through the same
 * compare-and-swap stores as the ledger (lib/store/): an appended record is durable once the
 * branch points at it. `append` is a checked write: `decide` sees the freshest journal and
 * says what to append; on a conflict it runs again on the new tip (another projector's intent
 * then wins and this one appends nothing for that target); an uncertain write is resolved by
 * reading back.
 */
import { fail } from '../../engine/errors.ts';
import { journalLines, readJournal, type JournalRecord, type JournalState } from '../../engine/issues/journal.ts';
import type { LedgerStore } from '../store/types.ts';

export const JOURNAL_SUFFIX = '-issues';

const encoder = new TextEncoder();

export interface JournalSnapshot {
  version: string | null;
  bytes: Uint8Array;
  state: JournalState;
}

export class JournalStore {
  /** Confirmed journal writes of this run (coordination mutations). */
  writes = 0;
  private current: JournalSnapshot | null = null;

  constructor(readonly store: LedgerStore) {}

  async load(): Promise<JournalSnapshot> {
    const snapshot = await this.store.read();
    const bytes = snapshot.bytes ?? new Uint8Array();
    this.current = { version: snapshot.version, bytes, state: readJournal(bytes) };
    return this.current;
  }

  async snapshot(): Promise<JournalSnapshot> {
    return this.current ?? (await this.load());
  }

  /** Appends what `decide` returns (nothing: no write). Returns the records actually appended. */
  async append(decide: (state: JournalState) => JournalRecord[], maxAttempts = 10): Promise<{ appended: JournalRecord[]; snapshot: JournalSnapshot }> {
    let snap = await this.snapshot();
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const records = decide(snap.state);
      if (records.length === 0) return { appended: [], snapshot: snap };
      const added = encoder.encode(journalLines(records));
      const bytes = new Uint8Array(snap.bytes.length + added.length);
      bytes.set(snap.bytes, 0);
      bytes.set(added, snap.bytes.length);
      const state = readJournal(bytes); // validate exactly as the next reader will
      const outcome = await this.store.compareAndSwap(snap.version, bytes, `work-queue issues: ${records.length} journal record(s)`);
      if (outcome.status === 'committed') {
        this.writes++;
        this.current = { version: outcome.version, bytes, state };
        return { appended: records, snapshot: this.current };
      }
      const fresh = await this.load();
      if (outcome.status === 'uncertain' && Buffer.compare(Buffer.from(fresh.bytes), Buffer.from(bytes)) === 0) {
        this.writes++;
        return { appended: records, snapshot: fresh };
      }
      snap = fresh;
    }
    return fail('journal_retries_exhausted', `could not append to the projection journal on ${this.store.label} after ${maxAttempts} attempts (the branch kept moving)`);
  }
}
