/**
 * GitHub Actions of the fake GitHub: `workflow_dispatch`, runs (list, get, per-attempt get),
 * cancel and re-run. The dispatch POST follows API version 2026-03-10 (spec 7.8): with that
 * `X-GitHub-Api-Version`, or with `return_run_details: true` (the form @octokit/openapi 23
 * documents), it answers HTTP 200 `{workflow_run_id, run_url, html_url}`; otherwise the older
 * empty 204. A run's title is the workflow's `run-name` evaluated on the inputs; its actor is
 * the user the token belongs to. Run ids start above 2^53 and are written losslessly.
 * Tests drive run progress with `setRunStatus` (GitHub's own scheduler is not modelled).
 *
 * Deviation of the description (not of the fake): GitHub answers a dispatch for an unknown
 * workflow with 404 and a bad ref or undeclared input with 422, but @octokit/openapi 23.0.2
 * documents only 200 and 204 for this operation, so the validator reports those answers as
 * undocumented. Lifecycle tests that need a refusal inject it as a fault instead.
 */
import { errorBody, notFound, type FakeRequest, type FakeResponse, type FakeRoute } from './router.ts';
import { isoNow, type FakeGitHubState, type FakeRepository } from './state.ts';
import { DEFAULT_USER, int64, minimalRepositoryJson, rawJson, userJson, type FakeUser } from './routes-issues.ts';

export const DISPATCH_API_VERSION = '2026-03-10';

export interface FakeWorkflow {
  id: number;
  repo: FakeRepository;
  /** `.github/workflows/<file>` */
  path: string;
  name: string;
  /** Declared `workflow_dispatch` inputs; others are rejected with 422. */
  inputs: string[];
  /** The workflow's `run-name`, evaluated on the dispatch inputs. */
  runName?: (inputs: Record<string, unknown>) => string;
}

export interface FakeAttempt {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  updatedAt: string;
}

export interface FakeRun {
  id: string;
  repo: FakeRepository;
  workflow: FakeWorkflow;
  headBranch: string;
  headSha: string;
  event: string;
  runNumber: number;
  actor: FakeUser;
  triggeringActor: FakeUser;
  displayTitle: string;
  inputs: Record<string, unknown>;
  createdAt: string;
  /** attempts[0] is attempt 1; the run shows the latest. */
  attempts: FakeAttempt[];
  cancelRequested: boolean;
}

interface ActionsData {
  workflows: FakeWorkflow[];
  runs: FakeRun[];
  nextRunId: bigint;
  nextWorkflowId: number;
  tokens: Map<string, FakeUser>;
}

const data = new WeakMap<FakeGitHubState, ActionsData>();

/** Default first run id: 2^53 + 1, which a float parser cannot represent. */
export const FIRST_RUN_ID = 9007199254740993n;

export function actions(state: FakeGitHubState): ActionsData {
  let d = data.get(state);
  if (d === undefined) data.set(state, (d = { workflows: [], runs: [], nextRunId: FIRST_RUN_ID, nextWorkflowId: 161335, tokens: new Map() }));
  return d;
}

/** Registers a `workflow_dispatch` workflow file of `repo`. */
export function registerWorkflow(state: FakeGitHubState, repo: FakeRepository, w: Omit<FakeWorkflow, 'id' | 'repo'> & { id?: number }): FakeWorkflow {
  const d = actions(state);
  const wf: FakeWorkflow = { ...w, repo, id: w.id ?? d.nextWorkflowId++ };
  d.workflows.push(wf);
  return wf;
}

/** The user a bearer token authenticates as (default: the fake's user). */
export function tokenUser(state: FakeGitHubState, token: string, user: FakeUser): void {
  actions(state).tokens.set(token, user);
}

function workflowOf(state: FakeGitHubState, repo: FakeRepository, id: string): FakeWorkflow | undefined {
  return actions(state).workflows.find((w) => w.repo === repo && (String(w.id) === id || w.path.split('/').pop() === id || w.path === id));
}

