/**
 * `deploy`: the durable Deployment transition of a worker profile (spec 7.10). Host facts
 * come from the verified default revision (lib/github/revision.ts); the transition is a
 * compare-and-set on the installed profile's ref, published by an administrator through
 * the checked publisher. Unchanged facts write nothing. No drain, no debt reset, and
 * existing Dispatch records keep their frozen profile.
 */
import { fail } from '../../engine/errors.ts';
import { contractDigest, deploymentPlan, installedProfile, revisionContract, routeExpectation, type RouteExpectation } from '../../engine/lifecycle/deploy.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import type { WorkerRevision } from '../github/revision.ts';
import { publishTransition, type TransitionOutcome } from '../publisher/requests.ts';

export interface DeployReport {
  pool: string;
  worker_profile: string;
  from: string;
  to: string;
  available: boolean;
  /** The logical contract `to` runs under, and whether it is the installed one (unpinned Work follows only then). */
  contract: string;
  compatible: boolean;
  status: 'deployed' | 'unchanged' | 'replayed';
  /** This profile's Deployment request (retries reuse it; `explain --request-id` finds it). */
  request_id: string;
  commit_id: string | null;
}

export async function deployWorker(
  publisher: Publisher,
  actor: PublishingActor,
  input: {
    requestId: string;
    pool: string;
    workerProfile: string;
    revision: WorkerRevision;
    reason?: string;
    /**
     * The route as the caller read it before reading `revision` (default: as this call first reads
     * it). The Deployment compare-and-sets exactly this: if another deploy moved the route since,
     * this one is `deployment_conflict` instead of re-deriving its CAS from the newer route and
     * retargeting that concurrent winner to an older revision (spec 7.10).
     */
    expected?: RouteExpectation;
  },
  now?: () => number,
): Promise<DeployReport> {
  const { projection } = await publisher.cache.load();
  const facts = { pool: input.pool, workerProfile: input.workerProfile, ref: input.revision.ref, available: input.revision.available, reason: input.reason ?? input.revision.reason ?? (input.revision.available ? 'worker_deployed' : 'workflow_missing'), ...(input.revision.contract === undefined ? {} : { contract: input.revision.contract }) };
  const contract = revisionContract(projection!, facts);
  const compatible = contract === contractDigest(installedProfile(projection!, input.pool, input.workerProfile));
  const base = { pool: input.pool, worker_profile: input.workerProfile, request_id: input.requestId, to: input.revision.ref, available: input.revision.available, contract, compatible };
  const plan = deploymentPlan(projection!, facts);
  // A committed request is replayed against its own prefix (which held the route it expected).
  const retry = projection!.request(input.requestId) !== undefined;
  const expected = input.expected ?? routeExpectation(projection!, input.pool, input.workerProfile);
  if (!plan.changed && !retry) {
    return { ...base, from: String(plan.profile.ref), status: 'unchanged', commit_id: null };
  }
  const t: TransitionOutcome = await publishTransition(publisher, input.requestId, actor, (state) => {
    const p = deploymentPlan(state, facts);
    if (!p.changed) fail('deployment_unchanged', `${input.pool}/${input.workerProfile} already runs ${input.revision.ref}`);
    if (!retry && (p.expected.ref !== expected.ref || p.expected.contract !== expected.contract)) {
      fail('deployment_conflict', `${input.pool}/${input.workerProfile} moved to ${p.expected.ref} after ${expected.ref} was read: a concurrent deploy won; run deploy again to derive the revision anew`, {}, {
        current_ref: p.expected.ref,
        current_contract: p.expected.contract,
      });
    }
    return p.request;
  }, { tolerate: ['deployment_unchanged'], callerId: true, ...(now === undefined ? {} : { now }) });
  const from = plan.changed ? plan.from : String(plan.profile.ref);
  if (t.status === 'skipped') return { ...base, from, status: 'unchanged', commit_id: null };
  return { ...base, from, status: t.status === 'committed' ? 'deployed' : 'replayed', commit_id: t.commitId };
}
