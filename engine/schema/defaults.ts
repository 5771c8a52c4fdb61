/**
 * The contract's defaults and limits (contract.json `defaults` and `limits`; spec 7.2 weights,
 * 7.8 retry and reconciliation, 7.17 "Operating limits"): the one copy every Policy builder,
 * settings resolver and replay check reads. Each limit's default is also its hard ceiling.
 */

/** Spec 7.17 table = contract.json `limits`, in the table's order (`observation_writes` is the contract's `observation_writes_per_gate_epoch`). */
export const CONTRACT_LIMITS = {
  ledger_bytes: 67108864,
  recovery_bytes: 16777216,
  payload_bytes: 16384,
  graph_nodes: 4096,
  predecessors: 64,
  pending_nodes: 4096,
  operations: 256,
  assignment_bytes: 49152,
  result_bytes: 4096,
  evidence_bytes: 1024,
  observation_writes: 4096,
} as const;

export type LimitName = keyof typeof CONTRACT_LIMITS;

/** A fresh Policy `limits` object holding every default (members in UTF-8 order, as canonical JSON writes them). */
export function defaultLimits(): Record<LimitName, number> {
  const names = (Object.keys(CONTRACT_LIMITS) as LimitName[]).sort();
  return Object.fromEntries(names.map((name) => [name, CONTRACT_LIMITS[name]])) as Record<LimitName, number>;
}

/** contract.json `defaults`: scheduling mode and the weights of priorities 1..5. */
export const DEFAULT_MODE = 'weighted-priority';
export const DEFAULT_CLASS_WEIGHTS: readonly [number, number, number, number, number] = [8, 4, 2, 1, 1];
/** A Work's priority when the submission names none. */
export const DEFAULT_PRIORITY = 3;

/** contract.json `defaults`: a pool's logical and native capacity. */
export const DEFAULT_POOL_LIMIT = 16;
/** contract.json `defaults.max_claims_per_profile`. */
export const DEFAULT_MAX_CLAIMS = 1;
export const DEFAULT_MAX_OBSERVATION_AGE_MS = 60000;
/** contract.json `defaults.retry_*`. */
export const DEFAULT_RETRY = { backoff_ms: 30000, max_attempts: 3 } as const;
/** contract.json `defaults.reconciliation_*`. */
export const DEFAULT_RECONCILIATION = { deadline_ms: 300000, max_attempts: 5 } as const;

/** Targets of one administrator transaction (cancel-work, cancel-claim, reprioritize): one operation each, at most `operations`. */
export const MAX_ADMIN_TARGETS = CONTRACT_LIMITS.operations;
