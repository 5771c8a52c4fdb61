/**
 * The server-side role check of administrator actions (docs/console.md "Authentication and roles"): no
 * session → 401, a non-administrator → 403. Hiding a button is not security;
 * every route handler and server action calls this first. Cross-site
 * requests are refused as well (the session cookie is SameSite=Lax and the
 * body must be JSON, and the Origin, when sent, must be this server).
 */
import { isJsonMediaType } from '../console/body.ts';
import type { Role } from './roles.ts';

export interface Viewer {
  role: Role;
  name: string;
  /** Decimal GitHub user id actions are published as. */
  principal: string;
}

export type GuardResult = { ok: true; viewer: Viewer } | { ok: false; status: 401 | 403 | 415; code: string; message: string };

export function checkAdministrator(viewer: Viewer | null, request: { headers: Headers; url: string }): GuardResult {
  if (viewer === null) return { ok: false, status: 401, code: 'unauthenticated', message: 'sign in as an administrator first' };
  if (viewer.role !== 'administrator') return { ok: false, status: 403, code: 'forbidden', message: 'administrator role required' };
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== new URL(request.url).origin && !sameHost(origin, request.headers.get('host'))) {
    return { ok: false, status: 403, code: 'cross_origin', message: 'cross-origin administrator requests are refused' };
  }
  // Exactly application/json (parameters allowed), never a prefix: application/jsonx is not JSON.
  if (!isJsonMediaType(request.headers.get('content-type'))) {
    return { ok: false, status: 415, code: 'json_required', message: 'send the action as application/json' };
  }
  return { ok: true, viewer };
}

function sameHost(origin: string, host: string | null): boolean {
  if (host === null) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
