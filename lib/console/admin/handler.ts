/**
 * The shared body of `POST /api/admin/{action}` (docs/console.md "Authentication and roles"): role check on
 * the server (no session → 401, observer → 403), the strict JSON body (lib/console/body.ts), zod validation, publication
 * through the Publisher, and the receipt as the response. Logs carry the
 * action, HTTP status and duration only (lib/debug) — never targets, reasons or payloads.
 */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { checkAdministrator, type Viewer } from '../../auth/guard.ts';
import type { EventMeta } from '../../debug/events.ts';
import { debugEvent, since } from '../../debug/log.ts';
import { currentViewer } from '../../auth/session.ts';
import { errorResponse as error, readJsonBody } from '../body.ts';
import { consoleRuntime } from '../context.ts';
import { isStoreFailure, storeFailureResponse } from '../store-failure.ts';
import { runAdminAction } from './actions.ts';
import { previewLive } from './preview.ts';
import { ADMIN_BODIES, type AdminAction, type AdminBody } from './schemas.ts';


/** Protocol refusals that mean "the queue is not in a state that allows this". */
const CONFLICTS = new Set(['preview_stale', 'no_change', 'work_not_rerunnable', 'duplicate_node_key', 'inconsistent_resubmission', 'policy_not_quiescent', 'work_not_available', 'priority_conflict', 'claim_terminal', 'claim_not_effective', 'work_terminal', 'read_only', 'grants_paused', 'admission_paused', 'request_id_conflict']);

/** One `console admin` debug event: the action, the HTTP status answered and the duration. */
const LOGGED_ACTIONS: ReadonlySet<string> = new Set(['control', 'cancel-claim', 'cancel-work', 'reprioritize', 'policy']);

function logged(action: AdminAction, status: number, started: number): void {
  // Actions the debug event vocabulary does not name (run-again) are logged as `other`.
  const name = (LOGGED_ACTIONS.has(action) ? action : 'other') as EventMeta<'console', 'admin'>['action'];
  debugEvent('console', 'admin', { action: name, status, ms: since(started) });
}

/** Who sent the request: the NextAuth session (tests of the handler name the viewer, as a session would). */
export type ViewerSource = () => Promise<Viewer | null>;

export async function handleAdminAction(action: AdminAction, request: Request, session: ViewerSource = currentViewer): Promise<Response> {
  const started = Date.now();
  const viewer = await session().catch(() => null);
  const guard = checkAdministrator(viewer, request);
  if (!guard.ok) {
    logged(action, guard.status, started);
    return error(guard.status, guard.code, guard.message);
  }
  const body = await readJsonBody(request);
  if (!body.ok) {
    logged(action, body.status, started);
    return error(body.status, body.code, body.message, body.details);
  }
  const parsed = ADMIN_BODIES[action].safeParse(body.value);
  if (!parsed.success) {
    logged(action, 400, started);
    return error(400, 'request_invalid', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }
  try {
    const outcome = await runAdminAction(consoleRuntime(), action, parsed.data as AdminBody<AdminAction>, guard.viewer.principal);
    logged(action, 200, started);
    return Response.json(outcome, { headers: { 'cache-control': 'no-store' } });
  } catch (e) {
    if (isProtocolError(e)) {
      // A store failure (lib/console/store-failure.ts): the code and a fixed message, never the store's text.
      const status = isStoreFailure(e.code) ? 503 : CONFLICTS.has(e.code) ? 409 : 422;
      logged(action, status, started);
      return status === 503 ? storeFailureResponse(e.code, { when: 'publish' }) : error(status, e.code, e.message);
    }
    // Never echo the exception's text (it may name paths or hosts): the code and a fixed message, as every console route.
    logged(action, 500, started);
    return error(500, INTERNAL_ERROR, `the action failed; nothing is known to be published: ${INTERNAL_ERROR_MESSAGE}`);
  }
}

/**
 * `POST /api/admin/preview` with `{"action", "body"}` (docs/console.md "Previews"): the
 * dialog's preview — targets with name, state and owner, the precondition
 * verdict on the live ledger, and the exact operations with their digest.
 * Administrator only, like the action; nothing is published.
 */
export async function handleAdminPreview(request: Request, session: ViewerSource = currentViewer): Promise<Response> {
  const viewer = await session().catch(() => null);
  const guard = checkAdministrator(viewer, request);
  if (!guard.ok) return error(guard.status, guard.code, guard.message);
  const body = await readJsonBody(request);
  if (!body.ok) return error(body.status, body.code, body.message, body.details);
  // Exactly `{"action", "body"}`, as strict as the action's own body: an unknown field is refused, never ignored.
  const raw = body.value;
  const extra = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw).filter((k) => k !== 'action' && k !== 'body') : [];
  if (extra.length > 0) return error(400, 'request_invalid', `body: unrecognized key(s) ${extra.map((k) => JSON.stringify(k)).join(', ')}; send {"action", "body"}`);
  const envelope = raw as { action?: unknown; body?: unknown } | null;
  const action = typeof envelope?.action === 'string' && Object.hasOwn(ADMIN_BODIES, envelope.action) ? (envelope.action as AdminAction) : null;
  if (action === null) return error(400, 'request_invalid', `action: one of ${Object.keys(ADMIN_BODIES).join(', ')}`);
  const parsed = ADMIN_BODIES[action].safeParse(envelope?.body ?? null);
  if (!parsed.success) {
    return error(400, 'request_invalid', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }
  try {
    return Response.json(await previewLive(consoleRuntime(), action, parsed.data as AdminBody<AdminAction>), { headers: { 'cache-control': 'no-store' } });
  } catch (e) {
    if (isProtocolError(e)) return isStoreFailure(e.code) ? storeFailureResponse(e.code) : error(CONFLICTS.has(e.code) ? 409 : 422, e.code, e.message);
    logged(action, 500, Date.now());
    return error(500, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE);
  }
}
