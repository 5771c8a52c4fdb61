/**
 * Typed reads of the installed QueuePolicy (validated at the replay boundary,
 * so trusted here) with the contract `defaults` for optional settings.
 */
import { fail } from '../errors.ts';
import type { ReplayState } from '../replay/state.ts';
import type { PoolPolicy, QueuePolicy, WorkerProfile } from '../schema/policy.ts';

/** Contract `defaults.max_claims_per_profile` / `engineering_max_claims_per_dispatch` (spec 7.14). */
export const DEFAULT_MAX_CLAIMS = 1;
export const ENGINEERING_MAX_CLAIMS = 16;

export function installedPolicy(state: ReplayState): QueuePolicy {
  if (state.policy === null) return fail('policy_missing', 'queue requires an installed policy');
  return state.policy.policy as unknown as QueuePolicy;
}

export function poolPolicy(state: ReplayState, pool: string): PoolPolicy {
  const pools = installedPolicy(state).pools;
  if (!Object.hasOwn(pools, pool)) return fail('pool_invalid', `pool ${JSON.stringify(pool)} is not configured`);
  return pools[pool]!;
}

export function workerProfile(pool: PoolPolicy, name: string): WorkerProfile | undefined {
  return Object.hasOwn(pool.profiles, name) ? pool.profiles[name] : undefined;
}

/** Claims one dispatch of this profile may hold: profile bound, default 1, ceiling 16. */
export function profileMaxClaims(profile: WorkerProfile): number {
  const bound = typeof profile.max_claims === 'number' ? profile.max_claims : DEFAULT_MAX_CLAIMS;
  return Math.min(bound, ENGINEERING_MAX_CLAIMS);
}
