/**
 * The texts of a byte input's framed records, decoded a window at a time (spec 7.6, 7.17 hot
 * path). An ASCII window (one native check; almost every ledger) is its own UTF-8 decoding: it
 * is decoded into one string, and each record's text is a slice of it, so replay makes no
 * string per record. A window is WINDOW_BYTES of whole records (or one longer record): a string
 * under V8's large-object size, so it is allocated in the young generation and dies there once
 * its records are folded (1 MiB windows, large objects kept until a full GC, raised the peak RSS
 * of a 64 MiB replay by 45 MiB for no measurable gain), and no decoded string of the whole
 * ledger outlives replay. A window that is not ASCII is decoded record by record
 * (`decodeRecord`), so an invalid sequence is named at its own line.
 */
import { isAscii } from 'node:buffer';
import { decodeAscii, type LedgerFrame } from '../codec/lines.ts';
import { decodeRecord } from './record.ts';

/** Bytes of whole records decoded at once (at most: a longer record is a window of its own). */
export const WINDOW_BYTES = 1 << 16;

export class RecordTexts {
  private window: string | null = null;
  /** Byte offset of the window's first character in the input. */
  private windowStart = 0;
  /** First frame past the window. */
  private windowEnd = 0;

  constructor(
    private readonly input: Uint8Array,
    private readonly frames: readonly LedgerFrame[],
  ) {}

  /** Record `n`'s text; `line` names it in a decoding error. */
  text(n: number, line: number): string {
    const frame = this.frames[n]!;
    if (n >= this.windowEnd) this.load(n);
    const window = this.window;
    return window === null ? decodeRecord(this.input, frame.start, frame.end, line) : window.slice(frame.start - this.windowStart, frame.end - this.windowStart);
  }

  /** Frames `n`.. up to WINDOW_BYTES (at least one): one string if ASCII, else none. */
  private load(n: number): void {
    const { frames, input } = this;
    const from = frames[n]!.start;
    let m = n + 1;
    while (m < frames.length && frames[m]!.end - from <= WINDOW_BYTES) m++;
    const to = frames[m - 1]!.end;
    const bytes = input.subarray(from, to);
    this.window = isAscii(bytes) ? decodeAscii(bytes) : null;
    this.windowStart = from;
    this.windowEnd = m;
  }
}
