/**
 * Worker Deployments (spec 7.10 "Stable obligations and evolving execution"): a durable
 * compare-and-set of one pool profile's prospective execution revision and availability.
 *
 * Who may derive one. "Only protected producer/dispatcher adapters or authorized operators may
 * derive deployment operations; workers, reconcilers, projectors and agent wire intents cannot."
 * It is "a separate durable deployment transition", and "Protected adapters synchronize their
 * approved targets only before new submit/dispatch requests" — before, not inside: a submit
 * persists exactly its caller's nodes and a dispatch_next exactly its fair prefix, and
 * "caller-local proposal metadata MUST NOT select a revision, expand that authority or drive
 * shared availability". The v3 contract (`request_roles`, bda0dd04) has no `deployment` request
 * kind, so the one request that carries a Deployment is an administrator's `control` (rules.ts
 * REQUEST_OPERATIONS); a Deployment anywhere else is `deployment_not_authorized` (apply.ts).
 *
 * Authority versus execution. A Deployment "carries pool/profile, expected current ref/contract,
 * immutable profile, availability and sanitized reason" and records "prospective worker
 * execution revisions and availability"; "Installed profile authority MUST stay frozen"
 * (7.10), and a Deployment moves a revision "without changing scheduling economics, admitted
 * authority or frozen Dispatch bindings" (7.6 operation table).
 *  - Execution (a Deployment may change): `ref` (the immutable revision that future Work runs),
 *    `logical_contract` (the revision's compatibility identity: "authority/interface changes
 *    produce a different contract, not an implicit permission expansion") and the operation's
 *    `available` (per revision).
 *  - Authority (frozen by the Policy epoch; a change is `deployment_authority_changed` and needs
 *    a drained Policy epoch): `workflow` (the worker's identity: a run binds workflow, ref and
 *    principal), `principal`, `credential_scope`, `effect_scope` ("expanding the approved
 *    principal/resource/effect scope requires a drained Policy change"), `trust_domain` (which
 *    Work may share a native group), `max_claims` and `share_keys` (the packing economics that
 *    "remain explicit transitions that MAY require quiescence").
 *
 * Contracts. A v3 Policy WorkerProfile has no `logical_contract`; its contract is Fairway's
 * `installedContract`: SHA-256 of the canonical authority fields. A Deployment's revision takes
 * its `profile.logical_contract` when given, else that same derived digest. So the current
 * contract is never zero, and a zero (or any stale) `expected_contract` fails the CAS.
 *
 * Revisions are immutable and registered per route: re-naming a registered ref with another
 * contract is `deployment_revision_immutable`; `activate: false` only updates a registered
 * historical revision's availability (an unregistered one is `deployment_revision_unregistered`,
 * the current one `deployment_revision_current`). A new Policy epoch installs fresh routes.
 * Existing Dispatch records keep their frozen profile (claim.ts freezes `executionProfile` at grant).
 */
import { canonicalize, sha256Hex } from '../../codec/index.ts';
import { fail } from '../../errors.ts';
import type { JsonObject } from '../../json.ts';
import type { WorkerProfile } from '../../schema/policy.ts';
import type { ReplayState, WorkerRoute, WorkRecord } from '../../state/state.ts';
import { currentRevision, pinOf, routeKey } from '../../state/routes.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { poolPolicy } from './policy.ts';
import { unforked } from '../../state/unforked.ts';

/** The installed authority of a worker profile: a Deployment can never change these. */
export const AUTHORITY_FIELDS = ['workflow', 'principal', 'trust_domain', 'credential_scope', 'effect_scope', 'max_claims', 'share_keys'] as const;

const contracts = new WeakMap<JsonObject, string>();

/** Fairway's logical contract of a profile without compiler metadata: SHA-256 of canonical authority. */
export function installedContract(forkedProfile: JsonObject): string {
  const profile = unforked(forkedProfile); // a fork's view of a profile: its projection's digest
  const known = contracts.get(profile);
  if (known !== undefined) return known;
  const authority: JsonObject = {};
  for (const k of AUTHORITY_FIELDS) authority[k] = profile[k] ?? null;
  const digest = sha256Hex(canonicalize(authority));
  contracts.set(profile, digest);
  return digest;
}

function installedProfiles(state: ReplayState, pool: string): Record<string, WorkerProfile> | undefined {
  const pools = state.policy?.policy.pools;
  const p = pools !== undefined && Object.hasOwn(pools, pool) ? pools[pool] : undefined;
  return p?.profiles;
}

/** The one revision a Policy profile installs: its own `ref`. */
function installedRef(profile: JsonObject): string {
  return String(profile.ref);
}

/** The route a Policy profile installs: its own revision, available, with the derived contract. */
export function installedRoute(profile: JsonObject): WorkerRoute {
  const ref = installedRef(profile);
  return { currentRef: ref, revisions: new Map([[ref, { profile, contract: installedContract(profile), available: true }]]) };
}

/** The worker route of (pool, profile): deployed, else as installed; null when not installed. */
export function workerRoute(state: ReplayState, pool: string, workerProfile: string): WorkerRoute | null {
  const deployed = state.deployments.get(routeKey(pool, workerProfile));
  if (deployed !== undefined) return deployed;
  const profiles = installedProfiles(state, pool);
  if (profiles === undefined || !Object.hasOwn(profiles, workerProfile)) return null;
  return installedRoute(profiles[workerProfile]!);
}

