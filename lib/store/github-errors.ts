/**
 * GitHub request failures mapped to stable error codes (tokens never appear in them), apart
 * from the Octokit client (github-client.ts) so that code which only classifies failures does
 * not load it.
 */
import { ProtocolError } from '../../engine/errors.ts';

export interface OctokitRequestError {
  status: number;
  message: string;
  response?: { data?: unknown; headers?: Record<string, string | number | undefined> };
  cause?: unknown;
}

export function isRequestError(e: unknown): e is OctokitRequestError {
  return typeof e === 'object' && e !== null && typeof (e as { status?: unknown }).status === 'number' && 'request' in e;
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

/** `text` without the credentials of any URL in it (`https://user:token@host` → `https://***@host`). */
function withoutCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1***@');
}

/** A stable error for a failed request; `write` marks a mutation (403 → write denied). */
export function githubFailure(action: string, e: unknown, where: string, write = false): ProtocolError {
  if (!isRequestError(e)) return new ProtocolError('github_request_failed', `${action} on ${where} failed: ${withoutCredentials(String(e))}`);
  if (e.response === undefined) {
    // A transport error names the request URL, which may carry credentials (an API root with user:token@).
    return new ProtocolError('store_unreachable', `cannot reach the GitHub API to ${action} (${where}): ${withoutCredentials(e.message)}`, {}, { network: true });
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
