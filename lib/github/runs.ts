/**
 * Native run reads (spec 7.8): the exact run, its original attempt (the only one that
 * can hold a binding; a Re-run's later attempt never inherits it), bounded discovery of
 * a group's possible launches by the exact delimited dispatch id in the run title, and
 * cancellation requests (which are requests, not termination evidence).
 */
import { titleNames, type NativeRunFacts } from '../../engine/lifecycle/run-identity.ts';
import type { GitHubApi } from './api.ts';
import { RunListSchema, WorkflowRunSchema, type GitHubRun } from './schemas.ts';
import { debugEvent } from '../debug/log.ts';

export type RepoCoords = { owner: string; repo: string };

export function coordsOf(repository: string): RepoCoords {
  const [owner, repo] = repository.split('/');
  return { owner: owner!, repo: repo! };
}

export function runFacts(run: GitHubRun): NativeRunFacts {
  return {
    run_id: run.id,
    run_attempt: run.run_attempt,
    repository: run.repository.full_name,
    workflow_path: run.path,
    head_sha: run.head_sha,
    event: run.event,
    actor_id: run.actor.id,
    triggering_actor_id: run.triggering_actor?.id ?? null,
    display_title: run.display_title,
    status: run.status,
    conclusion: run.conclusion,
  };
}

/** The run as GitHub shows it now (its latest attempt). */
export async function getRun(api: GitHubApi, where: RepoCoords, runId: string): Promise<NativeRunFacts> {
  return read(runFacts(await api.get('/repos/{owner}/{repo}/actions/runs/{run_id}', { ...where, run_id: runId }, WorkflowRunSchema, `read run ${runId}`)));
}

/** `native run_read`: one verified read of a run (its facts are not logged). */
function read(facts: NativeRunFacts): NativeRunFacts {
  debugEvent('native', 'run_read', { status: 200, completed: facts.status === 'completed' });
  return facts;
}

/** The original attempt 1 of a run: its identity and its own terminal state. */
export async function getFirstAttempt(api: GitHubApi, where: RepoCoords, runId: string): Promise<NativeRunFacts> {
  return getAttempt(api, where, runId, 1);
}

/** One exact attempt of a run, with that attempt's own status. */
export async function getAttempt(api: GitHubApi, where: RepoCoords, runId: string, attempt: number): Promise<NativeRunFacts> {
  const run = await api.get('/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}', { ...where, run_id: runId, attempt_number: attempt }, WorkflowRunSchema, `read run ${runId} attempt ${attempt}`);
  return read(runFacts(run));
}

export interface DiscoveryOptions {
  /** Workflow file of the group's frozen profile. */
  workflow: string;
  /** Pages of 100 runs to scan at most (bounded discovery). */
  maxPages?: number;
}

/**
 * `workflow_dispatch` runs of the worker workflow whose title carries the exact delimited
 * dispatch id, newest first, in their original-attempt view. Bounded: an empty answer is
 * never proof of nonlaunch.
 */
export async function discoverRuns(api: GitHubApi, where: RepoCoords, dispatchId: string, options: DiscoveryOptions): Promise<NativeRunFacts[]> {
  const found: NativeRunFacts[] = [];
  const workflowId = options.workflow.split('/').pop()!;
  let pages = 0;
  for (let page = 1; page <= (options.maxPages ?? 3); page++) {
    pages = page;
    const list = await api.get('/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
      { ...where, workflow_id: workflowId, event: 'workflow_dispatch', per_page: 100, page }, RunListSchema, `list runs of ${workflowId}`);
    for (const run of list.workflow_runs) {
      if (!titleNames(run.display_title, dispatchId)) continue;
      found.push(run.run_attempt === 1 ? runFacts(run) : await getFirstAttempt(api, where, run.id));
    }
    if (list.workflow_runs.length < 100) break;
  }
  debugEvent('native', 'discovery', { runs: found.length, pages });
  return found;
}

/** Requests cancellation of a run (HTTP 202); the run is terminal only when GitHub says so. */
export async function requestCancel(api: GitHubApi, where: RepoCoords, runId: string): Promise<'requested' | 'already_completed' | 'refused'> {
  const status = await api.post('/repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { ...where, run_id: runId }, `cancel run ${runId}`);
  if (status === 202) return 'requested';
  return status === 409 ? 'already_completed' : 'refused';
}
