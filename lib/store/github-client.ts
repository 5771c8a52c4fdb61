/**
 * The Octokit client the GitHub store uses (`@octokit/rest` with the throttling
 * and retry plugins) and the mapping of its failures to stable error codes.
 * Tokens never appear in errors or logs.
 */
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { AsyncLocalStorage } from 'node:async_hooks';
import { writeTimeoutFor, type RequestTimeouts } from './github-timeouts.ts';
import { debugEvent, since } from '../debug/log.ts';

export const FairwayOctokit = Octokit.plugin(throttling, retry);
export type FairwayOctokit = InstanceType<typeof FairwayOctokit>;

export interface GitHubClientOptions {
  token: string;
  /** API root (default https://api.github.com). */
  baseUrl?: string;
  /**
   * Minimum spacing of mutating requests (default 1000 ms: GitHub's guidance of
   * one second between writes). GraphQL queries are reads and are not spaced
   * (the throttling plugin would otherwise queue every `POST /graphql` as a write).
   */
  writeIntervalMs?: number;
  /** Base of the retry plugin's quadratic backoff (default 1000 ms). */
  retryBaseMs?: number;
  /** Retries for idempotent requests (default 3). Ref updates never retry. */
  retries?: number;
  /**
   * Per-attempt request timeouts. Unset: none (the caller's own choice); the
   * ledger stores always set them (`storeTimeouts`). A read that times out is
   * retried like any transport failure; a write that times out is never retried
   * and its outcome is `uncertain` (resolved by reading back). A write's timeout
   * grows with its body (`writeTimeoutFor`): a large ledger's upload is not cut short.
   */
  timeouts?: RequestTimeouts;
}

export { DEFAULT_READ_TIMEOUT_MS, DEFAULT_WRITE_TIMEOUT_MS, storeTimeouts, type RequestTimeouts } from './github-timeouts.ts';

/** Once headers have arrived, the body may take this much longer (large ledgers). */
const BODY_TIMEOUT_MS = 120_000;

/** The `code` a timed-out request's cause carries (see `timedOut`). */
const TIMEOUT_CODE = 'FAIRWAY_REQUEST_TIMEOUT';

/**
 * A fetch that gives up when the response headers do not arrive within the
 * request's timeout. It fails like a transport error (TypeError with a coded
 * cause), so Octokit reports a RequestError without a response and the retry
 * plugin treats a timed-out read like any other lost connection.
 */
function timedFetch(timeouts: RequestTimeouts): typeof fetch {
  return async (input, init) => {
    const ms = isWriteRequest(init) ? writeTimeoutFor(timeouts.writeMs, bodyBytes(init?.body)) : timeouts.readMs;
    const controller = new AbortController();
    const outer = init?.signal ?? undefined;
    const onOuter = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuter, { once: true });
    let timedOutAfter: number | null = null;
    const arm = (after: number) => setTimeout(() => {
      timedOutAfter = after;
      controller.abort(new Error(`no answer within ${after} ms`));
    }, after);
    const timer = arm(ms);
    try {
      const response = await fetch(input, { ...init, signal: controller.signal });
      // The body of a large ledger may take longer than its headers: a second, longer
      // bound (unref'd; aborting a fetch whose body was read already does nothing).
      arm(Math.max(ms, BODY_TIMEOUT_MS)).unref();
      return response;
    } catch (e) {
      if (timedOutAfter === null) throw e;
      const cause = Object.assign(new Error(`GitHub did not answer within ${timedOutAfter} ms`), { code: TIMEOUT_CODE });
      throw Object.assign(new TypeError('fetch failed'), { cause });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    }
  };
}

