/**
 * What the record stage (record.ts) measures of one record's operations for the fold: the
 * fold's per-operation measurements that need no replay state. Whether a measure passes
 * depends on the installed Policy (a limit) or on nothing (a content-addressed id), so the
 * stage hands over the measure and the fold still decides:
 *   - every Work operation's `work_id` is SHA-256 of its `graph_id` and `node_key` (ops/work.ts);
 *   - the largest canonical size of the record's evidence records (ops/limits.ts
 *     `checkEvidenceBytes`: `evidence_bytes`) and of its Result descriptors (ops/barrier.ts:
 *     `result_bytes`);
 *   - each Work payload's canonical size (ops/work.ts: `payload_bytes`, and the size the
 *     scheduler packs), when the record's spans are at hand (an ASCII record).
 * A record proven canonical by the one-pass check (codec/canonical.ts) has these sizes in its
 * spans: a value's canonical text is its span, so for an ASCII record its size is the span's
 * length, and nothing is serialised or walked. Otherwise they are measured on the values.
 *
 * The fold skips its own measurement only where the check passes with the handed-over one (the
 * Work ids all match; the largest size is within the limit in force at that operation; a
 * payload's size is the size it would measure), and otherwise measures as it always does: so
 * every error, and which comes first, is the one sequential replay names. A record whose
 * measuring throws is not measured (null), and the fold measures all of it.
 */
import { canonicalSize, DESCRIPTOR_AT, EVIDENCE_AT, OPERATION_SPAN, PAYLOAD_AT } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { workId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { QueueCommit } from '../schema/index.ts';
import { evidenceRecord } from './ops/evidence-record.ts';

export interface RecordMeasures {
  /** Every Work operation's `work_id` is its derived id (true when the record has no Work). */
  workIdsVerified: boolean;
  /** Largest canonical size of an evidence record of the record, 0 when it has none. */
  evidenceBytes: number;
  /** Largest canonical size of a Result descriptor of the record, 0 when it has none. */
  descriptorBytes: number;
  /** Canonical size of each Work operation's payload by operation index (-1 for any other operation), or null when not measured. */
  payloadBytes: ArrayLike<number> | null;
}

/**
 * The measures of `commit`. `spans`: the one-pass check's `RecordSpans.operations` of its text,
 * when that text is ASCII (a span's length is then its UTF-8 size); else the values are measured.
 */
export function measureRecord(commit: QueueCommit, spans: readonly number[] | null = null): RecordMeasures | null {
  const ops = commit.operations;
  const fromSpans = spans !== null && spans.length === ops.length * OPERATION_SPAN;
  let workIdsVerified = true;
  let evidenceBytes = 0;
  let descriptorBytes = 0;
  let payloadBytes: number[] | null = null;
  try {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const at = i * OPERATION_SPAN;
      if (op.kind === 'Work') {
        if (workIdsVerified && op.work_id !== workId(op.graph_id, op.node_key)) workIdsVerified = false;
        const bytes = fromSpans ? spanBytes(spans, at + PAYLOAD_AT) : -1;
        if (bytes >= 0) (payloadBytes ??= new Array<number>(ops.length).fill(-1))[i] = bytes;
        continue;
      }
      const evidence = evidenceRecord(op);
      if (evidence !== null) {
        const bytes = fromSpans ? spanBytes(spans, evidence === (op as unknown) ? at : at + EVIDENCE_AT) : -1;
        evidenceBytes = Math.max(evidenceBytes, bytes >= 0 ? bytes : canonicalSize(evidence));
      }
      if (op.kind === 'Result') {
        const bytes = fromSpans ? spanBytes(spans, at + DESCRIPTOR_AT) : -1;
        descriptorBytes = Math.max(descriptorBytes, bytes >= 0 ? bytes : canonicalSize(op.descriptor as unknown as JsonObject));
      }
    }
  } catch (e) {
    if (isProtocolError(e)) return null;
    throw e;
  }
  return { workIdsVerified, evidenceBytes, descriptorBytes, payloadBytes };
}

/** Length of the span at `spans[at]`, `spans[at + 1]`, or -1 when there is none. */
function spanBytes(spans: readonly number[], at: number): number {
  const start = spans[at]!;
  return start < 0 ? -1 : spans[at + 1]! - start;
}