/** Creates a run directly (a manual re-dispatch, another workflow's run, a forged title ...). */
export function addRun(state: FakeGitHubState, run: Omit<FakeRun, 'id' | 'runNumber' | 'createdAt' | 'attempts' | 'cancelRequested' | 'triggeringActor'> & { triggeringActor?: FakeUser }): FakeRun {
  const d = actions(state);
  const now = isoNow();
  const full: FakeRun = {
    ...run, triggeringActor: run.triggeringActor ?? run.actor, id: String(d.nextRunId++), runNumber: d.runs.length + 1, createdAt: now,
    attempts: [{ status: 'queued', conclusion: null, updatedAt: now }], cancelRequested: false,
  };
  d.runs.push(full);
  return full;
}

export function findRun(state: FakeGitHubState, id: string): FakeRun | undefined {
  return actions(state).runs.find((r) => r.id === id);
}

/** Moves the latest attempt of run `id` (e.g. to `completed` / `cancelled`). */
export function setRunStatus(state: FakeGitHubState, id: string, status: FakeAttempt['status'], conclusion: string | null = null): FakeRun {
  const run = findRun(state, id);
  if (run === undefined) throw new Error(`no fake run ${id}`);
  run.attempts[run.attempts.length - 1] = { status, conclusion, updatedAt: isoNow() };
  return run;
}

function authUser(req: FakeRequest, state: FakeGitHubState): FakeUser {
  const token = /^(?:token|bearer)\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return (token !== undefined ? actions(state).tokens.get(token) : undefined) ?? DEFAULT_USER;
}

function runJson(req: FakeRequest, run: FakeRun, attemptNumber = run.attempts.length): Record<string, unknown> {
  const attempt = run.attempts[attemptNumber - 1]!;
  const api = `${req.baseUrl}/repos/${run.repo.owner}/${run.repo.name}`;
  const url = `${api}/actions/runs/${run.id}`;
  return {
    id: int64(run.id), name: run.workflow.name, node_id: `WFR_${run.id}`, check_suite_id: int64(run.id), check_suite_node_id: `CS_${run.id}`,
    head_branch: run.headBranch, head_sha: run.headSha, path: run.workflow.path, run_number: run.runNumber, run_attempt: attemptNumber,
    referenced_workflows: [], event: run.event, status: attempt.status, conclusion: attempt.conclusion, workflow_id: run.workflow.id, url,
    html_url: `https://github.com/${run.repo.owner}/${run.repo.name}/actions/runs/${run.id}`, pull_requests: [],
    created_at: run.createdAt, updated_at: attempt.updatedAt, actor: userJson(req, run.actor), triggering_actor: userJson(req, run.triggeringActor),
    run_started_at: run.createdAt, jobs_url: `${url}/jobs`, logs_url: `${url}/logs`, check_suite_url: `${api}/check-suites/${run.id}`,
    artifacts_url: `${url}/artifacts`, cancel_url: `${url}/cancel`, rerun_url: `${url}/rerun`,
    previous_attempt_url: attemptNumber > 1 ? `${url}/attempts/${attemptNumber - 1}` : null,
    workflow_url: `${api}/actions/workflows/${run.workflow.id}`,
    head_commit: { id: run.headSha, tree_id: 'e'.repeat(40), message: 'worker revision', timestamp: run.createdAt, author: { name: 'Fake', email: 'fake@example.com' }, committer: { name: 'Fake', email: 'fake@example.com' } },
    repository: minimalRepositoryJson(req, run.repo), head_repository: minimalRepositoryJson(req, run.repo), display_title: run.displayTitle,
  };
}

function resolveRef(repo: FakeRepository, ref: string): string | undefined {
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  return repo.refs.get(`refs/heads/${name}`) ?? repo.refs.get(`refs/tags/${name}`);
}

