/**
 * The checkpoint extension `deployments` (spec 7.10: "Deployment and pin state MUST survive
 * checkpoint restoration without rewriting earlier results or assignments"): every worker route
 * a Deployment moved, written only when there is one (so reference-shaped states keep their
 * bytes), as `{pool: {profile: {current_ref, revisions: {ref: {available, contract, profile}}}}}`.
 * Restoration re-checks what replay of the Deployments guaranteed: the pool profile is installed,
 * each revision's profile is the installed authority at its own ref, and the current ref is
 * registered. Anything else is `checkpoint_invalid`.
 *
 * Extension `admission_contracts` (`{work_id: contract}`): the contract a Work froze at admission,
 * only where it differs from what restoration derives (`derivedAdmission`: its explicit
 * `admission_contract`, else its pin's registered contract, else the installed profile's) — that
 * is, Work admitted on a route a Deployment had moved. A nonterminal Work's `execution_ref` must
 * name a registered revision of its restored route.
 */
import { canonicalize } from '../codec/index.ts';
import type { JsonObject } from '../json.ts';
import type { PoolPolicy, WorkerProfile } from '../schema/policy.ts';
import type { StateReader } from './checkpoint-reader.ts';
import { installedContract, workerRoute } from './ops/deployment.ts';
import { routeKey } from '../state/routes.ts';
import type { ReplayState, WorkerRevision, WorkRecord } from '../state/state.ts';

const REVISION = /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/;

/** The snapshot's Deployment extensions (each only when nonempty). */
export function deploymentExtensions(state: ReplayState): JsonObject {
  const out: JsonObject = {};
  const routes = routesSnapshot(state);
  if (routes !== null) out.deployments = routes;
  // Works in admission order (their definitions are read back from their records, engine/state/definitions.ts), named in id order.
  const differing: string[] = [];
  for (const work of state.works.values()) {
    const frozen = state.admissions.get(work.workId);
    if (frozen !== undefined && derivedAdmission(state, work) !== frozen) differing.push(work.workId);
  }
  const admissions: JsonObject = {};
  for (const id of differing.sort()) admissions[id] = state.admissions.get(id)!;
  if (Object.keys(admissions).length > 0) out.admission_contracts = admissions;
  return out;
}

/** What restoration takes as a Work's frozen contract when `admission_contracts` does not name it. */
function derivedAdmission(state: ReplayState, work: WorkRecord): string | undefined {
  const def = work.definition;
  if (typeof def.admission_contract === 'string') return def.admission_contract;
  const route = state.deployments.get(routeKey(work.pool, work.workerProfile));
  if (typeof def.execution_ref === 'string' && route !== undefined) return route.revisions.get(def.execution_ref)?.contract;
  const pools: Record<string, PoolPolicy> = state.policy?.policy.pools ?? {};
  const profiles: Record<string, WorkerProfile> = Object.hasOwn(pools, work.pool) ? pools[work.pool]!.profiles : {};
  return Object.hasOwn(profiles, work.workerProfile) ? installedContract(profiles[work.workerProfile]!) : undefined;
}

function routesSnapshot(state: ReplayState): JsonObject | null {
  if (state.deployments.size === 0) return null;
  const out = Object.create(null) as Record<string, Record<string, JsonObject>>; // pool -> profile, both input names
  for (const key of [...state.deployments.keys()].sort()) {
    const [pool, profile] = key.split('\u0000') as [string, string];
    const route = state.deployments.get(key)!;
    const revisions: JsonObject = {};
    for (const [ref, r] of [...route.revisions].sort(([a], [b]) => (a < b ? -1 : 1))) {
      revisions[ref] = { available: r.available, contract: r.contract, profile: r.profile };
    }
    (out[pool] ??= Object.create(null) as Record<string, JsonObject>)[profile] = { current_ref: route.currentRef, revisions };
  }
  return out;
}

