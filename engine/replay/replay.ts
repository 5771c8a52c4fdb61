/**
 * Ledger bytes → validated causal chain → projection (spec 7.6, 7.17).
 * Cold replay validates everything from the genesis; incremental replay
 * extends a validated projection with appended bytes and rejects anything
 * that does not extend its validated prefix. Both run the same fold.
 */
import { decodeUtf8, frameLedger, parseLedgerRecord, splitLedger, utf8ByteLength } from '../codec/index.ts';
import { fail, isProtocolError, ProtocolError } from '../errors.ts';
import { parseQueueCommit, type QueueCommit } from '../schema/index.ts';
import { applyCommit } from './apply.ts';
import { CausalChain, type ChainRecord } from './chain.ts';
import { verifyEnvelopeText, type EnvelopeVerdict } from './envelope.ts';
import { installColdReplay, Projection } from './projection.ts';
import { createState } from '../state/state.ts';

interface ParsedRecord extends ChainRecord {
  commit: QueueCommit;
  verdict: EnvelopeVerdict;
  /** A record read from bytes: its byte offsets (LF excluded) in this input (`start` -1: read as text). */
  start: number;
  end: number;
}

export interface ReplayProgress {
  (done: { lines: number; commits: number }): void;
}

/** The projection of no commits: what a bootstrap builds its genesis against (never a read of a store). */
export function emptyProjection(): Projection {
  return new Projection(createState());
}

installColdReplay((text) => (text === '' ? emptyProjection() : replayLedger(text)));

/**
 * Cold replay of a complete ledger. Throws a `ProtocolError`; never returns a partial projection.
 * An existing queue file of zero bytes is `ledger_empty` (operator reference: "An existing log
 * that is empty, malformed, or unsupported produces an explicit error, not an empty backlog"),
 * distinct from an absent queue (`queue_uninitialized`, decided by the caller before replay).
 */
export function replayLedger(bytes: Uint8Array | string, onProgress?: ReplayProgress): Projection {
  if (bytes.length === 0) fail('ledger_empty', 'the queue ledger exists but is empty (0 bytes): an existing empty log is an error, not an empty backlog');
  const projection = emptyProjection();
  extend(projection, bytes, onProgress);
  return projection;
}

/**
 * Incremental replay: `appended` are the bytes written after the validated
 * prefix. A framing error leaves the projection as it was; any later error
 * poisons it (`projection.valid` false) and the caller must fall back to a
 * cold replay. Errors name lines counted from the start of the ledger.
 */
export function appendLedger(projection: Projection, appended: Uint8Array | string): Projection {
  if (!projection.valid) fail('projection_invalid', 'this projection failed validation earlier; replay the ledger cold');
  extend(projection, appended);
  return projection;
}

/** Incremental refresh from the full new ledger: reuses the projection only if `full` extends its bytes. */
export function refreshLedger(projection: Projection, full: Uint8Array, onProgress?: ReplayProgress): Projection {
  if (projection.isPrefixOf(full)) return appendLedger(projection, full.subarray(projection.validatedLength));
  return replayLedger(full, onProgress);
}

function extend(projection: Projection, input: Uint8Array | string, onProgress?: ReplayProgress): void {
  const { state } = projection;
  const lineBase = projection.lineCount;
  // Byte input is framed without decoding it whole, so no large decoded string outlives replay.
  // A framing error (truncated, blank, CR-ended or over-long record) changes nothing: it comes
  // before the input is staged, and leaves the projection valid.
  let frames: ReturnType<typeof splitLedger> | ReturnType<typeof frameLedger>;
  try {
    frames = typeof input === 'string' ? splitLedger(input) : frameLedger(input);
  } catch (e) {
    throw isProtocolError(e) ? onLedgerLine(e, lineBase) : e;
  }
  const chunk = projection.stageChunk(input);
  const chain = new CausalChain<ParsedRecord>(state.tip, projection);
  try {
    for (let n = 0; n < frames.length; n++) {
      const frame = frames[n]!;
      const physical = lineBase + frame.line;
      let text: string;
      let start = -1;
      let end = 0;
      if ('text' in frame) {
        text = frame.text;
      } else {
        ({ start, end } = frame);
        text = decodeRecord(input as Uint8Array, start, end, physical);
      }
      const { commit, verdict } = parseRecord(text, physical, start < 0 ? undefined : end - start);
      for (const next of chain.offer({ id: commit.id, previous: commit.previous, text, line: physical, commit, verdict, start, end })) {
        // The chain releases `next` onto the tip: its `previous` is the tip's id, whose string
        // (unlike the record's own copy) the maps have already hashed.
        const previous = next.previous !== null && next.previous === state.tip ? state.tip : next.previous;
        applyCommit(state, next.commit, { line: next.line, fingerprintVerified: next.verdict.fingerprintVerified, parametersVerified: next.verdict.parametersVerified, bytes: recordBytes(next) });
        if (next.start < 0) projection.remember(next.id, previous, next.text);
        else projection.remember(next.id, previous, null, chunk, next.start, next.end);
      }
      if (onProgress !== undefined && (n + 1) % 1000 === 0) onProgress({ lines: n + 1, commits: state.commits.length });
    }
    chain.finish();
    if (state.tip === null && frames.length > 0) fail('missing_genesis', 'no genesis record (previous = null) in the ledger');
    projection.accept(input, frames.length);
  } catch (e) {
    // A ProtocolError is the verdict on the ledger. Anything else is a bug in the engine and
    // propagates unchanged: it is never reported as a protocol verdict (surfaces map it once
    // to `internal_error`).
    projection.poison();
    throw e;
  }
}

/** The record's bytes in the ledger: its line and LF. */
function recordBytes(record: ParsedRecord): number {
  return record.start < 0 ? utf8ByteLength(record.text) + 1 : record.end - record.start + 1;
}

function decodeRecord(input: Uint8Array, start: number, end: number, line: number): string {
  try {
    return decodeUtf8(input.subarray(start, end));
  } catch (e) {
    throw isProtocolError(e) ? e.at({ line }) : e;
  }
}

/**
 * Framing counts lines within its input; an appended input starts after `lineBase` validated
 * lines, and every error names its line counted from the start of the ledger.
 */
function onLedgerLine(e: ProtocolError, lineBase: number): ProtocolError {
  if (lineBase === 0 || e.line === undefined) return e;
  return new ProtocolError(e.code, e.message, { commit: e.commit, line: e.line + lineBase, operation: e.operation, path: e.path }, e.details);
}

const UNVERIFIED: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };

function parseRecord(text: string, line: number, bytes: number | undefined): { commit: QueueCommit; verdict: EnvelopeVerdict } {
  try {
    const { value, spans, record } = parseLedgerRecord(text, bytes);
    const version = (value as { version?: unknown } | null)?.version;
    if (version !== 3) fail('unsupported_protocol', `record version ${JSON.stringify(version)} is not the supported version 3`);
    // The request parameters' copy of the operations has the same text, hence the same value: validated once.
    const alias = record?.repeats == null ? undefined : (value as { request: { parameters: Record<string, unknown> } }).request.parameters[record.repeats];
    const commit = parseQueueCommit(value, alias);
    return { commit, verdict: spans === null ? UNVERIFIED : verifyEnvelopeText(text, spans, commit, record) };
  } catch (e) {
    if (isProtocolError(e)) throw e.at({ line });
    throw e;
  }
}