function dispatch(req: FakeRequest, state: FakeGitHubState): FakeResponse {
  const repo = state.repo(req.params.owner!, req.params.repo!);
  const workflow = repo === undefined ? undefined : workflowOf(state, repo, req.params.workflow_id!);
  if (repo === undefined || workflow === undefined) return notFound();
  const body = (req.body ?? {}) as { ref?: unknown; inputs?: unknown; return_run_details?: unknown };
  if (typeof body.ref !== 'string') return { status: 422, body: errorBody('Invalid request.\n\n"ref" wasn\'t supplied.') };
  const sha = resolveRef(repo, body.ref);
  if (sha === undefined) return { status: 422, body: errorBody(`No ref found for: ${body.ref}`) };
  const inputs = (body.inputs ?? {}) as Record<string, unknown>;
  const unexpected = Object.keys(inputs).filter((k) => !workflow.inputs.includes(k));
  if (unexpected.length > 0) return { status: 422, body: errorBody(`Unexpected inputs provided: ${JSON.stringify(unexpected)}`) };
  const user = authUser(req, state);
  const run = addRun(state, {
    repo, workflow, headBranch: body.ref.replace(/^refs\/(heads|tags)\//, ''), headSha: sha, event: 'workflow_dispatch', actor: user,
    displayTitle: workflow.runName?.(inputs) ?? workflow.name, inputs,
  });
  const version = req.headers['x-github-api-version'];
  if (version === DISPATCH_API_VERSION || body.return_run_details === true) {
    const api = `${req.baseUrl}/repos/${repo.owner}/${repo.name}`;
    return rawJson(200, {
      workflow_run_id: int64(run.id), run_url: `${api}/actions/runs/${run.id}`,
      html_url: `https://github.com/${repo.owner}/${repo.name}/actions/runs/${run.id}`,
    }, typeof version === 'string' ? { 'x-github-api-version-selected': version } : undefined);
  }
  return { status: 204 };
}

const PAGE_MAX = 100;

function listRuns(req: FakeRequest, state: FakeGitHubState, byWorkflow: boolean): FakeResponse {
  const repo = state.repo(req.params.owner!, req.params.repo!);
  if (repo === undefined) return notFound();
  const workflow = byWorkflow ? workflowOf(state, repo, req.params.workflow_id!) : undefined;
  if (byWorkflow && workflow === undefined) return notFound();
  const q = req.query;
  const status = q.get('status');
  const runs = actions(state).runs
    .filter((r) => r.repo === repo && (workflow === undefined || r.workflow === workflow))
    .filter((r) => q.get('event') === null || r.event === q.get('event'))
    .filter((r) => q.get('actor') === null || r.actor.login === q.get('actor'))
    .filter((r) => q.get('branch') === null || r.headBranch === q.get('branch'))
    .filter((r) => q.get('head_sha') === null || r.headSha === q.get('head_sha'))
    .filter((r) => status === null || r.attempts.at(-1)!.status === status || r.attempts.at(-1)!.conclusion === status)
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const perPage = Math.min(PAGE_MAX, Math.max(1, Number(q.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  const slice = runs.slice((page - 1) * perPage, page * perPage);
  return rawJson(200, { total_count: runs.length, workflow_runs: slice.map((r) => runJson(req, r)) });
}

function withRun(req: FakeRequest, state: FakeGitHubState, then: (run: FakeRun) => FakeResponse): FakeResponse {
  const repo = state.repo(req.params.owner!, req.params.repo!);
  const run = repo === undefined ? undefined : actions(state).runs.find((r) => r.repo === repo && r.id === req.params.run_id);
  return run === undefined ? notFound() : then(run);
}

export const actionRoutes: FakeRoute[] = [
  { method: 'POST', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', handle: dispatch },
  { method: 'GET', path: '/repos/{owner}/{repo}/actions/runs', handle: (req, state) => listRuns(req, state, false) },
  { method: 'GET', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', handle: (req, state) => listRuns(req, state, true) },
  { method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}', handle: (req, state) => withRun(req, state, (run) => rawJson(200, runJson(req, run))) },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}',
    handle: (req, state) => withRun(req, state, (run) => {
      const n = Number(req.params.attempt_number);
      return Number.isInteger(n) && n >= 1 && n <= run.attempts.length ? rawJson(200, runJson(req, run, n)) : notFound();
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
    handle: (req, state) => withRun(req, state, (run) => {
      if (run.attempts.at(-1)!.status === 'completed') return { status: 409, body: errorBody('Cannot cancel a workflow run that is completed.') };
      run.cancelRequested = true; // a request only: the run stops when GitHub gets to it (setRunStatus)
      return { status: 202, body: {} };
    }),
  },
  {
    method: 'POST',
    path: '/repos/{owner}/{repo}/actions/runs/{run_id}/rerun',
    handle: (req, state) => withRun(req, state, (run) => {
      run.attempts.push({ status: 'queued', conclusion: null, updatedAt: isoNow() });
      run.cancelRequested = false;
      return { status: 201, body: {} };
    }),
  },
];