/**
 * Admission (spec 7.10): "Admission freezes admission_contract from the approved logical contract
 * when the caller omits an explicit contract"; "explicit execution_ref pins MUST retain their
 * approved revision". A pin must name a registered revision of the route
 * (`execution_ref_unregistered`); an explicit contract must be the contract of the revision the
 * Work would run — its pin, else the current route (`contract_incompatible`). Runs after
 * applyWork admitted the operation (whose own checks come first).
 */
export function admitExecution(ctx: CommitContext, op: OperationOf<'Work'>): void {
  const { state } = ctx;
  const deployed = state.deployments.size === 0 ? undefined : state.deployments.get(routeKey(op.pool, op.worker_profile));
  let contract: string;
  if (deployed !== undefined) {
    let revision = currentRevision(deployed);
    if (op.execution_ref !== undefined) {
      const pinned = deployed.revisions.get(op.execution_ref);
      if (pinned === undefined) unregisteredPin(ctx, op);
      revision = pinned;
    }
    contract = revision.contract;
  } else {
    // applyWork found the profile installed. Undeployed, its route is `installedRoute`'s, read
    // here without building it: one revision (`installedRef`), available.
    const profile = installedProfiles(state, op.pool)![op.worker_profile]! as unknown as JsonObject;
    contract = installedContract(profile);
    if (op.execution_ref !== undefined && op.execution_ref !== installedRef(profile)) unregisteredPin(ctx, op);
  }
  if (op.admission_contract !== undefined && op.admission_contract !== contract) {
    fail('contract_incompatible', `admission_contract ${op.admission_contract} is not the contract ${contract} of the revision this Work would run`, where(ctx));
  }
  state.admissions.set(op.work_id, contract);
}

function unregisteredPin(ctx: CommitContext, op: OperationOf<'Work'>): never {
  return fail('execution_ref_unregistered', `execution_ref ${op.execution_ref} is not a registered revision of ${op.pool}/${op.worker_profile}`, where(ctx));
}

/** The profile a new dispatch group of `work` freezes: its pinned revision, else the current route. */
export function executionProfile(state: ReplayState, work: WorkRecord): JsonObject {
  const route = workerRoute(state, work.pool, work.workerProfile);
  if (route === null) return fail('unknown_profile', `pool ${work.pool} has no worker profile ${work.workerProfile}`);
  const pin = pinOf(work);
  const revision = pin === undefined ? currentRevision(route) : route.revisions.get(pin);
  if (revision === undefined) return fail('execution_ref_unregistered', `execution_ref ${String(pin)} is no longer registered`);
  return revision.profile;
}

export function applyDeployment(ctx: CommitContext, op: OperationOf<'Deployment'>): void {
  const { state, commit } = ctx;
  const at = where(ctx);
  // Defence in depth: the envelope already limits Deployments to administrator control requests.
  if (commit.request.kind !== 'control' || commit.actor.role !== 'administrator') {
    fail('deployment_not_authorized', `a ${commit.actor.role} ${commit.request.kind} request cannot derive a Deployment`, at);
  }
  const profiles = poolPolicy(ctx, op.pool).profiles;
  if (!Object.hasOwn(profiles, op.worker_profile)) fail('unknown_profile', `pool ${op.pool} has no worker profile ${op.worker_profile}`, at);
  const installed = profiles[op.worker_profile]!;
  const route = workerRoute(state, op.pool, op.worker_profile)!;
  const current = currentRevision(route);

  if (op.expected_ref !== route.currentRef || op.expected_contract !== current.contract) {
    fail('deployment_conflict', `expected ${op.expected_ref}/${op.expected_contract}, but ${op.pool}/${op.worker_profile} is at ${route.currentRef}/${current.contract}`, at, {
      current_ref: route.currentRef,
      current_contract: current.contract,
    });
  }

  const proposed = op.profile as unknown as JsonObject;
  const changed = AUTHORITY_FIELDS.filter((k) => canonicalize(proposed[k] ?? null) !== canonicalize(installed[k] ?? null));
  if (changed.length > 0) {
    fail('deployment_authority_changed', `a Deployment cannot change the installed authority (${changed.join(', ')}); that needs a drained Policy epoch`, at, { fields: changed });
  }

  const ref = String(proposed.ref);
  const contract = typeof proposed.logical_contract === 'string' ? proposed.logical_contract : installedContract(installed);
  const registered = route.revisions.get(ref);
  if (registered !== undefined && registered.contract !== contract) {
    fail('deployment_revision_immutable', `revision ${ref} is registered with contract ${registered.contract}, not ${contract}`, at);
  }

  const next: WorkerRoute = { currentRef: route.currentRef, revisions: new Map(route.revisions) };
  if (op.activate === false) {
    if (registered === undefined) fail('deployment_revision_unregistered', `activate: false names revision ${ref}, which is not registered for ${op.pool}/${op.worker_profile}`, at);
    if (ref === route.currentRef) {
      fail('deployment_revision_current', `activate: false updates a historical revision; ${ref} is the current route (deploy it with activate to change its availability)`, at);
    }
    next.revisions.set(ref, { ...registered, available: op.available });
  } else {
    // The frozen profile future groups carry: installed authority, the new revision.
    const profile: JsonObject = { ...installed, ref };
    next.revisions.set(ref, { profile, contract, available: op.available });
    next.currentRef = ref;
  }
  state.deployments.set(routeKey(op.pool, op.worker_profile), next);
}
