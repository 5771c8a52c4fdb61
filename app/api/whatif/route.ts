/** POST /api/whatif — the engine simulator on the current backlog (read-only; no session needed in local mode). */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { canRead } from '../../../lib/auth/session.ts';
import { errorResponse as error, readJsonBody } from '../../../lib/console/body.ts';
import { consoleRuntime } from '../../../lib/console/context.ts';
import { storeFailureResponse } from '../../../lib/console/store-failure.ts';
import type { ViewState } from '../../../lib/console/runtime.ts';
import { whatIf, WhatIfRequestSchema } from '../../../lib/console/views/whatif.ts';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  try {
    // The session first, as the admin routes check it: without one, the body is never read.
    const runtime = consoleRuntime();
    if (!(await canRead(runtime.config.mode))) return error(401, 'unauthenticated', 'sign in first');
    const body = await readJsonBody(request);
    if (!body.ok) return error(body.status, body.code, body.message, body.details);
    const parsed = WhatIfRequestSchema.safeParse(body.value);
    if (!parsed.success) return error(400, 'request_invalid', parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    let view: ViewState;
    try {
      view = await runtime.view(parsed.data.at ?? null);
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      // An unknown `at` commit is a 404, as on the pages (app/not-found.tsx), never a verdict on the request.
      if (e.code === 'unknown_commit') return error(404, e.code, e.message);
      // A read failure, as /api/tip answers it: the code, never the store's message (it may name paths or hosts).
      return storeFailureResponse(e.code);
    }
    return Response.json({ ok: true, result: whatIf(view.projection, view.asOf, parsed.data) });
  } catch (e) {
    if (isProtocolError(e)) return error(422, e.code, e.message);
    return error(500, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE);
  }
}
