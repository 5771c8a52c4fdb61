/**
 * Human text for the stable reason and status codes (spec 7.13). The code is
 * always shown as is; this only adds one line of plain language.
 */
export type Tone = 'ok' | 'info' | 'wait' | 'bad' | 'muted';

const REASONS: Record<string, [string, Tone]> = {
  ready: ['Eligible: competes for the next fair grant', 'ok'],
  ownership_claimed: ['Claimed: a worker holds it', 'info'],
  ownership_completed: ['Completed', 'muted'],
  ownership_cancelled: ['Cancelled', 'muted'],
  pool_mismatch: ['Belongs to another pool', 'muted'],
  pool_invalid: ['Its pool is not in the installed Policy', 'bad'],
  grants_paused: ['Grants are paused by an operator Control', 'bad'],
  admission_paused: ['Admission is paused by an operator Control', 'bad'],
  retry_delayed: ['Waiting out its retry backoff', 'wait'],
  retry_exhausted: ['Used all its attempts', 'bad'],
  capacity_blocked: ['Pool at its outstanding-Claim limit', 'wait'],
  account_capacity_blocked: ['Fairness key at its outstanding-Claim limit', 'wait'],
  profile_unavailable: ['Its worker profile is not approved in this pool', 'bad'],
  deployment_unavailable: ['Its worker deployment is unavailable', 'bad'],
  contract_incompatible: ['The deployed worker revision has a different logical contract than this Work was admitted with', 'bad'],
  dependency_wait: ['A predecessor has no verified Result yet', 'wait'],
  dependency_result_unavailable: ['A predecessor completed but its Result is not verified yet', 'wait'],
  dependency_delivery_failed: ['A predecessor\'s delivery failed; needs a replacement or cancellation', 'bad'],
  dependency_failed: ['An ancestor was cancelled', 'bad'],
  external_unavailable: ['An Issue/PR gate has no usable observation', 'bad'],
  observation_stale: ['An Issue/PR observation is too old; needs a fresh read', 'wait'],
  external_wait: ['An Issue/PR gate condition is not met yet', 'wait'],
  delivery_pending: ['Completed; delivery barrier pending', 'wait'],
  delivery_verified: ['Completed with a verified Result', 'ok'],
  delivery_failed: ['Completed, but delivery failed (DeliveryFailure)', 'bad'],
  fifo_default: ['Sole default class and key: first eligible committed Work', 'info'],
  priority_class: ['Strict policy selected the most urgent eligible class', 'info'],
  weighted_class: ['Integer virtual-pass comparison selected the class', 'info'],
  weighted_key: ['Integer virtual-pass comparison selected the fairness key', 'info'],
  no_work: ['No unclaimed backlog to consider', 'muted'],
  no_eligible_work: ['Backlog exists but nothing is eligible', 'wait'],
  partial_batch: ['Fewer Claims than requested were committed', 'wait'],
  launch_uncertain: ['Launch marker without trustworthy binding: capacity retained', 'bad'],
  launch_unresolved: ['Reconciliation budget expired: intervention needed', 'bad'],
  run_binding_conflict: ['Several runs carry this dispatch id: none may bind; capacity stays reserved until every candidate is terminal or an administrator resolves it', 'bad'],
  dispatch_budget_blocked: ['The next fair winner did not fit the dispatch budget', 'wait'],
  assignment_bytes_blocked: ['The next fair winner did not fit the byte budget', 'wait'],
  native_capacity_blocked: ['Native run capacity exhausted', 'wait'],
  claim_budget_reached: ['Requested number of Claims reached', 'ok'],
  prefix_complete: ['Fair prefix complete', 'ok'],
  policy_not_quiescent: ['A Policy edit needs a drained queue', 'bad'],
};

export function reasonText(code: string): string {
  return REASONS[code]?.[0] ?? code.replace(/_/g, ' ');
}

export function reasonTone(code: string): Tone {
  return REASONS[code]?.[1] ?? 'info';
}
