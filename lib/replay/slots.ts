/**
 * The shared memory of one threaded verification (thread-verifier.ts, verify-worker.ts):
 * one Int32 slot per framed record, and a control block. A slot goes FREE → CLAIMED (by
 * whichever thread takes the record first: replay's own thread or a worker) → PASSED | bits,
 * or FAILED (replay then checks the record inline and names its error). Only the thread that
 * claimed a record writes its slot. FAILED also stands for a record that passed but that replay
 * must read itself (`verifyRecord` null: not canonical JSON, read by the strict parser, or a
 * record the schema parses into a new value, such as a Policy).
 */
import type { EnvelopeVerdict, VerifiedRecord } from '../../engine/replay/record.ts';

export const FREE = 0;
export const CLAIMED = 1;
export const FAILED = 2;
export const PASSED = 8;
const FINGERPRINT = 1;
const PARAMETERS = 2;
/** The repeated parameters' member is `nodes` (else `operations`). */
const NODES = 4;
/** The record's operations were measured (`measures`: its largest evidence and descriptor sizes). */
const MEASURED = 16;
/** ... and every Work operation's id matched. */
const WORK_IDS = 32;

/**
 * Control block: the next record a worker takes, whether the verification was closed, the record
 * replay's thread has reached, the next free entry of `payloads`.
 */
export const CURSOR = 0;
export const CLOSED = 1;
export const REACHED = 2;
export const PAYLOAD_CURSOR = 3;
export const CONTROL_SLOTS = 4;
/** Ledger bytes per entry of `payloads` (a Work operation's canonical text is longer): past that, payloads are left to the fold. */
export const PAYLOAD_BYTES_PER_ENTRY = 128;
/**
 * Workers take no record closer than this to the one replay's thread has reached: that thread
 * checks those itself rather than wait for a worker that started on them just before it.
 */
export const LEAD = 16;

/** What a worker posts once it has loaded. */
export const READY = 'ready';

/** What a worker is posted to start on a ledger. */
export interface VerifyJob {
  /** The ledger's bytes (`length` of them). */
  bytes: SharedArrayBuffer;
  length: number;
  /** Int32 pairs: each record's start and end offset (LF excluded). */
  frames: SharedArrayBuffer;
  /** Int32 per record: FREE, CLAIMED, FAILED or PASSED | verdict bits. */
  status: SharedArrayBuffer;
  /**
   * Int32 pairs: a PASSED record's repeated parameters (record.ts `VerifiedRecord.repeat`), the
   * span of their value in the record's text, written before its slot; start -1 for none.
   * Which member repeats is a verdict bit.
   */
  repeats: SharedArrayBuffer;
  /**
   * Int32 quadruples: a PASSED and MEASURED record's largest evidence and Result descriptor sizes
   * (record.ts `VerifiedRecord.measures`), and where its payload sizes sit in `payloads` (first
   * entry and count; -1 and 0 for none), written before its slot. Whether its Work ids matched is
   * a verdict bit.
   */
  measures: SharedArrayBuffer;
  /**
   * Int32: the payload sizes of measured records, by operation index (-1 for an operation that is
   * not Work), each record's run taken from PAYLOAD_CURSOR; a record that finds no room left
   * hands over none (the fold measures its payloads).
   */
  payloads: SharedArrayBuffer;
  control: SharedArrayBuffer;
}

/** Where `passed` writes a record's measures. */
export interface MeasureSlots {
  measures: Int32Array;
  payloads: Int32Array;
  control: Int32Array;
}

/** Writes record `n`'s repeated parameters into `repeats`, its measures into `slots`, and answers its PASSED slot. */
export function passed(record: VerifiedRecord, repeats: Int32Array, slots: MeasureSlots, n: number): number {
  const { verdict, repeat, measures: measured } = record;
  repeats[2 * n] = repeat === null ? -1 : repeat.start;
  repeats[2 * n + 1] = repeat === null ? -1 : repeat.end;
  let bits = PASSED | (verdict.fingerprintVerified ? FINGERPRINT : 0) | (verdict.parametersVerified ? PARAMETERS : 0) | (repeat?.name === 'nodes' ? NODES : 0);
  // Every size fits an Int32: it is at most a record line's length (LINE_BYTES).
  if (measured !== null) {
    const { measures, payloads, control } = slots;
    measures[4 * n] = measured.evidenceBytes;
    measures[4 * n + 1] = measured.descriptorBytes;
    measures[4 * n + 2] = -1;
    measures[4 * n + 3] = 0;
    const sizes = measured.payloadBytes;
    if (sizes !== null) {
      const first = Atomics.add(control, PAYLOAD_CURSOR, sizes.length);
      if (first + sizes.length <= payloads.length) {
        for (let i = 0; i < sizes.length; i++) payloads[first + i] = sizes[i]!;
        measures[4 * n + 2] = first;
        measures[4 * n + 3] = sizes.length;
      }
    }
    bits |= MEASURED | (measured.workIdsVerified ? WORK_IDS : 0);
  }
  return bits;
}

const VERDICTS: readonly EnvelopeVerdict[] = [0, 1, 2, 3].map((bits) => Object.freeze({ fingerprintVerified: (bits & FINGERPRINT) !== 0, parametersVerified: (bits & PARAMETERS) !== 0 }));

/** What a PASSED slot of record `n` says (its repeated parameters read from `repeats`, its measures from `slots`). */
export function verifiedOf(slot: number, repeats: Int32Array, slots: MeasureSlots, n: number): VerifiedRecord {
  const { measures, payloads } = slots;
  const verdict = VERDICTS[slot & (FINGERPRINT | PARAMETERS)]!;
  const start = repeats[2 * n]!;
  return {
    verdict,
    repeat: start < 0 ? null : { start, end: repeats[2 * n + 1]!, name: (slot & NODES) !== 0 ? 'nodes' : 'operations' },
    measures:
      (slot & MEASURED) === 0
        ? null
        : {
            workIdsVerified: (slot & WORK_IDS) !== 0,
            evidenceBytes: measures[4 * n]!,
            descriptorBytes: measures[4 * n + 1]!,
            payloadBytes: measures[4 * n + 2]! < 0 ? null : payloads.subarray(measures[4 * n + 2]!, measures[4 * n + 2]! + measures[4 * n + 3]!),
          },
  };
}
