/**
 * The records behind a projection (projection.ts): each commit's line, kept
 * as the validated input it arrived in (a byte chunk and the span of its
 * line, as numbers: no object per commit) or as its text, and each commit's
 * successor on the chain. A fork's records start empty and read through to
 * the records it was forked from.
 *
 * Records are kept by the commit's position in the replay state (`state.commitIndex`, which
 * the fold fills for every commit it applies), not in maps of their own keyed by commit id:
 * replay remembers each record right after folding it, so the position is the state's last,
 * and the commits the fold applied form one chain, so a commit's successor is the commit at
 * the next position (a root, the genesis or a checkpoint root, has no predecessor: the fold
 * refuses a root with one).
 */
import type { ReplayState } from '../state/state.ts';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TEXT = -1;
const NONE = -2;

export class LedgerRecords {
  /** Position in the state of this object's first record (a fork's records follow its parent's). */
  private readonly base: number;
  /**
   * Record at position `base + i`: `spans[3i..3i+2]` = chunk, start, end of its bytes in a
   * retained input chunk, or chunk TEXT for a record read as text (`texts`, by position), or
   * NONE for a commit folded into the state without a record (a writer's `commitOn`).
   */
  private readonly spans: number[] = [];
  private readonly texts = new Map<number, string>();
  /** Validated byte inputs, in order (records point into them). */
  private readonly chunks: Uint8Array[] = [];
  /** False once any input arrived as text (here or in the records forked from): the byte prefix is then unknown. */
  bytesExact: boolean;
  /** Bytes validated, those of the records forked from included. */
  byteLength: number;

  /** @param state the replay state the records' commits are folded into (a fork's own view) */
  constructor(
    private readonly state: ReplayState,
    private readonly parent: LedgerRecords | null,
  ) {
    this.base = state.commits.length;
    this.bytesExact = parent?.bytesExact ?? true;
    this.byteLength = parent?.byteLength ?? 0;
  }

  /** Retains a byte input before its records are folded; answers its chunk index (-1 for text). */
  stage(input: Uint8Array | string): number {
    if (typeof input === 'string') return -1;
    this.chunks.push(input);
    return this.chunks.length - 1;
  }

  /**
   * Commit `id`, just folded (the state's last commit), extends `previous`; its record is `text`,
   * or (null) bytes `start`..`end` of input `chunk`.
   */
  remember(id: string, previous: string | null, text: string | null, chunk: number, start: number, end: number): void {
    const { commits } = this.state;
    const position = commits.length - 1;
    const local = position - this.base;
    // The chain released `id` onto the tip and the fold appended it: anything else is a bug in the engine.
    if (local < this.spans.length / 3 || commits[position]!.id !== id || previous !== (position === 0 ? null : commits[position - 1]!.id)) {
      throw new Error(`LedgerRecords.remember: commit ${id} is not the state's last folded commit, extending the one before`);
    }
    // Commits folded into the state without a record (a writer folds its own) have none.
    while (this.spans.length / 3 < local) this.spans.push(NONE, 0, 0);
    if (text !== null) {
      this.texts.set(local, text);
      this.spans.push(TEXT, 0, 0);
    } else {
      this.spans.push(chunk, start, end);
    }
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
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.textAt(position);
  }

  /** Commit `id`'s record as kept: its bytes (a view of the retained input, not a copy) or its text. */
  record(id: string): Uint8Array | string | undefined {
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.recordAt(position);
  }

  private recordAt(position: number): Uint8Array | string | undefined {
    const local = position - this.base;
    if (local < 0) return this.parent?.recordAt(position);
    const at = 3 * local;
    const chunk = this.spans[at];
    if (chunk === undefined || chunk === NONE) return undefined;
    if (chunk === TEXT) return this.texts.get(local);
    return this.chunks[chunk]!.subarray(this.spans[at + 1]!, this.spans[at + 2]!);
  }

  /**
   * Where commit `id` sits in the state. The state's own commit there must be `id`: a fork's
   * index reads through to its parent's, which may have moved on since (a stale fork has no
   * record of the parent's new commits).
   */
  private positionOf(id: string): number | undefined {
    const position = this.state.commitIndex.get(id);
    return position !== undefined && this.state.commits[position]?.id === id ? position : undefined;
  }

  private textAt(position: number): string | undefined {
    const local = position - this.base;
    if (local < 0) return this.parent?.textAt(position);
    const at = 3 * local;
    const spans = this.spans;
    const chunk = spans[at];
    if (chunk === undefined || chunk === NONE) return undefined; // folded, not (yet) remembered
    if (chunk === TEXT) return this.texts.get(local);
    return decoder.decode(this.chunks[chunk]!.subarray(spans[at + 1]!, spans[at + 2]!));
  }

  successorOf(id: string): string | undefined {
    const position = this.positionOf(id);
    return position === undefined ? undefined : this.state.commits[position + 1]?.id;
  }

  /** The validated byte inputs from the start of the ledger, in order (only when `bytesExact`). */
  allChunks(): Uint8Array[] {
    return this.parent === null ? [...this.chunks] : [...this.parent.allChunks(), ...this.chunks];
  }
}
