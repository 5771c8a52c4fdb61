/**
 * Worker Deployment transitions (spec 7.10 "Stable obligations and evolving execution"):
 * a compare-and-set of one pool profile's prospective immutable revision and
 * availability. Only the revision and availability move; the profile's authority (workflow,
 * principal, trust domain, credential/effect scope, batch bound) is its logical contract,
 * and changing it is an incompatible change that needs a drained Policy epoch instead.
 * A deployment never drains, resets fairness debt, or touches existing Dispatch records
 * (which keep their frozen profile).
 */
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { isReasonCode } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { ReplayState } from '../replay/state.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';

const AUTHORITY = ['workflow', 'principal', 'trust_domain', 'credential_scope', 'effect_scope', 'max_claims', 'share_keys'] as const;

/** Digest of a profile's authority fields: equal digests are compatible deployments. */
export function contractDigest(profile: JsonObject): string {
  const authority: JsonObject = {};
  for (const k of AUTHORITY) authority[k] = profile[k] ?? null;
  return sha256Hex(canonicalize(authority));
}

export interface DeploymentInput {
  pool: string;
  workerProfile: string;
  /** The verified immutable revision the worker now runs from. */
  ref: string;
  /** Host checks passed (workflow present and registered at `ref`). */
  available: boolean;
  reason: string;
}

export type DeploymentPlan = { changed: false; profile: JsonObject } | { changed: true; request: BuiltRequest; from: string; to: string };

export function installedProfile(state: ReplayState, pool: string, workerProfile: string): JsonObject {
  const pools = state.policy?.policy.pools as Record<string, JsonObject> | undefined;
  const p = pools?.[pool];
  if (p === undefined) fail('unknown_pool', `pool ${pool} is not configured`);
  const profile = (p.profiles as Record<string, JsonObject>)[workerProfile];
  if (profile === undefined) fail('unknown_profile', `pool ${pool} has no worker profile ${workerProfile}`);
  return profile;
}

export function deploymentPlan(state: ReplayState, input: DeploymentInput): DeploymentPlan {
  if (!/^(?:[a-f0-9]{40}|[a-f0-9]{64})$/.test(input.ref)) fail('revision_invalid', `${input.ref} is not an immutable Git revision`);
  if (!isReasonCode(input.reason)) fail('reason_invalid', `${JSON.stringify(input.reason)} is not a sanitized reason code`);
  const current = installedProfile(state, input.pool, input.workerProfile);
  const available = !state.unavailableProfiles.has(`${input.pool}\u0000${input.workerProfile}`);
  if (current.ref === input.ref && available === input.available) return { changed: false, profile: current };
  const next: JsonObject = { ...current, ref: input.ref };
  const op: JsonObject = {
    kind: 'Deployment',
    pool: input.pool,
    worker_profile: input.workerProfile,
    expected_ref: String(current.ref),
    expected_contract: contractDigest(current),
    profile: next,
    available: input.available,
    reason: input.reason,
  };
  return { changed: true, request: operationsRequest('control', [op]), from: String(current.ref), to: input.ref };
}
