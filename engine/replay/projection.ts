/**
 * The read API over a validated replay state: commits and their texts,
 * requests, Work, Claims and dispatch groups. Its `state` is still public and
 * read directly outside the engine; new reads belong here. A projection that
 * failed validation is poisoned and answers nothing.
 */
import { fail } from '../errors.ts';
import { forkState } from './fork.ts';
import { checkForkable } from './fork-fields.ts';
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
  /** Bumped whenever this projection validates more input or is poisoned (a fork is only good for one generation). */
  private generation = 0;
  /** Set on a fork: the projection it was forked from, and that projection's generation then. */
  private parent: { projection: Projection; generation: number } | null = null;

  constructor(readonly state: ReplayState) {}

  /**
   * A tentative copy to validate a candidate on: appending to the fork runs the same fold,
   * but this projection is left exactly as it is (engine/replay/fork.ts: a copy-on-write view
   * of the state, so a fork costs what the appended commits touch, not the ledger's size).
   * Discarding the fork needs nothing; to keep what it validated, append the same bytes to
   * this projection. A fork is usable only while this projection does not change.
   */
  fork(): Projection {
    this.check();
    checkForkable(this.state);
    const child = new Projection(forkState(this.state));
    child.parent = { projection: this, generation: this.generation };
    child.bytesExact = this.bytesExact;
    child.byteLength = this.byteLength;
    child.lines = this.lines;
    return child;
  }

  /** True for a projection made by `fork()`. */
  get forked(): boolean {
    return this.parent !== null;
  }

  /** The operating envelope (spec 7.17): ledger bytes, watermark, reserve owed, remaining budgets. */
  envelope(): EnvelopeView {
    return envelopeView(this.state);
  }

  get valid(): boolean {
    return !this.poisoned && (this.parent === null || (this.parent.projection.generation === this.parent.generation && this.parent.projection.valid));
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
    if (!this.valid || !this.bytesExact || full.length < this.byteLength) return false;
    let offset = 0;
    for (const chunk of this.validatedChunks()) {
      if (Buffer.compare(full.subarray(offset, offset + chunk.length), chunk) !== 0) return false;
      offset += chunk.length;
    }
    return true;
  }

  /** The validated bytes, in the pieces they arrived in (null when some input arrived as text). */
  validatedChunks(): readonly Uint8Array[] {
    if (!this.bytesExact) fail('projection_invalid', 'this projection validated text, not bytes');
    return this.parent === null ? [...this.chunks] : [...this.parent.projection.validatedChunks(), ...this.chunks];
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
    this.generation++;
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
    this.generation++;
    this.poisoned = true;
  }

  private check(): ReplayState {
    if (this.poisoned) fail('projection_invalid', 'this projection failed validation; replay the ledger cold');
    if (this.parent !== null && !this.valid) fail('projection_invalid', 'the projection this fork was made from has changed since; fork it again');
    return this.state;
  }

  commitText(id: string): string | undefined {
    const record = this.texts.get(id);
    if (record === undefined) return this.parent?.projection.commitText(id);
    if (typeof record === 'string') return record;
    return decoder.decode(this.chunks[record.chunk]!.subarray(record.start, record.end));
  }

  successorOf(id: string): string | undefined {
    return this.successors.get(id) ?? this.parent?.projection.successorOf(id);
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
