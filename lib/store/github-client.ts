/**
 * The Octokit client the GitHub store uses (`@octokit/rest` with the throttling
 * and retry plugins) and the mapping of its failures to stable error codes.
 * Tokens never appear in errors or logs.
 */
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import createDebug from 'debug';
import { ProtocolError } from '../../engine/errors.ts';

const log = createDebug('work-queue:store:github');

export const FairwayOctokit = Octokit.plugin(throttling, retry);
export type FairwayOctokit = InstanceType<typeof FairwayOctokit>;

export interface GitHubClientOptions {
  token: string;
  /** API root (default https://api.github.com). */
  baseUrl?: string;
  /**
   * Minimum spacing of mutating requests. Unset: the throttling plugin's
   * default, GitHub's guidance of one second between writes.
   */
  writeIntervalMs?: number;
  /** Base of the retry plugin's quadratic backoff (default 1000 ms). */
  retryBaseMs?: number;
  /** Retries for idempotent requests (default 3). Ref updates never retry. */
  retries?: number;
}

/** How many times, and how long at most, to wait out a (secondary) rate limit before failing. */
const RATE_LIMIT_RETRIES = 2;
const RATE_LIMIT_MAX_WAIT_S = 60;

export function createOctokit(options: GitHubClientOptions): FairwayOctokit {
  const onLimit = (kind: string) => (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    log('%s rate limit on %s %s: retry %d after %d s', kind, request.method, request.url, retryCount + 1, retryAfter);
    return retryCount < RATE_LIMIT_RETRIES && retryAfter <= RATE_LIMIT_MAX_WAIT_S;
  };
  return new FairwayOctokit({
    auth: options.token,
    ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl.replace(/\/+$/, '') }),
    userAgent: 'fairway-work-queue',
    log: { debug: () => undefined, info: () => undefined, warn: (m: string) => log('warn: %s', m), error: (m: string) => log('error: %s', m) },
    throttle: {
      id: 'fairway',
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...(options.retryBaseMs !== undefined && { retryAfterBaseValue: Math.max(1, options.retryBaseMs) }),
      ...(options.writeIntervalMs !== undefined && { write: spacedGroup(options.writeIntervalMs) as never }),
    },
    retry: {
      ...(options.retryBaseMs !== undefined && { retryAfterBaseValue: options.retryBaseMs }),
      ...(options.retries !== undefined && { retries: options.retries }),
    },
  });
}

/**
 * The one part of a Bottleneck.Group the throttling plugin uses for writes
 * (`key(id).schedule(options, fn)`), spacing jobs `intervalMs` apart.
 */
function spacedGroup(intervalMs: number) {
  let next = 0;
  const limiter = {
    schedule<T>(_options: unknown, fn: () => Promise<T> | T): Promise<T> {
      const now = Date.now();
      const at = Math.max(now, next);
      next = at + intervalMs;
      return at <= now ? Promise.resolve().then(fn) : new Promise<T>((resolve, reject) => setTimeout(() => Promise.resolve().then(fn).then(resolve, reject), at - now));
    },
  };
  return { key: () => limiter };
}

interface OctokitRequestError {
  status: number;
  message: string;
  response?: { data?: unknown; headers?: Record<string, string | number | undefined> };
  cause?: unknown;
}

export function isRequestError(e: unknown): e is OctokitRequestError {
  return typeof e === 'object' && e !== null && typeof (e as { status?: unknown }).status === 'number' && 'request' in e;
}

/** A transport failure: no HTTP response at all. */
export function isNetworkError(e: unknown): boolean {
  return isRequestError(e) && e.response === undefined;
}

/** The connection was refused or the host unknown: the request cannot have been received. */
export function neverSent(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return true;
  }
  return false;
}

/** GitHub's error message from a response body, if any. */
export function githubMessage(e: OctokitRequestError): string {
  const data = e.response?.data as { message?: unknown } | undefined;
  return typeof data?.message === 'string' ? data.message : e.message;
}

/** A stable error for a failed request; `write` marks a mutation (403 → write denied). */
export function githubFailure(action: string, e: unknown, where: string, write = false): ProtocolError {
  if (!isRequestError(e)) return new ProtocolError('github_request_failed', `${action} on ${where} failed: ${String(e)}`);
  if (e.response === undefined) {
    return new ProtocolError('store_unreachable', `cannot reach the GitHub API to ${action} (${where}): ${e.message}`, {}, { network: true });
  }
  const message = githubMessage(e);
  const details = { status: e.status, github_message: message };
  const exhausted = e.response.headers?.['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message);
  if ((e.status === 403 || e.status === 429) && exhausted) {
    return new ProtocolError('github_rate_limited', `GitHub rate-limited the request to ${action} (${where}): ${message}`, {}, details);
  }
  switch (e.status) {
    case 401:
      return new ProtocolError('github_auth_failed', `GitHub rejected the token while trying to ${action} (${where}): ${message}`, {}, details);
    case 403:
      return new ProtocolError(write ? 'store_write_denied' : 'github_forbidden', `GitHub refused to ${action} (${where}): ${message}`, {}, details);
    case 422:
      if (write && /repository rule|protected branch/i.test(message)) {
        return new ProtocolError('store_write_denied', `GitHub refused to ${action} (${where}): ${message}`, {}, details);
      }
      return new ProtocolError('github_request_failed', `GitHub answered 422 while trying to ${action} (${where}): ${message}`, {}, details);
    case 404:
      return new ProtocolError('github_not_found', `GitHub could not find what was needed to ${action} (${where}); the repository may not exist or the token may lack access: ${message}`, {}, details);
    case 409:
      return new ProtocolError(/empty/i.test(message) ? 'store_repository_empty' : 'github_conflict', `cannot ${action} (${where}): ${message}`, {}, details);
    default:
      return new ProtocolError('github_request_failed', `GitHub answered ${e.status} while trying to ${action} (${where}): ${message}`, {}, details);
  }
}
