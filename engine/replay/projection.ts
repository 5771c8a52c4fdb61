/**
 * The read API over a validated replay state. Callers never touch the state's
 * maps directly; they ask the projection. A projection that failed validation
 * is poisoned and answers nothing.
 */
import { fail } from '../errors.ts';
import type { ReplayState, WorkRecord, ClaimRecord, DispatchRecord, RequestOutcome } from './state.ts';

export class Projection {
  private readonly texts = new Map<string, string>();
  private readonly successors = new Map<string, string>();
  /** Validated input chunks (null once any input arrived as text). */
  private chunks: Uint8Array[] | null = [];
  private byteLength = 0;
  private lines = 0;
  private poisoned = false;

  constructor(readonly state: ReplayState) {}

  get valid(): boolean {
    return !this.poisoned;
  }

  /** Physical lines consumed so far (line numbers of appended bytes continue from here). */
  get lineCount(): number {
    return this.lines;
  }

  /** Bytes validated so far. */
  get validatedLength(): number {
    return this.byteLength;
  }

  /** True when `full` starts with exactly the bytes this projection validated. */
  isPrefixOf(full: Uint8Array): boolean {
    if (this.poisoned || this.chunks === null || full.length < this.byteLength) return false;
    let offset = 0;
    for (const chunk of this.chunks) {
      if (Buffer.compare(full.subarray(offset, offset + chunk.length), chunk) !== 0) return false;
      offset += chunk.length;
    }
    return true;
  }

  /** @internal replay bookkeeping */
  remember(id: string, previous: string | null, text: string): void {
    this.texts.set(id, text);
    if (previous !== null) this.successors.set(previous, id);
  }

  /** @internal */
  accept(input: Uint8Array | string, lines: number): void {
    this.lines += lines;
    if (typeof input === 'string') {
      this.chunks = null;
      this.byteLength += Buffer.byteLength(input);
    } else {
      this.chunks?.push(input);
      this.byteLength += input.length;
    }
  }

  /** @internal */
  poison(): void {
    this.poisoned = true;
  }

  private check(): ReplayState {
    if (this.poisoned) fail('projection_invalid', 'this projection failed validation; replay the ledger cold');
    return this.state;
  }

  commitText(id: string): string | undefined {
    return this.texts.get(id);
  }

  successorOf(id: string): string | undefined {
    return this.successors.get(id);
  }

  get tip(): string | null {
    return this.check().tip;
  }

  get commitCount(): number {
    return this.check().commits.length;
  }

  get policyEpoch(): string | null {
    return this.check().policy?.epoch ?? null;
  }

  work(id: string): WorkRecord | undefined {
    return this.check().works.get(id);
  }

  works(): IterableIterator<WorkRecord> {
    return this.check().works.values();
  }

  claim(id: string): ClaimRecord | undefined {
    return this.check().claims.get(id);
  }

  dispatch(id: string): DispatchRecord | undefined {
    return this.check().dispatches.get(id);
  }

  request(id: string): RequestOutcome | undefined {
    return this.check().requests.get(id);
  }
}
