/**
 * The record `limits.evidence_bytes` bounds in an operation (spec 7.17: "1 KiB per
 * observation/control/lifecycle evidence record"): a lifecycle operation's `evidence` object, or
 * a whole Observation or Control. Pure, so both the fold (limits.ts) and the record stage
 * (../measures.ts) read the same record.
 */
import type { JsonObject } from '../../json.ts';
import type { QueueOperation } from '../../schema/index.ts';

/** The record `evidence_bytes` bounds in `op`, or null when the operation carries none. */
export function evidenceRecord(op: QueueOperation): JsonObject | null {
  switch (op.kind) {
    case 'Observation':
    case 'Control':
      return op as unknown as JsonObject;
    case 'Dispatch':
    case 'Release':
    case 'Result':
    case 'DeliveryFailure':
      return (op.evidence ?? null) as JsonObject | null;
    default:
      return null;
  }
}
