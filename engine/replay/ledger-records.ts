/**
 * The records behind a projection (projection.ts): each commit's line, kept
 * as the validated input it arrived in (a byte chunk and the span of its
 * line, as numbers: no object per commit) or as its text, and each commit's
 * successor on the chain. A fork's records start empty and read through to
 * the records it was forked from.
 */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class LedgerRecords {
  /**
   * Each commit's record: its text, or where its bytes sit in a retained input chunk, as the
   * index `i` of `spans[3i..3i+2]` = chunk, start, end.
   */
  private readonly texts = new Map<string, string | number>();
  private readonly spans: number[] = [];
  private readonly successors = new Map<string, string>();
  /** Validated byte inputs, in order (records point into them). */
  private readonly chunks: Uint8Array[] = [];
  /** False once any input arrived as text (here or in the records forked from): the byte prefix is then unknown. */
  bytesExact: boolean;
  /** Bytes validated, those of the records forked from included. */
  byteLength: number;

  constructor(private readonly parent: LedgerRecords | null) {
    this.bytesExact = parent?.bytesExact ?? true;
    this.byteLength = parent?.byteLength ?? 0;
  }

  /** Retains a byte input before its records are folded; answers its chunk index (-1 for text). */
  stage(input: Uint8Array | string): number {
    if (typeof input === 'string') return -1;
    this.chunks.push(input);
    return this.chunks.length - 1;
  }

  /** Commit `id` extends `previous`; its record is `text`, or (null) bytes `start`..`end` of input `chunk`. */
  remember(id: string, previous: string | null, text: string | null, chunk: number, start: number, end: number): void {
    if (text !== null) this.texts.set(id, text);
    else {
      this.texts.set(id, this.spans.length / 3);
      this.spans.push(chunk, start, end);
    }
    if (previous !== null) this.successors.set(previous, id);
  }

  /** An input's records were all validated. */
  accept(input: Uint8Array | string): void {
    if (typeof input === 'string') {
      this.bytesExact = false;
      this.byteLength += Buffer.byteLength(input);
    } else {
      this.byteLength += input.length; // retained by `stage`
    }
  }

  text(id: string): string | undefined {
    const record = this.texts.get(id);
    if (record === undefined) return this.parent?.text(id);
    if (typeof record === 'string') return record;
    const at = 3 * record;
    const spans = this.spans;
    return decoder.decode(this.chunks[spans[at]!]!.subarray(spans[at + 1]!, spans[at + 2]!));
  }

  successorOf(id: string): string | undefined {
    return this.successors.get(id) ?? this.parent?.successorOf(id);
  }

  /** The validated byte inputs from the start of the ledger, in order (only when `bytesExact`). */
  allChunks(): Uint8Array[] {
    return this.parent === null ? [...this.chunks] : [...this.parent.allChunks(), ...this.chunks];
  }
}
