/**
 * The one `workflow_dispatch` POST of a started group (spec 7.8), pinned to REST API
 * version 2026-03-10, whose success is HTTP 200 `{workflow_run_id, run_url, html_url}`.
 * It goes through a plain Octokit without the retry and throttling plugins, so it is
 * sent at most once. Outcomes: `accepted` (validated run id, lossless), `rejected`
 * (definitive: the host refused it, or the connection was never established) and
 * `uncertain` (lost or late response, 204 of an older API, odd body, 5xx, rate limit):
 * never permission to resend.
 *
 * Deviation note: @octokit/openapi 23.0.2 describes this operation for its default API
 * version, where the 200 body (`workflow-dispatch-response`) is returned only when the
 * request sets `return_run_details: true` (204 otherwise). We send both the version header
 * and `return_run_details: true`, so the answer we require is also the documented one.
 */
import { debugEvent, since } from '../debug/log.ts';
import { isDecimalId } from '../../engine/identity/index.ts';
import { isRequestError, githubMessage, neverSent } from '../store/github-errors.ts';
import { parseGitHubJson, validate } from './json.ts';
import { DispatchResponseSchema } from './schemas.ts';

export const DISPATCH_API_VERSION = '2026-03-10';
/** Assignment input of the compiled worker (spec 7.14). */
export const ASSIGNMENT_INPUT = 'work_queue_assignment';

export interface DispatchPostOptions {
  token: string;
  baseUrl?: string;
  /** Abort the request after this long; a timeout is an uncertain launch (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export interface DispatchTarget {
  owner: string;
  repo: string;
  /** Workflow file name or path (`.github/workflows/worker.lock.yml`). */
  workflow: string;
  /** Branch or tag to dispatch on (the run's head must then be the approved revision). */
  ref: string;
  inputs: Record<string, string>;
}

export type PostOutcome =
  | { status: 'accepted'; runId: string; runUrl: string; htmlUrl: string; apiVersion: string | null }
  | { status: 'rejected'; httpStatus: number | null; reason: string; message: string }
  | { status: 'uncertain'; httpStatus: number | null; reason: string; message: string };

const DEFINITIVE = new Set([400, 401, 404, 422]);

export async function postWorkflowDispatch(options: DispatchPostOptions, target: DispatchTarget): Promise<PostOutcome> {
  const started = Date.now();
  const outcome = await postOnce(options, target);
  debugEvent('native', 'post', { outcome: outcome.status, status: outcome.status === 'accepted' ? 200 : outcome.httpStatus ?? 0, ms: since(started) });
  return outcome;
}

/** Whether `root` carries a user name or password: fetch refuses to build a request to it, so nothing can be sent. */
function carriesCredentials(root: string): boolean {
  try {
    const url = new URL(root);
    return url.username !== '' || url.password !== '';
  } catch {
    return false; // not a URL: Octokit's own error says so
  }
}

async function postOnce(options: DispatchPostOptions, target: DispatchTarget): Promise<PostOutcome> {
  // Known before sending: a definitive nonlaunch, not a lost answer (and the credentials are not repeated).
  if (options.baseUrl !== undefined && carriesCredentials(options.baseUrl)) {
    return { status: 'rejected', httpStatus: null, reason: 'dispatch_not_sent', message: 'the GitHub API URL carries credentials, which no request may hold; give the token in GH_TOKEN' };
  }
  const { Octokit } = await import('@octokit/rest'); // loaded by the first POST, not by the command's start-up
  const octokit = new Octokit({
    auth: options.token,
    userAgent: 'fairway-work-queue',
    ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl.replace(/\/+$/, '') }),
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const workflowId = target.workflow.split('/').pop()!;
  let status: number;
  let text: string;
  let selected: string | null;
  try {
    const res = await octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner: target.owner, repo: target.repo, workflow_id: workflowId, ref: target.ref, inputs: target.inputs, return_run_details: true,
      headers: { 'x-github-api-version': DISPATCH_API_VERSION },
      request: {
        parseSuccessResponseBody: false,
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        ...(options.fetch !== undefined && { fetch: options.fetch }),
      },
    });
    status = res.status;
    selected = typeof res.headers['x-github-api-version-selected'] === 'string' ? res.headers['x-github-api-version-selected'] : null;
    text = res.data === undefined || res.data === null || typeof res.data === 'string' ? String(res.data ?? '') : await new Response(res.data as unknown as ReadableStream).text();
  } catch (e) {
    return failure(e);
  }
  if (status !== 200) {
    return { status: 'uncertain', httpStatus: status, reason: status === 204 ? 'dispatch_response_unsupported' : 'dispatch_response_unexpected', message: `HTTP ${status} instead of the 2026-03-10 run details` };
  }
  try {
    const body = validate(DispatchResponseSchema, parseGitHubJson(text, 'workflow dispatch'), 'workflow dispatch response');
    const tail = `/actions/runs/${body.workflow_run_id}`;
    if (!isDecimalId(body.workflow_run_id) || !body.run_url.endsWith(tail) || !body.html_url.endsWith(tail)) {
      return { status: 'uncertain', httpStatus: status, reason: 'dispatch_response_invalid', message: 'run URLs do not name the returned run id' };
    }
    return { status: 'accepted', runId: body.workflow_run_id, runUrl: body.run_url, htmlUrl: body.html_url, apiVersion: selected };
  } catch (e) {
    return { status: 'uncertain', httpStatus: status, reason: 'dispatch_response_invalid', message: (e as Error).message };
  }
}

function failure(e: unknown): PostOutcome {
  if (isRequestError(e) && e.response !== undefined) {
    const message = githubMessage(e);
    const limited = e.status === 429 || (e.status === 403 && (e.response.headers?.['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message)));
    if (!limited && (DEFINITIVE.has(e.status) || e.status === 403)) return { status: 'rejected', httpStatus: e.status, reason: `dispatch_rejected_${e.status}`, message };
    return { status: 'uncertain', httpStatus: e.status, reason: limited ? 'dispatch_rate_limited' : 'dispatch_server_error', message };
  }
  if (neverSent(e)) return { status: 'rejected', httpStatus: null, reason: 'dispatch_not_sent', message: 'the connection to the API was never established' };
  const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError' || /aborted|timeout/i.test(e.message));
  return { status: 'uncertain', httpStatus: null, reason: timeout ? 'dispatch_timeout' : 'dispatch_response_lost', message: e instanceof Error ? e.message : String(e) };
}
