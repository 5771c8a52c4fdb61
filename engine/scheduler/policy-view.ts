/**
 * Typed reads of the installed QueuePolicy (validated at the replay boundary,
 * so trusted here) with the contract `defaults` for optional settings, and the
 * one pool lookup.
 */
import { fail, type ErrorLocation } from '../errors.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import type { PoolPolicy, QueuePolicy, WorkerProfile } from '../schema/policy.ts';

/** Contract `defaults.max_claims_per_profile` / `engineering_max_claims_per_dispatch` (spec 7.14). */
export const DEFAULT_MAX_CLAIMS = 1;
export const ENGINEERING_MAX_CLAIMS = 16;

/** The installed Policy; `policy_missing` before the genesis. */
export function installedPolicy(source: QueueSource): QueuePolicy {
  const record = stateOf(source).policy;
  if (record === null) return fail('policy_missing', 'queue requires an installed policy');
  return record.policy;
}

/** The installed Policy, or null before the genesis. */
export function policyOrNull(source: QueueSource): QueuePolicy | null {
  const record = stateOf(source).policy;
  return record === null ? null : record.policy;
}

/**
 * How a lookup names a pool the Policy does not configure. Every path answers `unknown_pool`
 * except the planner and packer (`planNext`, `pack`, `explain --pool`), whose `pool_invalid`
 * the scheduler tests and the `explain` acceptance test fix.
 */
export interface PoolLookup {
  code?: 'unknown_pool' | 'pool_invalid';
  /** Prefix of the message (`node n (graph g)`, ...). */
  context?: string;
  /** Where the fault is (a function: built only on the failure path, replay calls this per operation). */
  at?: () => ErrorLocation;
  details?: Record<string, unknown>;
}

/** The one pool lookup: `pool`'s installed settings (no Policy installed: not configured either). */
export function configuredPool(policy: QueuePolicy | null, pool: string, lookup: PoolLookup = {}): PoolPolicy {
  if (policy !== null && Object.hasOwn(policy.pools, pool)) return policy.pools[pool]!;
  const prefix = lookup.context === undefined ? '' : `${lookup.context}: `;
  return fail(lookup.code ?? 'unknown_pool', `${prefix}pool ${pool} is not configured`, lookup.at?.(), lookup.details);
}

/** The planner's pool lookup (`pool_invalid`; `policy_missing` before the genesis). */
export function poolPolicy(source: QueueSource, pool: string): PoolPolicy {
  return configuredPool(installedPolicy(source), pool, { code: 'pool_invalid' });
}

export function workerProfile(pool: PoolPolicy, name: string): WorkerProfile | undefined {
  return Object.hasOwn(pool.profiles, name) ? pool.profiles[name] : undefined;
}

/** Claims one dispatch of this profile may hold: profile bound, default 1, ceiling 16. */
export function profileMaxClaims(profile: WorkerProfile): number {
  const bound = typeof profile.max_claims === 'number' ? profile.max_claims : DEFAULT_MAX_CLAIMS;
  return Math.min(bound, ENGINEERING_MAX_CLAIMS);
}
