/**
 * Worker Deployment transitions (spec 7.10 "Stable obligations and evolving execution"):
 * a compare-and-set of one pool profile's prospective immutable revision and
 * availability. Only the revision and availability move; the profile's authority (workflow,
 * principal, trust domain, credential/effect scope, batch bound) is its logical contract,
 * and changing it is an incompatible change that needs a drained Policy epoch instead.
 * A deployment never drains, resets fairness debt, or touches existing Dispatch records
 * (which keep their frozen profile). Replay's rules are in replay/ops/deployment.ts.
 */
import { canonicalize, sha256Hex } from '../codec/index.ts';
import { fail } from '../errors.ts';
import { isReasonCode } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { WorkerRoute } from '../state/state.ts';
import { currentRevision } from '../state/routes.ts';
import { installedContract, workerRoute } from '../replay/ops/deployment.ts';
import { operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import { stateOf, type QueueSource } from '../state/source.ts';
import { configuredPool, policyOrNull } from '../scheduler/policy-view.ts';

/** The logical contract of an installed profile (replay/ops/deployment.ts). */
export const contractDigest = installedContract;

export interface DeploymentInput {
  pool: string;
  workerProfile: string;
  /** The verified immutable revision the worker now runs from. */
  ref: string;
  /** Host checks passed (workflow present and registered at `ref`). */
  available: boolean;
  reason: string;
  /**
   * The revision's logical contract as derived from the verified host facts (`interfaceContract`);
   * default: the installed profile's contract (a compatible revision). A registered ref keeps its
   * registered contract whatever is given (revisions are immutable).
   */
  contract?: string;
}

/**
 * The logical contract of a worker revision (spec 7.10: "authority/interface changes produce a
 * different contract, not an implicit permission expansion"; "Prompt or engine changes do not by
 * themselves change the logical contract"). Without compiler metadata, the interface Fairway can
 * verify is the set of `workflow_dispatch` inputs the revision declares (its assignment inputs).
 * The same inputs as the epoch's installed revision: the installed contract (compatible). Other
 * inputs, or an installed revision whose inputs cannot be read: a contract of its own —
 * SHA-256 of the installed contract and the sorted input names (conservative, deterministic).
 */
export function interfaceContract(installed: JsonObject, installedInputs: readonly string[] | null, inputs: readonly string[]): string {
  const base = installedContract(installed);
  const sorted = [...new Set(inputs)].sort();
  if (installedInputs !== null && canonicalize([...new Set(installedInputs)].sort()) === canonicalize(sorted)) return base;
  return sha256Hex(canonicalize({ installed_contract: base, inputs: sorted }));
}

export type DeploymentPlan = { changed: false; profile: JsonObject } | { changed: true; request: BuiltRequest; from: string; to: string; expected: RouteExpectation };

/** What a Deployment compare-and-sets: the route's current ref and that revision's contract. */
export interface RouteExpectation {
  ref: string;
  contract: string;
}

/** The current ref and contract of (pool, profile)'s route, as a Deployment would expect them. */
export function routeExpectation(source: QueueSource, pool: string, workerProfile: string): RouteExpectation {
  const state = stateOf(source);
  installedProfile(state, pool, workerProfile);
  const route = workerRoute(state, pool, workerProfile)!;
  return { ref: route.currentRef, contract: currentRevision(route).contract };
}

/** The worker route Deployments moved for a pool profile (current and registered revisions), or null when none did. */
export function deployedRoute(source: QueueSource, pool: string, workerProfile: string): WorkerRoute | null {
  return workerRoute(stateOf(source), pool, workerProfile);
}

export function installedProfile(source: QueueSource, pool: string, workerProfile: string): JsonObject {
  const state = stateOf(source);
  const { profiles } = configuredPool(policyOrNull(state), pool);
  if (!Object.hasOwn(profiles, workerProfile)) fail('unknown_profile', `pool ${pool} has no worker profile ${workerProfile}`);
  return profiles[workerProfile]! as JsonObject;
}

/** The contract `input.ref` runs under once deployed: its registered one, else the derived one, else the installed one. */
export function revisionContract(source: QueueSource, input: Pick<DeploymentInput, 'pool' | 'workerProfile' | 'ref' | 'contract'>): string {
  const state = stateOf(source);
  const installed = installedProfile(state, input.pool, input.workerProfile);
  const registered = workerRoute(state, input.pool, input.workerProfile)!.revisions.get(input.ref);
  return registered?.contract ?? input.contract ?? installedContract(installed);
}

/**
 * The administrator `control` request that moves (pool, profile) to `input.ref` with its
 * availability: a compare-and-set on the route's current ref and contract, carrying the
 * installed authority unchanged. A ref already registered keeps its registered contract.
 */
export function deploymentPlan(source: QueueSource, input: DeploymentInput): DeploymentPlan {
  const state = stateOf(source);
  if (!/^(?:[a-f0-9]{40}|[a-f0-9]{64})$/.test(input.ref)) fail('revision_invalid', `${input.ref} is not an immutable Git revision`);
  if (!isReasonCode(input.reason)) fail('reason_invalid', `${JSON.stringify(input.reason)} is not a sanitized reason code`);
  const installed = installedProfile(state, input.pool, input.workerProfile);
  const route = workerRoute(state, input.pool, input.workerProfile)!;
  const current = currentRevision(route);
  if (route.currentRef === input.ref && current.available === input.available) return { changed: false, profile: current.profile };
  const next: JsonObject = { ...installed, ref: input.ref };
  const contract = revisionContract(state, input);
  if (contract !== installedContract(installed)) next.logical_contract = contract;
  const op: JsonObject = {
    kind: 'Deployment',
    pool: input.pool,
    worker_profile: input.workerProfile,
    expected_ref: route.currentRef,
    expected_contract: current.contract,
    profile: next,
    available: input.available,
    reason: input.reason,
  };
  return { changed: true, request: operationsRequest('control', [op]), from: route.currentRef, to: input.ref, expected: { ref: route.currentRef, contract: current.contract } };
}
