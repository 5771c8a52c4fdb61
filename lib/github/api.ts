/**
 * The read side of Fairway's GitHub adapters: `createOctokit` (throttling + bounded retry
 * of safe reads, spec 7.8 "Reuse bounded backoff for safe reads") with raw bodies parsed
 * losslessly and validated by zod. Failures keep a stable code and a normalized read
 * status (`details.read_status`) so callers can record them as unknown or unavailable
 * evidence: 401/403/404, rate limits, network and server errors never look like data.
 */
import type { z } from 'zod';
import { ProtocolError, isProtocolError } from '../../engine/errors.ts';
import type { ReadStatus } from '../../engine/lifecycle/observations.ts';
import type { FairwayOctokit } from '../store/github-client.ts';
import { githubFailure, isRequestError } from '../store/github-errors.ts';
import { parseGitHubJson, validate } from './json.ts';

export interface GitHubApiOptions {
  token: string;
  /** API root (default https://api.github.com). */
  baseUrl?: string;
  /** Retries of idempotent reads (default 3); tests use 0. */
  retries?: number;
  retryBaseMs?: number;
  /** Resource host of Issue/PR identities served by this API (default github.com). */
  host?: string;
}

export class GitHubApi {
  readonly host: string;
  private client: Promise<FairwayOctokit> | null = null;

  constructor(readonly options: GitHubApiOptions) {
    if (options.token === '') throw new ProtocolError('github_token_missing', 'the GitHub API needs a token', {}, { usage: true });
    this.host = options.host ?? 'github.com';
  }

  /** The Octokit client, loaded and created on the first request (a command's --help never loads it). */
  octokit(): Promise<FairwayOctokit> {
    const { options } = this;
    this.client ??= import('../store/github-client.ts').then(({ createOctokit }) => createOctokit({
      token: options.token,
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...(options.retries !== undefined && { retries: options.retries }),
      ...(options.retryBaseMs !== undefined && { retryBaseMs: options.retryBaseMs }),
    }));
    return this.client;
  }

  /** GET `route` and validate the lossless body with `schema`; failures are classified ProtocolErrors. */
  async get<S extends z.ZodType>(route: string, params: Record<string, string | number>, schema: S, what: string): Promise<z.output<S>> {
    let text: string;
    const octokit = await this.octokit();
    try {
      const res = await octokit.request(`GET ${route}`, { ...params, request: { parseSuccessResponseBody: false } });
      text = await new Response(res.data as ReadableStream | null).text();
    } catch (e) {
      throw classify(e, what);
    }
    try {
      return validate(schema, parseGitHubJson(text, what), what);
    } catch (e) {
      throw withStatus(e as ProtocolError, 'response_invalid');
    }
  }

  /** A POST whose answer is only its status (e.g. run cancellation); never retried. */
  async post(route: string, params: Record<string, string | number>, what: string): Promise<number> {
    const octokit = await this.octokit();
    try {
      const res = await octokit.request(`POST ${route}`, { ...params, request: { retries: 0 } });
      return res.status;
    } catch (e) {
      if (isRequestError(e) && e.response !== undefined && e.status < 500 && e.status !== 429) return e.status;
      throw classify(e, what);
    }
  }
}

function withStatus(e: ProtocolError, status: ReadStatus): ProtocolError {
  return new ProtocolError(e.code, e.message, {}, { ...(e.details ?? {}), read_status: status });
}

/** Stable code (github-client's mapping) plus the normalized read status. */
export function classify(e: unknown, what: string): ProtocolError {
  if (isProtocolError(e)) return e.details?.read_status === undefined ? withStatus(e, 'response_invalid') : e;
  const failure = githubFailure(what, e, 'GitHub API');
  const status = isRequestError(e) ? e.status : 0;
  const byCode: Record<string, ReadStatus> = {
    github_auth_failed: 'unauthorized', github_forbidden: 'forbidden', store_write_denied: 'forbidden', github_not_found: 'not_found',
    github_rate_limited: 'rate_limited', store_unreachable: 'network',
  };
  let read: ReadStatus = byCode[failure.code] ?? (status >= 500 || status === 0 ? 'unavailable' : 'response_invalid');
  if (status === 410) read = 'not_found';
  if (isRequestError(e) && e.response === undefined) read = 'network';
  return withStatus(failure, read);
}

/**
 * The normalized read status of a failed read: the status `classify` gave it, else `unavailable`
 * (a protocol refusal of our own while reading). Anything else is a bug, not a read status: it is
 * rethrown as it is, so it surfaces as `internal_error` rather than "restore GitHub API access".
 */
export function readStatusOf(e: unknown): ReadStatus {
  if (!isProtocolError(e)) throw e;
  const status = e.details?.read_status;
  return typeof status === 'string' ? (status as ReadStatus) : 'unavailable';
}
