/**
 * A small router for the fake GitHub. Routes are keyed by GitHub's own OpenAPI
 * path templates, so every response can be checked against the operation it
 * answers. More endpoint families (Issues, Pulls, Actions) go in
 * `routes-*.ts` files and are passed to `createFakeGitHub({ routes })`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FakeGitHubState } from './state.ts';

export interface FakeRequest {
  method: string;
  /** The OpenAPI path template that matched. */
  template: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when there was none). */
  body: unknown;
  /** The server's own base URL, for `url` fields in responses. */
  baseUrl: string;
}

export interface FakeResponse {
  status: number;
  /** JSON body; undefined sends no body. */
  body?: unknown;
  /**
   * Exact body text, sent instead of `JSON.stringify(body)`: for values JSON.stringify cannot
   * spell, such as GitHub's int64 ids above 2^53. It is validated like any other body.
   */
  raw?: string;
  headers?: Record<string, string>;
}

export interface FakeRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** OpenAPI path template, exactly as in GitHub's description. */
  path: string;
  handle(req: FakeRequest, state: FakeGitHubState): FakeResponse;
}

/** GitHub's `{ref}` and `{path}` parameters may span several segments when sent unencoded. */
const MULTI_SEGMENT = new Set(['ref', 'path']);

export function matchRoute(routes: readonly FakeRoute[], method: string, pathname: string): { route: FakeRoute; params: Record<string, string> } | null {
  const segments = pathname.split('/').slice(1);
  for (const route of routes) {
    if (route.method !== method) continue;
    const params = matchTemplate(route.path, segments);
    if (params !== null) return { route, params };
  }
  return null;
}

function matchTemplate(template: string, segments: string[]): Record<string, string> | null {
  const parts = template.split('/').slice(1);
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    const last = i === parts.length - 1;
    if (name !== undefined && last && MULTI_SEGMENT.has(name)) {
      const rest = segments.slice(i);
      if (rest.length === 0 || rest.some((s) => s === '')) return null;
      params[name] = rest.map(decodeURIComponent).join('/');
      return params;
    }
    const segment = segments[i];
    if (segment === undefined || segment === '') return null;
    if (name !== undefined) params[name] = decodeURIComponent(segment);
    else if (part !== segment) return null;
  }
  return segments.length === parts.length ? params : null;
}

/** GitHub's error body shape (`basic-error`). */
/** A ref or file path as GitHub spells it inside a URL: each segment percent-encoded, the slashes kept. */
export function uriPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

export function errorBody(message: string, docs = 'https://docs.github.com/rest'): { message: string; documentation_url: string; status?: string } {
  return { message, documentation_url: docs };
}

export function notFound(): FakeResponse {
  return { status: 404, body: { ...errorBody('Not Found'), status: '404' } };
}

/** 422 `validation-error`: GitHub also sends `status`, which that schema does not describe, so it is left out. */
export function unprocessable(message: string, docs?: string): FakeResponse {
  return { status: 422, body: errorBody(message, docs) };
}
