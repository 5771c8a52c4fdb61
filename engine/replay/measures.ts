/**
 * What the record stage measures of one record's operations for the fold, when that stage runs
 * elsewhere (record.ts `verifyRecord` on a worker thread, lib/replay): the fold's per-operation
 * measurements that need no replay state. Whether a measure passes depends on the installed
 * Policy (a limit) or on nothing (a content-addressed id), so the stage hands over the measure
 * and the fold still decides:
 *   - every Work operation's `work_id` is SHA-256 of its `graph_id` and `node_key` (ops/work.ts);
 *   - the largest canonical size of the record's evidence records (ops/limits.ts
 *     `checkEvidenceBytes`: `evidence_bytes`) and of its Result descriptors (ops/barrier.ts:
 *     `result_bytes`).
 * The fold skips its own measurement only where the check passes with the handed-over one (the
 * Work ids all match; the largest size is within the limit in force at that operation), and
 * otherwise measures as it always does: so every error, and which comes first, is the one
 * sequential replay names. A record whose measuring throws is not measured (null), and the fold
 * measures all of it.
 */
import { canonicalSize } from '../codec/index.ts';
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
}

export function measureRecord(commit: QueueCommit): RecordMeasures | null {
  let workIdsVerified = true;
  let evidenceBytes = 0;
  let descriptorBytes = 0;
  try {
    for (const op of commit.operations) {
      if (op.kind === 'Work') {
        if (workIdsVerified && op.work_id !== workId(op.graph_id, op.node_key)) workIdsVerified = false;
        continue;
      }
      const evidence = evidenceRecord(op);
      if (evidence !== null) evidenceBytes = Math.max(evidenceBytes, canonicalSize(evidence));
      if (op.kind === 'Result') descriptorBytes = Math.max(descriptorBytes, canonicalSize(op.descriptor as unknown as JsonObject));
    }
  } catch (e) {
    if (isProtocolError(e)) return null;
    throw e;
  }
  return { workIdsVerified, evidenceBytes, descriptorBytes };
}
