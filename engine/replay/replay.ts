/**
 * Ledger bytes → validated causal chain → projection (spec 7.6, 7.17).
 * Cold replay validates everything from the genesis; incremental replay
 * extends a validated projection with appended bytes and rejects anything
 * that does not extend its validated prefix. Both run the same fold.
 */
import { frameLedger, splitLedger, utf8ByteLength } from '../codec/index.ts';
import { fail, isProtocolError, ProtocolError } from '../errors.ts';
import type { QueueCommit } from '../schema/index.ts';
import { applyCommit } from './apply.ts';
import { CausalChain, type ChainRecord } from './chain.ts';
import type { EnvelopeVerdict } from './envelope.ts';
import { installColdReplay, Projection } from './projection.ts';
import { RecordDefinitions } from './definitions.ts';
import { RecordTexts } from './record-texts.ts';
import { parseRecord, verifiedCommit, type RecordMeasures, type RecordVerdicts, type RecordVerifier, type VerifiedRecord } from './record.ts';
import { createState } from '../state/state.ts';

/**
 * One record on its way to the fold. A byte input's record is read from its bytes (RecordTexts):
 * its text is decoded only when asked for (the chain compares a duplicate's text), not for every
 * record replay folds.
 */
class ParsedRecord implements ChainRecord {
  readonly id: string;
  readonly previous: string | null;
  constructor(
    readonly commit: QueueCommit,
    readonly verdict: EnvelopeVerdict,
    /** What the record stage measured of its operations (measures.ts), inline or on a verifier; null when nothing was. */
    readonly measures: RecordMeasures | null,
    /** Whether the record's text is its canonical serialisation (every record verified elsewhere is). */
    readonly canonical: boolean,
    readonly line: number,
    /** A record read from bytes: its byte offsets (LF excluded) in this input (`start` -1: read as text). */
    readonly start: number,
    readonly end: number,
    /** The record's frame in its input (its text, when not yet known, is read from `texts`). */
    private readonly frame: number,
    private known: string | null,
    private readonly texts: RecordTexts | null,
  ) {
    this.id = commit.id;
    this.previous = commit.previous;
  }

  get text(): string {
    return (this.known ??= this.texts!.text(this.frame, this.line));
  }
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
 * A `verifier` checks byte input's records ahead of the fold (record.ts); the outcome is the same.
 */
export function replayLedger(bytes: Uint8Array | string, onProgress?: ReplayProgress, verifier?: RecordVerifier): Projection {
  if (bytes.length === 0) fail('ledger_empty', 'the queue ledger exists but is empty (0 bytes): an existing empty log is an error, not an empty backlog');
  const projection = emptyProjection();
  extend(projection, bytes, onProgress, verifier);
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

function extend(projection: Projection, input: Uint8Array | string, onProgress?: ReplayProgress, verifier?: RecordVerifier): void {
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
  let verdicts: RecordVerdicts | null = null;
  const texts = typeof input === 'string' ? null : new RecordTexts(input, frames as ReturnType<typeof frameLedger>);
  // Every record folded here is remembered right after: its Works' definitions are read back from it.
  const definitions = new RecordDefinitions({ record: (id) => projection.commitRecord(id) });
  try {
    if (verifier !== undefined && typeof input !== 'string') verdicts = verifier.open(input, frames as ReturnType<typeof frameLedger>);
    for (let n = 0; n < frames.length; n++) {
      const frame = frames[n]!;
      const physical = lineBase + frame.line;
      let text: string | null = null;
      let start = -1;
      let end = 0;
      let commit: QueueCommit;
      let verdict: EnvelopeVerdict;
      let verified: VerifiedRecord | null = null;
      let measures: RecordMeasures | null;
      let canonical = true;
      if ('text' in frame) {
        text = frame.text;
      } else {
        ({ start, end } = frame);
        if (verdicts !== null) verified = verdicts.verdictOf(n);
      }
      if (verified !== null) {
        // Verified elsewhere: parsed straight from its bytes, its text decoded only if asked for.
        commit = text === null ? texts!.verifiedCommit(n, physical, verified.repeat) : verifiedCommit(text, verified.repeat);
        verdict = verified.verdict;
        measures = verified.measures;
      } else {
        text ??= texts!.text(n, physical);
        ({ commit, verdict, measures, canonical } = parseRecord(text, physical, start < 0 ? undefined : end - start));
      }
      for (const next of chain.offer(new ParsedRecord(commit, verdict, measures, canonical, physical, start, end, n, text, texts))) {
        // The chain releases `next` onto the tip: its `previous` is the tip's id, whose string
        // (unlike the record's own copy) the maps have already hashed.
        const previous = next.previous !== null && next.previous === state.tip ? state.tip : next.previous;
        applyCommit(state, next.commit, { line: next.line, fingerprintVerified: next.verdict.fingerprintVerified, parametersVerified: next.verdict.parametersVerified, bytes: recordBytes(next), measures: next.measures, definitions });
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
  } finally {
    verdicts?.close();
  }
}

/**
 * The record's canonical bytes (its canonical line and LF: what the ledger budget counts, spec
 * 7.17 "Canonical ledger new-admission watermark"): its line's, when that is canonical; else
 * undefined, and the fold measures the canonical serialisation of its commit.
 */
function recordBytes(record: ParsedRecord): number | undefined {
  if (!record.canonical) return undefined;
  return record.start < 0 ? utf8ByteLength(record.text) + 1 : record.end - record.start + 1;
}

/**
 * Framing counts lines within its input; an appended input starts after `lineBase` validated
 * lines, and every error names its line counted from the start of the ledger.
 */
function onLedgerLine(e: ProtocolError, lineBase: number): ProtocolError {
  if (lineBase === 0 || e.line === undefined) return e;
  return new ProtocolError(e.code, e.message, { commit: e.commit, line: e.line + lineBase, operation: e.operation, path: e.path }, e.details);
}
