/** POST /api/whatif — the engine simulator on the current backlog (read-only; no session needed in local mode). */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { canRead } from '../../../lib/auth/session.ts';
import { consoleRuntime } from '../../../lib/console/context.ts';
import { whatIf, WhatIfRequestSchema } from '../../../lib/console/views/whatif.ts';

export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const parsed = WhatIfRequestSchema.safeParse(await request.json().catch(() => null));
  if (!parsed.success) {
    return Response.json({ ok: false, error: { code: 'request_invalid', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } }, { status: 400 });
  }
  try {
    const runtime = consoleRuntime();
    if (!(await canRead(runtime.config.mode))) return Response.json({ ok: false, error: { code: 'unauthenticated', message: 'sign in first' } }, { status: 401 });
    const view = await runtime.view(parsed.data.at ?? null);
    return Response.json({ ok: true, result: whatIf(view.projection, view.asOf, parsed.data) });
  } catch (e) {
    if (isProtocolError(e)) return Response.json({ ok: false, error: { code: e.code, message: e.message } }, { status: 422 });
    return Response.json({ ok: false, error: { code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE } }, { status: 500 });
  }
}