/** The size of a request body Octokit sends (a JSON string, or bytes); 0 when it cannot be told. */
function bodyBytes(body: RequestInit['body'] | undefined): number {
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

/** GET/HEAD and GraphQL queries are reads; everything else (including GraphQL mutations) is a write. */
function isWriteRequest(init: RequestInit | undefined): boolean {
  const method = (init?.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') return false;
  if (typeof init?.body === 'string' && /^\{"query":"\s*query\b/.test(init.body)) return false;
  return true;
}

/** Whether a failure is a request that timed out (no answer, so a write's outcome is unknown). */
export function timedOut(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    if ((c as { code?: unknown }).code === TIMEOUT_CODE) return true;
  }
  return false;
}

/** How many times, and how long at most, to wait out a (secondary) rate limit before failing. */
const RATE_LIMIT_RETRIES = 2;
const RATE_LIMIT_MAX_WAIT_S = 60;

export function createOctokit(options: GitHubClientOptions): FairwayOctokit {
  const onLimit = (secondary: boolean) => (retryAfter: number, options: { url: string; request: object }, _octokit: unknown, retryCount: number) => {
    const request = options as { url: string; request?: { retries?: number } };
    // For GraphQL the plugin also reports a primary limit for any failed request whose answer says no
    // points are left, a 5xx included, after which a mutation may have run: a request never sent twice
    // (retries: 0) is then not resent. (For REST it reports only 403/429 refusals, which did not run.)
    const resendable = secondary || request.request?.retries !== 0 || !/\/graphql$/.test(request.url);
    const retrying = resendable && retryCount < RATE_LIMIT_RETRIES && retryAfter <= RATE_LIMIT_MAX_WAIT_S;
    debugEvent('store', 'rate_limit', { secondary, attempt: retryCount + 1, delay_ms: retryAfter * 1000, retrying });
    return retrying;
  };
  const octokit = new FairwayOctokit({
    auth: options.token,
    ...(options.timeouts !== undefined && { request: { fetch: timedFetch(options.timeouts) } }),
    ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl.replace(/\/+$/, '') }),
    userAgent: 'fairway-work-queue',
    log: { debug: () => undefined, info: () => undefined, warn: () => debugEvent('store', 'client_notice', { level: 'warn' }), error: () => debugEvent('store', 'client_notice', { level: 'error' }) },
    throttle: {
      id: 'fairway',
      onRateLimit: onLimit(false),
      onSecondaryRateLimit: onLimit(true),
      ...(options.retryBaseMs !== undefined && { retryAfterBaseValue: Math.max(1, options.retryBaseMs) }),
      write: spacedGroup(options.writeIntervalMs ?? DEFAULT_WRITE_INTERVAL_MS) as never,
      // Content-creating writes (Issues, comments) have their own, slower group (the plugin's
      // 3 s by default); an explicit spacing applies to them too.
      ...(options.writeIntervalMs !== undefined && { notifications: spacedGroup(options.writeIntervalMs) as never }),
    },
    retry: {
      ...(options.retryBaseMs !== undefined && { retryAfterBaseValue: options.retryBaseMs }),
      ...(options.retries !== undefined && { retries: options.retries }),
    },
  });
  observeRequests(octokit);
  return octokit;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * One `store http` debug event per request (each retry included): method, status, duration.
 * `status` is the status GitHub answered, 0 when no answer came (Octokit reports a lost
 * connection or a timeout as status 500 without a response); `write` is false for reads,
 * GraphQL queries (`asGraphqlRead`) included.
 */
export function observeRequests(octokit: { hook: { wrap: InstanceType<typeof Octokit>['hook']['wrap'] } }): void {
  octokit.hook.wrap('request', async (request, options) => {
    const started = Date.now();
    const upper = String(options.method ?? 'GET').toUpperCase();
    const method = (METHODS.has(upper) ? upper : 'other') as 'GET';
    const write = method !== 'GET' && method !== 'HEAD' && graphqlRead.getStore() !== true;
    try {
      const response = await request(options);
      debugEvent('store', 'http', { method, status: response.status, write, timed_out: false, ms: since(started) });
      return response;
    } catch (e) {
      const answered = (e as { response?: { status?: unknown } }).response?.status;
      const status = typeof answered === 'number' ? answered : 0;
      debugEvent('store', 'http', { method, status, write, timed_out: timedOut(e), ms: since(started) });
      throw e;
    }
  });
}

/** GitHub's guidance: at least one second between mutating requests. */
export const DEFAULT_WRITE_INTERVAL_MS = 1000;

/** Set while a GraphQL query (a read sent as `POST /graphql`) is in flight. */
const graphqlRead = new AsyncLocalStorage<true>();

/**
 * Sends a GraphQL query outside the write spacing. The throttling plugin
 * schedules every `POST /graphql` on its write limiter; a query is a read, so
 * a checked read followed by its publication would otherwise wait a second.
 */
export function asGraphqlRead<T>(send: () => Promise<T>): Promise<T> {
  return graphqlRead.run(true, send);
}

/**
 * The one part of a Bottleneck.Group the throttling plugin uses for writes
 * (`key(id).schedule(options, fn)`), spacing jobs `intervalMs` apart. GraphQL
 * queries (`asGraphqlRead`) pass straight through and take no slot.
 */
function spacedGroup(intervalMs: number) {
  let next = 0;
  const limiter = {
    schedule<T>(_options: unknown, fn: () => Promise<T> | T): Promise<T> {
      if (graphqlRead.getStore() === true) return Promise.resolve().then(fn);
      const now = Date.now();
      const at = Math.max(now, next);
      next = at + intervalMs;
      return at <= now ? Promise.resolve().then(fn) : new Promise<T>((resolve, reject) => setTimeout(() => Promise.resolve().then(fn).then(resolve, reject), at - now));
    },
  };
  return { key: () => limiter };
}

export { githubFailure, githubMessage, isRequestError, neverSent } from './github-errors.ts';
