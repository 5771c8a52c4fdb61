/**
 * The projection summary: what `fairway replay` prints and what the console's
 * overview starts from. Plain data, deterministic key order.
 */
import type { Projection } from './projection.ts';
import type { Barrier, WorkState } from '../state/state.ts';

export interface ProjectionSummary {
  tip: string | null;
  commits: number;
  repository: string | null;
  policy: { epoch: string; mode: string; installed_in: string; epochs: number } | null;
  controls: { admission_paused: boolean; grants_paused: boolean; credential_generation: string };
  works: { total: number; by_state: Record<WorkState, number>; by_barrier: Record<Barrier, number> };
  claims: { total: number; open: number; completed: number; cancelled: number };
  reservations: {
    logical_outstanding: Record<string, number>;
    native_outstanding: Record<string, number>;
    dispatches: Record<string, number>;
  };
  barriers: { pending: number; verified: number; failed: number };
  observations: number;
  requests: number;
}

export function summarize(projection: Projection): ProjectionSummary {
  const { state } = projection;
  const byState: Record<WorkState, number> = { available: 0, claimed: 0, completed: 0, cancelled: 0 };
  const byBarrier: Record<Barrier, number> = { none: 0, pending: 0, verified: 0, failed: 0 };
  for (const w of projection.works()) {
    byState[w.state] += 1;
    byBarrier[w.barrier] += 1;
  }
  const claims = { total: state.claims.size, open: 0, completed: 0, cancelled: 0 };
  for (const c of state.claims.values()) claims[c.state === 'open' ? 'open' : c.state] += 1;
  const dispatches: Record<string, number> = {};
  for (const d of state.dispatches.values()) {
    const key = d.released ? 'released' : d.state;
    dispatches[key] = (dispatches[key] ?? 0) + 1;
  }
  return {
    tip: state.tip,
    commits: state.commits.length,
    repository: state.repository,
    policy: state.policy === null ? null : {
      epoch: state.policy.epoch,
      mode: String(state.policy.policy.mode),
      installed_in: state.policy.commitId,
      epochs: state.policyHistory.length,
    },
    controls: { ...state.controls },
    works: { total: state.works.size, by_state: byState, by_barrier: byBarrier },
    claims,
    reservations: {
      logical_outstanding: Object.fromEntries([...state.outstandingClaims].sort()),
      native_outstanding: Object.fromEntries([...state.outstandingNative].sort()),
      dispatches,
    },
    barriers: { pending: byBarrier.pending, verified: byBarrier.verified, failed: byBarrier.failed },
    observations: state.observations.size,
    requests: state.requests.size,
  };
}
