/**
 * An in-memory `LedgerStore` with real compare-and-swap semantics: versions
 * are opaque counters, the branch starts absent. For tests, benchmarks and
 * throwaway demo queues; the console's Git stores replace it in production.
 */
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../../lib/store/types.ts';

export class MemoryStore implements LedgerStore {
  readonly label: string;
  private version: string | null = null;
  private bytes: Uint8Array | null = null;
  private counter = 0;
  /** Commit messages in order (tests inspect them). */
  readonly messages: string[] = [];

  constructor(label = 'memory') {
    this.label = `memory:${label}`;
  }

  async read(): Promise<LedgerSnapshot> {
    return { version: this.version, bytes: this.bytes === null ? null : this.bytes.slice() };
  }

  async compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    if (expected !== this.version) return { status: 'conflict', actual: this.version };
    this.counter += 1;
    this.version = `m${String(this.counter).padStart(8, '0')}`;
    this.bytes = bytes.slice();
    this.messages.push(message);
    return { status: 'committed', version: this.version };
  }

  async readDefaultBranchFile(): Promise<Uint8Array | null> {
    return null;
  }

  /** Test helper: the ledger text at the current version. */
  text(): string {
    return this.bytes === null ? '' : new TextDecoder().decode(this.bytes);
  }
}
