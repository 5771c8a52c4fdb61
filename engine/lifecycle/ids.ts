/**
 * Stable request identities of lifecycle transitions (spec 7.7: "Recover by stable
 * request/Claim identity"). Each transition of a dispatch group or Claim has exactly one
 * request id, so a retry after a crash or an uncertain write resolves to the committed
 * outcome instead of writing twice; a second, different meaning under the same id fails
 * (`request_id_conflict`). Finishes use identity's `finishRequestId`, as the MCP path does, so
 * a worker finish from the CLI and one from staged intents replay each other.
 */
import { canonicalize, sha256Hex } from '../codec/index.ts';
import type { JsonValue } from '../json.ts';

export { finishRequestId } from '../identity/index.ts';

function digest(value: JsonValue): string {
  return sha256Hex(canonicalize(value)).slice(0, 40);
}

/** The one start marker (and single sender) of a group. */
export const startRequestId = (dispatchId: string): string => `wq-start-${digest({ dispatch_id: dispatchId })}`;
/** Binding a group to one run; a different run is a different request and fails in replay. */
export const bindRequestId = (dispatchId: string, runId: string): string => `wq-bind-${digest({ dispatch_id: dispatchId, run_id: runId })}`;
export const uncertainRequestId = (dispatchId: string): string => `wq-uncertain-${digest({ dispatch_id: dispatchId })}`;
export const unresolvedRequestId = (dispatchId: string): string => `wq-unresolved-${digest({ dispatch_id: dispatchId })}`;
/** The one durable record of a run binding conflict (several possible launches). */
export const conflictRequestId = (dispatchId: string): string => `wq-conflict-${digest({ dispatch_id: dispatchId })}`;
export const rejectedRequestId = (dispatchId: string): string => `wq-rejected-${digest({ dispatch_id: dispatchId })}`;
/** The one Release of a group ("release once"). */
export const releaseRequestId = (dispatchId: string): string => `wq-release-${digest({ dispatch_id: dispatchId })}`;
/** Attempt-exhaustion cancellation of a group's members (spec 7.4). */
export const exhaustionRequestId = (dispatchId: string): string => `wq-exhaust-${digest({ dispatch_id: dispatchId })}`;
export const resultRequestId = (claimId: string): string => `wq-result-${digest({ claim_id: claimId })}`;
export const deliveryFailureRequestId = (claimId: string): string => `wq-delivery-failure-${digest({ claim_id: claimId })}`;
/** Recording the exact terminal evidence of exactly these candidates of a conflict. */
export const conflictTerminalRequestId = (dispatchId: string, runIds: readonly string[]): string => `wq-conflict-terminal-${digest({ dispatch_id: dispatchId, run_ids: [...runIds].sort() })}`;
/** An operator's resolution of a conflict binding run `runId`. */
export const resolveRequestId = (dispatchId: string, runId: string): string => `wq-resolve-${digest({ dispatch_id: dispatchId, run_id: runId })}`;
