/**
 * One-line summaries of committed operations for receipts and commit views:
 * kinds, targets and reason codes only — never payloads, descriptors or
 * evidence bodies (spec 7.13 "Normal output should be a few lines").
 */
import type { JsonObject } from '../../../engine/json.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { formatTime } from './format.ts';

export interface OperationSummary {
  kind: string;
  /** Work the operation names, for a link (null when none). */
  workId: string | null;
  /** The Work's node key at display time (escaped by the renderer). */
  nodeKey: string | null;
  claimId: string | null;
  dispatchId: string | null;
  detail: string;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function resourceLabel(r: unknown): string {
  const o = (r ?? {}) as JsonObject;
  return `${o.kind === 'pull_request' ? 'PR' : 'Issue'} ${String(o.repository)}#${String(o.number)}`;
}

export function operationSummary(projection: Projection, op: JsonObject): OperationSummary {
  const workId = str(op.work_id);
  const base: OperationSummary = {
    kind: String(op.kind),
    workId,
    nodeKey: workId === null ? null : projection.work(workId)?.nodeKey ?? null,
    claimId: str(op.claim_id),
    dispatchId: str(op.dispatch_id),
    detail: '',
  };
  switch (op.kind) {
    case 'Work':
      base.nodeKey = str(op.node_key);
      base.detail = `graph ${String(op.graph_id)} · P${String(op.priority)} · key ${op.fairness_key === '' ? '(default)' : String(op.fairness_key)}${op.replacement_of ? ' · replacement' : ''}`;
      break;
    case 'Claim':
      base.detail = `handle ${String(op.handle)}${Array.isArray(op.observations) && op.observations.length > 0 ? ` · ${op.observations.length} observation(s) bound` : ''}`;
      break;
    case 'Control':
      base.detail = `${String(op.control)} = ${String(op.value)} (${String(op.reason)})`;
      break;
    case 'WorkPriority':
      base.detail = `priority ${String(op.expected_priority)} → ${String(op.priority)} (${String(op.reason)})`;
      break;
    case 'WorkCancellation':
      base.detail = String(op.reason);
      break;
    case 'ClaimCancellation':
      base.detail = `${String(op.reason)} · retry not before ${formatTime(Number(op.retry_not_before))}`;
      break;
    case 'Policy':
      base.detail = `epoch ${String(op.epoch)}`;
      break;
    case 'Observation':
      base.detail = `${resourceLabel(op.resource)} ${String(op.condition)}: ${String(op.state)}`;
      break;
    case 'Dispatch':
      base.detail = `${String(op.state)}${op.run ? ` · run ${String((op.run as JsonObject).run_id)}` : ''}${op.reason ? ` (${String(op.reason)})` : ''}`;
      break;
    case 'Release':
      base.detail = `evidence ${String((op.evidence as JsonObject | undefined)?.kind ?? '')}`;
      break;
    case 'Completion':
      base.detail = `handle ${String(op.claim_handle)} · run ${String(op.run_id)}`;
      break;
    case 'Result':
      base.detail = 'verified delivery';
      break;
    case 'DeliveryFailure':
      base.detail = `${String(op.reason)} · effects ${String(op.disposition)}`;
      break;
    default:
      base.detail = '';
  }
  return base;
}
