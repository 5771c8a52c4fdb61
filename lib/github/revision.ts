/**
 * Host facts of a worker Deployment (spec 7.10): the repository's verified immutable
 * default revision — a store's `defaultRevision()`, read from where the store reads its
 * ledger (local repository, remote, or GitHub API) — and whether the profile's workflow is
 * a worker there. Permission, rate-limit and transport errors propagate (they must not
 * publish "unavailable"); only a workflow that is missing or does not declare the
 * `work_queue_assignment` input, or a worker the revision's `.github/work-queue-workers.json`
 * no longer declares with that workflow (lib/config/workers.ts), makes the revision unavailable.
 */
import { fail, ProtocolError } from '../../engine/errors.ts';
import { interfaceContract } from '../../engine/lifecycle/deploy.ts';
import type { JsonObject } from '../../engine/json.ts';
import { declares, readWorkersFile, readWorkflow, WORKERS_FILE, type WorkersFile, type WorkflowSource } from '../config/workers.ts';
import type { RepositoryRevision } from '../store/types.ts';
import { readStatusOf, type GitHubApi } from './api.ts';
import { coordsOf } from './runs.ts';
import { GitRefSchema, RepositorySchema } from './schemas.ts';

export interface WorkerRevision {
  /** Immutable commit of the default branch. */
  ref: string;
  branch: string;
  /** The workflow is a verified worker at `ref`. */
  available: boolean;
  /** Why it is not (the Deployment's sanitized reason); absent when available. */
  reason?: 'workflow_missing' | 'workflow_not_a_worker' | 'worker_undeclared';
  /** The revision's logical contract (default: the installed profile's, i.e. compatible). */
  contract?: string;
}

/** The repository's default branch (where workers are dispatched unless told otherwise). */
export async function defaultBranch(api: GitHubApi, repository: string): Promise<string> {
  const repo = await api.get('/repos/{owner}/{repo}', coordsOf(repository), RepositorySchema, `read repository ${repository}`);
  if (repo.default_branch === undefined) throw new ProtocolError('github_response_invalid', `${repository} reports no default branch`);
  return repo.default_branch;
}

/**
 * The `--ref` a worker is dispatched on, checked before anything is granted: it must name an
 * existing branch or tag of `repository` (a `refs/heads/`/`refs/tags/` form names that one
 * only), as the workflow_dispatch POST requires; otherwise the grant would commit, the POST
 * would answer 422 and the group would be released with an attempt used up. A name that is
 * neither is `ref_not_found` (a usage error); other read failures propagate. Returns `ref`.
 */
export async function dispatchRef(api: GitHubApi, repository: string, ref: string): Promise<string> {
  const full = /^refs\/(heads|tags)\/./.exec(ref);
  const candidates = full !== null ? [ref.slice('refs/'.length)] : [`heads/${ref}`, `tags/${ref}`];
  for (const candidate of candidates) {
    try {
      await api.get('/repos/{owner}/{repo}/git/ref/{ref}', { ...coordsOf(repository), ref: candidate }, GitRefSchema, `read ref ${candidate} of ${repository}`);
      return ref;
    } catch (e) {
      if (readStatusOf(e) !== 'not_found') throw e;
    }
  }
  return fail('ref_not_found', `--ref ${JSON.stringify(ref)} names no branch or tag of ${repository}: nothing was granted or launched`, {}, { usage: true, ref });
}

/**
 * One deploy's worker sources: each file (the worker source declaration, a workflow) read and
 * parsed once per (path, commit), however many profiles name it — every profile is derived from
 * the same revision, and on the GitHub store each read is an API request. Commits are immutable,
 * so a kept answer cannot go stale; a failed read is not kept (it propagates, and ends the deploy).
 */
export class WorkerSources {
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(readonly revision: RepositoryRevision) {}

  /** The revision's worker source declaration, parsed (null when absent). */
  declaration(): Promise<WorkersFile | null> {
    return this.once(this.revision.ref, WORKERS_FILE, (at) => readWorkersFile(at));
  }

  /** `workflow` at `commit` (default: the revision's). */
  workflow(workflow: string, commit = this.revision.ref): Promise<WorkflowSource> {
    return this.once(commit, workflow, (at) => readWorkflow(at, workflow));
  }

  private once<T>(commit: string, path: string, read: (at: RepositoryRevision) => Promise<T>): Promise<T> {
    const key = `${commit}\u0000${path}`;
    let kept = this.memo.get(key) as Promise<T> | undefined;
    if (kept === undefined) {
      kept = read(commit === this.revision.ref ? this.revision : this.revision.at(commit));
      this.memo.set(key, kept);
      kept.catch(() => this.memo.delete(key));
    }
    return kept;
  }
}

/**
 * Revision facts of one profile: available iff its workflow is a verified worker at the revision
 * and, given the profile's `name`, the revision's worker source declaration still declares it
 * with that workflow (`declares`).
 */
export async function revisionOf(source: RepositoryRevision | WorkerSources, workflow: string, name?: string): Promise<WorkerRevision> {
  const sources = source instanceof WorkerSources ? source : new WorkerSources(source);
  const at = { ref: sources.revision.ref, branch: sources.revision.branch };
  if (name !== undefined && declares(await sources.declaration(), name, workflow) === 'worker_undeclared') return { ...at, available: false, reason: 'worker_undeclared' };
  const { status } = await sources.workflow(workflow);
  return status === 'available' ? { ...at, available: true } : { ...at, available: false, reason: status };
}

/**
 * The Deployment facts of an installed profile at the verified revision `sources.revision` (spec
 * 7.10: "derive active worker code and its contract from the repository's verified immutable
 * default revision"): available iff its workflow is a worker there (`revisionOf`), and the
 * revision's logical contract from its declared inputs compared with those of the revision the
 * Policy installed (`interfaceContract`: the same inputs keep the installed contract; others make
 * a new one). Every file comes through `sources`, so profiles sharing one are read once.
 */
export async function deploymentRevision(sources: WorkerSources, installed: JsonObject, name: string): Promise<WorkerRevision> {
  const workflow = String(installed.workflow);
  const facts = await revisionOf(sources, workflow, name);
  if (!facts.available) return facts;
  const inputs = (await sources.workflow(workflow)).inputs ?? [];
  const installedRef = String(installed.ref);
  const base = installedRef === sources.revision.ref ? inputs : (await sources.workflow(workflow, installedRef)).inputs;
  return { ...facts, contract: interfaceContract(installed, base, inputs) };
}
