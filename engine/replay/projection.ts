/**
 * The read API over a validated replay state: commits and their texts,
 * requests, Work, Claims and dispatch groups. Its `state` is still public and
 * read directly outside the engine; new reads belong here. A projection that
 * failed validation is poisoned and answers nothing.
 */
import { fail } from '../errors.ts';
import { envelopeView, type EnvelopeView } from './headroom.ts';
import type { ReplayState, WorkRecord, ClaimRecord, DispatchRecord, RequestOutcome } from './state.ts';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class Projection {
  /** Each commit's record: its text, or where its bytes sit in a retained input chunk. */
  private readonly texts = new Map<string, string | { chunk: number; start: number; end: number }>();
  private readonly successors = new Map<string, string>();
  /** Validated byte inputs, in order (records point into them). */
  private readonly chunks: Uint8Array[] = [];
  /** False once any input arrived as text: the byte prefix is then unknown. */
  private bytesExact = true;
  private byteLength = 0;
  private lines = 0;
  private poisoned = false;

  constructor(readonly state: ReplayState) {}

  /** The operating envelope (spec 7.17): ledger bytes, watermark, reserve owed, remaining budgets. */
  envelope(): EnvelopeView {
    return envelopeView(this.state);
  }

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
    if (this.poisoned || !this.bytesExact || full.length < this.byteLength) return false;
    let offset = 0;
    for (const chunk of this.chunks) {
      if (Buffer.compare(full.subarray(offset, offset + chunk.length), chunk) !== 0) return false;
      offset += chunk.length;
    }
    return true;
  }

  /**
   * @internal Retains a byte input before its records are folded, so records
   * released from it can be read back (exact-duplicate checks) while the same
   * input is still being replayed. Returns its chunk index (-1 for text).
   */
  stageChunk(input: Uint8Array | string): number {
    if (typeof input === 'string') return -1;
    this.chunks.push(input);
    return this.chunks.length - 1;
  }

  /** @internal replay bookkeeping */
  remember(id: string, previous: string | null, record: string | { chunk: number; start: number; end: number }): void {
    this.texts.set(id, record);
    if (previous !== null) this.successors.set(previous, id);
  }

  /** @internal */
  accept(input: Uint8Array | string, lines: number): void {
    this.lines += lines;
    if (typeof input === 'string') {
      this.bytesExact = false;
      this.byteLength += Buffer.byteLength(input);
    } else {
      this.byteLength += input.length; // retained by stageChunk
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
    const record = this.texts.get(id);
    if (record === undefined || typeof record === 'string') return record;
    return decoder.decode(this.chunks[record.chunk]!.subarray(record.start, record.end));
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

  /** The queue repository (`owner/name`) the genesis Actor named, or null. */
  get repository(): string | null {
    return this.check().repository;
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
