/**
 * Host facts of a worker Deployment (spec 7.10): the repository's verified immutable
 * default revision — a store's `defaultRevision()`, read from where the store reads its
 * ledger (local repository, remote, or GitHub API) — and whether the profile's workflow is
 * a worker there. Permission, rate-limit and transport errors propagate (they must not
 * publish "unavailable"); only a workflow that is missing or does not declare the
 * `work_queue_assignment` input (lib/config/workers.ts) makes the revision unavailable.
 */
import { ProtocolError } from '../../engine/errors.ts';
import { interfaceContract } from '../../engine/lifecycle/deploy.ts';
import type { JsonObject } from '../../engine/json.ts';
import { verifyWorkerWorkflow, workerInputs } from '../config/workers.ts';
import type { RepositoryRevision } from '../store/types.ts';
import type { GitHubApi } from './api.ts';
import { coordsOf } from './runs.ts';
import { RepositorySchema } from './schemas.ts';

export interface WorkerRevision {
  /** Immutable commit of the default branch. */
  ref: string;
  branch: string;
  /** The workflow is a verified worker at `ref`. */
  available: boolean;
  /** The revision's logical contract (default: the installed profile's, i.e. compatible). */
  contract?: string;
}

/** The repository's default branch (where workers are dispatched unless told otherwise). */
export async function defaultBranch(api: GitHubApi, repository: string): Promise<string> {
  const repo = await api.get('/repos/{owner}/{repo}', coordsOf(repository), RepositorySchema, `read repository ${repository}`);
  if (repo.default_branch === undefined) throw new ProtocolError('github_response_invalid', `${repository} reports no default branch`);
  return repo.default_branch;
}

/** Revision facts of one profile: available iff its workflow is a verified worker at the revision. */
export async function revisionOf(source: RepositoryRevision, workflow: string): Promise<WorkerRevision> {
  return { ref: source.ref, branch: source.branch, available: (await verifyWorkerWorkflow(source, workflow)) === 'available' };
}

/**
 * The Deployment facts of an installed profile at the verified revision `source` (spec 7.10:
 * "derive active worker code and its contract from the repository's verified immutable default
 * revision"): available iff its workflow is a worker there, and the revision's logical contract
 * from its declared inputs compared with those of the revision the Policy installed
 * (`interfaceContract`: the same inputs keep the installed contract; others make a new one).
 */
export async function deploymentRevision(source: RepositoryRevision, installed: JsonObject): Promise<WorkerRevision> {
  const workflow = String(installed.workflow);
  const facts = await revisionOf(source, workflow);
  if (!facts.available) return facts;
  const inputs = (await workerInputs(source, workflow)) ?? [];
  const installedRef = String(installed.ref);
  const base = installedRef === source.ref ? inputs : await workerInputs(source.at(installedRef), workflow);
  return { ...facts, contract: interfaceContract(installed, base, inputs) };
}
