/**
 * One ledger record, on its own (spec 7.1, 7.2, 7.6): UTF-8, the line limit,
 * canonical form, protocol version, the closed QueueCommit schema and the
 * request envelope (fingerprint, parameters). None of it depends on any other
 * record, so it can run anywhere, in any order, before the fold: cold replay
 * runs it inline, or takes the verdict of a `RecordVerifier` that ran this same
 * function elsewhere (lib/replay: worker threads) and runs it here again for
 * any record the verifier did not pass. Either way the fold sees one value per
 * line and the first error of the ledger is the one sequential replay names.
 */
import { decodeUtf8, parseLedgerRecord } from '../codec/index.ts';
import { parseRepeated, type RepeatedParameters } from '../codec/repeat.ts';
import { fail, isProtocolError } from '../errors.ts';
import { parseQueueCommit, type QueueCommit } from '../schema/index.ts';
import { verifyEnvelopeText, type EnvelopeVerdict } from './envelope.ts';
import { measureRecord, type RecordMeasures } from './measures.ts';

export type { EnvelopeVerdict } from './envelope.ts';
export type { RepeatedParameters } from '../codec/repeat.ts';
export type { RecordMeasures } from './measures.ts';

/**
 * What a record whose every check passed elsewhere carries to the fold: its envelope verdict,
 * where its request parameters repeat its operations (null: they do not), so that replay
 * parses that copy of the operations no more than the check did, and what was measured of its
 * operations (measures.ts; null: not measured, the fold measures).
 */
export interface VerifiedRecord {
  verdict: EnvelopeVerdict;
  repeat: RepeatedParameters | null;
  measures: RecordMeasures | null;
}

const UNVERIFIED: EnvelopeVerdict = { fingerprintVerified: false, parametersVerified: false };

/**
 * Verdicts on a byte input's records reached before the fold (every record of
 * `frames`, by index). `verdictOf(n)` answers what `verifyRecord` answered for a
 * record that passed every check, or null when the record has not
 * been verified (or failed): replay then verifies it inline. `close()` is
 * called once, when replay of the input ends (either way).
 */
export interface RecordVerdicts {
  verdictOf(frame: number): VerifiedRecord | null;
  close(): void;
}

/** Starts verifying a byte input's framed records (offsets exclude the LF), or answers null to leave all of them to replay. */
export interface RecordVerifier {
  open(input: Uint8Array, frames: readonly { start: number; end: number }[]): RecordVerdicts | null;
}

/** UTF-8 of the record `input[start, end)`; errors name `line`. */
export function decodeRecord(input: Uint8Array, start: number, end: number, line: number): string {
  try {
    return decodeUtf8(input.subarray(start, end));
  } catch (e) {
    throw isProtocolError(e) ? e.at({ line }) : e;
  }
}

/**
 * Every check of one record's text; `bytes`, when known, is its UTF-8 length.
 * Throws the record's `ProtocolError`, located at `line`. `canonical`: the text is the record's
 * canonical serialisation (a record may be written otherwise: spec 7.6 "Canonicalization changes
 * key order, insignificant whitespace and equivalent JSON escaping, not the decoded data").
 * `plain`: the commit is
 * `JSON.parse(text)` itself (not for a record that is not canonical JSON, read by
 * the strict parser, nor for one the schema parses into a new value). `measures`: what the
 * fold would measure of its operations (measures.ts), from the one-pass check's spans when the
 * record is ASCII; null for a record that is not proven canonical (the fold measures it).
 */
export function parseRecord(text: string, line: number, bytes: number | undefined): { commit: QueueCommit; verdict: EnvelopeVerdict; plain: boolean; canonical: boolean; repeat: RepeatedParameters | null; measures: RecordMeasures | null } {
  try {
    const { value, spans, record, repeat } = parseLedgerRecord(text, bytes);
    const version = (value as { version?: unknown } | null)?.version;
    if (version !== 3) fail('unsupported_protocol', `record version ${JSON.stringify(version)} is not the supported version 3`);
    // The request parameters' copy of the operations has the same text, hence the same value: validated once.
    const alias = record?.repeats == null ? undefined : (value as { request: { parameters: Record<string, unknown> } }).request.parameters[record.repeats];
    const commit = parseQueueCommit(value, alias);
    // `plain`: the commit is the very value JSON.parse returned (zod builds a new one for a record the
    // fast validator cannot prove, e.g. a Policy: other key order, prototype-free maps).
    if (spans === null) return { commit, verdict: UNVERIFIED, plain: false, canonical: false, repeat: null, measures: null };
    const measures = measureRecord(commit, record !== null && bytes === text.length ? record.operations : null);
    return { commit, verdict: verifyEnvelopeText(text, spans, commit, record), plain: commit === value, canonical: true, repeat, measures };
  } catch (e) {
    if (isProtocolError(e)) throw e.at({ line });
    throw e;
  }
}

/**
 * Every check of the record `input[start, end)` (decoding included): what a `RecordVerifier`
 * runs for each frame. Its envelope verdict, repeated parameters and the measures of its
 * operations the fold would take (measures.ts), or null for a record whose commit is not plain
 * `JSON.parse` of its text (replay reads that one itself: `verifiedCommit` would not match).
 */
export function verifyRecord(input: Uint8Array, start: number, end: number): VerifiedRecord | null {
  const { verdict, plain, repeat, measures } = parseRecord(decodeRecord(input, start, end, 0), 0, end - start);
  return plain ? { verdict, repeat, measures } : null;
}

/**
 * The value of a record whose every check passed elsewhere (`verifyRecord` on
 * the same bytes, which answered `repeat`): what `parseRecord` would return,
 * without checking again.
 */
export function verifiedCommit(text: string, repeat: RepeatedParameters | null): QueueCommit {
  return (repeat === null ? JSON.parse(text) : parseRepeated(text, repeat)) as QueueCommit;
}
