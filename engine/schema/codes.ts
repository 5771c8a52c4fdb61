/**
 * Which error code a schema failure answers. The closed zod schemas find the first issue; this
 * names it with the reference contract's specific code where the reference replayer has one
 * (github/gh-aw `work_queue_replay.cjs` / `work_queue_codec.cjs`, read as reference behaviour),
 * and with the generic `schema_invalid` where the reference answers a generic code too (its
 * `ledger_invalid` for a missing/unknown field, a bad identity or integer):
 *
 * | where the first issue is                                  | code                  |
 * |-----------------------------------------------------------|-----------------------|
 * | `version`                                                 | unsupported_protocol  |
 * | an operation's `kind` (unknown operation)                 | unsupported_protocol  |
 * | more than 256 `operations`                                | resource_limit        |
 * | any `reason` (ReasonCode, contract `reason_code`)         | reason_invalid        |
 * | `evidence` or a DeliveryFailure `disposition`             | evidence_invalid      |
 * | a Dispatch `run` binding, a Completion `run_attempt`      | run_binding_conflict  |
 * | a Dispatch `state`                                        | dispatch_invalid      |
 * | an Observation `condition`/`state`/resource facts         | observation_invalid   |
 * | a Control `control`/`value`                               | control_invalid       |
 * | a Claim's `observations`                                  | claim_invalid         |
 * | a Result `descriptor`                                     | result_invalid        |
 * | the request's `kind`, `fingerprint` or `parameters`       | request_invalid       |
 * | anything else                                             | schema_invalid        |
 *
 * Operations inside request parameters (`request.parameters.operations.N`, `.nodes.N`) are
 * named like the persisted operation they mirror (so their other fields stay `schema_invalid`).
 */
import type { z } from 'zod';

type Path = readonly PropertyKey[];

const OBSERVATION_FIELDS = new Set(['condition', 'state', 'resource_state', 'state_reason', 'merged', 'merge_commit', 'source_updated_at', 'observed_at']);

function at(value: unknown, path: Path): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Start of the operation the path is inside, with its index, or -1 when it is not in one. */
function operationPrefix(path: Path): number {
  if (path[0] === 'operations' && typeof path[1] === 'number') return 2;
  if (path[0] === 'request' && path[1] === 'parameters' && (path[2] === 'operations' || path[2] === 'nodes') && typeof path[3] === 'number') return 4;
  return -1;
}

function operationCode(kind: unknown, rest: Path): string | null {
  const field = rest[0];
  if (field === undefined) return null;
  if (field === 'kind') return 'unsupported_protocol';
  if (field === 'evidence') return 'evidence_invalid';
  switch (kind) {
    case 'DeliveryFailure': return field === 'disposition' ? 'evidence_invalid' : null;
    case 'Dispatch':
      if (field === 'run') return 'run_binding_conflict';
      return field === 'state' ? 'dispatch_invalid' : null;
    case 'Completion': return field === 'run_attempt' ? 'run_binding_conflict' : null;
    case 'Observation': return OBSERVATION_FIELDS.has(String(field)) ? 'observation_invalid' : null;
    case 'Control': return field === 'control' || field === 'value' ? 'control_invalid' : null;
    case 'Claim': return field === 'observations' ? 'claim_invalid' : null;
    case 'Result': return field === 'descriptor' ? 'result_invalid' : null;
    default: return null;
  }
}

/** The code for the first schema issue of `value` (see the table above). */
export function schemaErrorCode(issue: z.core.$ZodIssue | undefined, value: unknown): string {
  if (issue === undefined) return 'schema_invalid';
  const path = issue.path;
  if (path.length === 0) return 'schema_invalid';
  if (path[path.length - 1] === 'reason') return 'reason_invalid';
  if (path.length === 1 && path[0] === 'version') return 'unsupported_protocol';
  if (path.length === 1 && path[0] === 'operations' && issue.code === 'too_big') return 'resource_limit';
  const start = operationPrefix(path);
  if (start > 0) {
    const code = operationCode((at(value, path.slice(0, start)) as { kind?: unknown } | undefined)?.kind, path.slice(start));
    return code ?? 'schema_invalid';
  }
  if (path[0] === 'request' && (path[1] === 'kind' || path[1] === 'fingerprint' || path[1] === 'parameters')) return 'request_invalid';
  return 'schema_invalid';
}