export function restoreDeployments(r: StateReader, state: ReplayState, snapshot: JsonObject): void {
  if (snapshot.deployments !== undefined) restoreRoutes(r, state, r.obj(snapshot.deployments, 'deployments'));
  const explicit = snapshot.admission_contracts === undefined ? {} : r.obj(snapshot.admission_contracts, 'admission_contracts');
  for (const id of Object.keys(explicit)) if (!state.works.has(id)) r.bad(`admission_contracts names unknown Work ${id}`);
  for (const work of state.works.values()) {
    const named = Object.hasOwn(explicit, work.workId);
    const frozen = named ? r.digest(explicit[work.workId], `admission_contracts.${work.workId}`) : derivedAdmission(state, work);
    if (named) checkFrozenContract(r, state, work, frozen!);
    if (frozen !== undefined) state.admissions.set(work.workId, frozen);
    const pin = work.definition.execution_ref;
    if (typeof pin === 'string' && (work.state === 'available' || work.state === 'claimed') && workerRoute(state, work.pool, work.workerProfile)?.revisions.has(pin) !== true) {
      r.bad(`Work ${work.workId} is pinned to ${pin}, which is not a registered revision of its route`);
    }
  }
}

/**
 * Spec 7.10: "Retries retain" the contract a Work froze at admission, and restoration must not
 * rewrite it. A contract the checkpoint names for a Work is the Work's own explicit
 * `admission_contract`, its pin's registered contract, or at least some registered (or installed)
 * contract of its route; anything else would un-pause Work a Deployment made incompatible.
 */
function checkFrozenContract(r: StateReader, state: ReplayState, work: WorkRecord, frozen: string): void {
  const what = `admission_contracts.${work.workId}`;
  const own = work.definition.admission_contract;
  if (typeof own === 'string' && own !== frozen) r.bad(`${what} is not the contract the Work's own definition names`);
  // A Work of an earlier Policy epoch froze a contract of that epoch's routes, which a new epoch
  // replaced (ops/policy.ts clears the Deployments): nothing of the installed routes to compare with.
  if (work.policyEpoch !== state.policy?.epoch) return;
  const route = workerRoute(state, work.pool, work.workerProfile);
  if (route === null) return;
  const pinned = typeof work.definition.execution_ref === 'string' ? route.revisions.get(work.definition.execution_ref) : undefined;
  if (pinned !== undefined && pinned.contract !== frozen) r.bad(`${what} is not the contract of the revision the Work is pinned to`);
  if (![...route.revisions.values()].some((revision) => revision.contract === frozen)) r.bad(`${what} is no contract of a registered revision of its route`);
}

function restoreRoutes(r: StateReader, state: ReplayState, raw: JsonObject): void {
  const pools: Record<string, PoolPolicy> = state.policy?.policy.pools ?? {};
  for (const [pool, routes] of Object.entries(r.obj(raw, 'deployments'))) {
    if (!Object.hasOwn(pools, pool)) r.bad(`deployments names pool ${pool}, which the Policy does not configure`);
    const profiles = pools[pool]!.profiles;
    for (const [name, value] of Object.entries(r.obj(routes, `deployments.${pool}`))) {
      const what = `deployments.${pool}.${name}`;
      if (!Object.hasOwn(profiles, name)) r.bad(`${what} is not an installed worker profile`);
      const route = r.obj(value, what);
      r.keys(route, new Set(['current_ref', 'revisions']), what);
      const revisions = new Map<string, WorkerRevision>();
      for (const [ref, entry] of Object.entries(r.obj(route.revisions, `${what}.revisions`))) {
        const at = `${what}.revisions.${ref}`;
        if (!REVISION.test(ref)) r.bad(`${at}: ${ref} is not an immutable revision`);
        const revision = r.obj(entry, at);
        r.keys(revision, new Set(['available', 'contract', 'profile']), at);
        const profile = r.obj(revision.profile, `${at}.profile`);
        if (canonicalize(profile) !== canonicalize({ ...profiles[name]!, ref })) r.bad(`${at}.profile is not the installed authority at ${ref}`);
        revisions.set(ref, { profile, contract: r.digest(revision.contract, `${at}.contract`), available: r.bool(revision.available, `${at}.available`) });
      }
      const currentRef = r.str(route.current_ref, `${what}.current_ref`);
      if (!revisions.has(currentRef)) r.bad(`${what}.current_ref ${currentRef} is not a registered revision`);
      state.deployments.set(routeKey(pool, name), { currentRef, revisions });
    }
  }
}
