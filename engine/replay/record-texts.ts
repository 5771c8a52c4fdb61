/**
 * The texts of a byte input's framed records, read a window at a time (spec 7.6, 7.17 hot
 * path). A window is WINDOW_BYTES of whole records (or one longer record) whose ASCII-ness is
 * checked at once (one native check; almost every ledger is ASCII). An ASCII record is its own
 * UTF-8 decoding, read as Latin-1; a window that is not ASCII is decoded record by record
 * (`decodeRecord`), so an invalid sequence is named at its own line.
 *
 * Replay reads a record whose every check passed on a verifier (record.ts) straight from its
 * bytes (`verifiedCommit`): its repeated parameters are left out as the bytes are copied into a
 * scratch buffer, so the one string made for it is the text `JSON.parse` reads, and no text of
 * the whole record is made unless something asks for it (`text`: a duplicate's comparison, a
 * record checked inline). Asked, the texts of a window are decoded into one string (a string
 * under V8's large-object size, allocated in the young generation and dead there once its
 * records are folded) and each record's text is a slice of it. A record before the current
 * window (a waiting record's text, asked late) is decoded on its own.
 */
import { isAscii } from 'node:buffer';
import { bufferOf, decodeAscii, type LedgerFrame } from '../codec/lines.ts';
import { relinkRepeated, type RepeatedParameters } from '../codec/repeat.ts';
import type { QueueCommit } from '../schema/index.ts';
import { decodeRecord, verifiedCommit } from './record.ts';

/** Bytes of whole records checked (and, when asked, decoded) at once (at most: a longer record is a window of its own). */
export const WINDOW_BYTES = 1 << 16;

export class RecordTexts {
  private readonly bytes: Buffer;
  /** The window's decoded text, once a record's text was asked for (ASCII windows only). */
  private window: string | null = null;
  private ascii = false;
  /** Byte offset of the window's first character in the input. */
  private windowStart = 0;
  /** First frame of the window, and first frame past it. */
  private windowFirst = 0;
  private windowEnd = 0;
  /** A verified record's text without its repeated parameters is assembled here. */
  private scratch: Buffer = Buffer.allocUnsafe(0);

  constructor(
    input: Uint8Array,
    private readonly frames: readonly LedgerFrame[],
  ) {
    this.bytes = bufferOf(input);
  }

  /** Record `n`'s text; `line` names it in a decoding error. */
  text(n: number, line: number): string {
    const frame = this.frames[n]!;
    if (!this.within(n) || !this.ascii) return decodeRecord(this.bytes, frame.start, frame.end, line);
    const window = (this.window ??= decodeAscii(this.bytes.subarray(this.windowStart, this.frames[this.windowEnd - 1]!.end)));
    return window.slice(frame.start - this.windowStart, frame.end - this.windowStart);
  }

  /**
   * The value of record `n` whose every check passed on a verifier, which answered `repeat`:
   * what `verifiedCommit(this.text(n, line), repeat)` returns (record.ts), read from its bytes.
   */
  verifiedCommit(n: number, line: number, repeat: RepeatedParameters | null): QueueCommit {
    if (!this.within(n) || !this.ascii) return verifiedCommit(this.text(n, line), repeat);
    const { start, end } = this.frames[n]!;
    const bytes = this.bytes;
    // An ASCII record's character offsets (what `repeat` holds) are its byte offsets.
    if (repeat === null) return JSON.parse(bytes.toString('latin1', start, end)) as QueueCommit;
    const head = repeat.start;
    const length = end - start - (repeat.end - head) + 1;
    let scratch = this.scratch;
    if (scratch.length < length) scratch = this.scratch = Buffer.allocUnsafe(Math.max(length, 2 * scratch.length));
    bytes.copy(scratch, 0, start, start + head);
    scratch[head] = 0x30; // the parameters' text, replaced by `0`
    bytes.copy(scratch, head + 1, start + repeat.end, end);
    return relinkRepeated(JSON.parse(scratch.toString('latin1', 0, length)), repeat) as unknown as QueueCommit;
  }

  /** Whether record `n` is in the current window, moving the window forward to it when it lies ahead. */
  private within(n: number): boolean {
    if (n >= this.windowEnd) this.load(n);
    return n >= this.windowFirst;
  }

  /** Frames `n`.. up to WINDOW_BYTES (at least one): checked for ASCII, decoded when a text is asked for. */
  private load(n: number): void {
    const { frames, bytes } = this;
    const from = frames[n]!.start;
    let m = n + 1;
    while (m < frames.length && frames[m]!.end - from <= WINDOW_BYTES) m++;
    this.ascii = isAscii(bytes.subarray(from, frames[m - 1]!.end));
    this.window = null;
    this.windowStart = from;
    this.windowFirst = n;
    this.windowEnd = m;
  }
}
