/** GET /api/targets?work_id=…(repeated): each Work id resolved against the live ledger (name, state, priority, owner). */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { canRead } from '../../../lib/auth/session.ts';
import { consoleRuntime } from '../../../lib/console/context.ts';
import { workTargets } from '../../../lib/console/views/admin-targets.ts';

export const dynamic = 'force-dynamic';

const MAX_TARGETS = 256;

export async function GET(request: Request): Promise<Response> {
  const ids = [...new Set(new URL(request.url).searchParams.getAll('work_id'))].filter((id) => id.length > 0 && id.length <= 256).slice(0, MAX_TARGETS);
  try {
    const runtime = consoleRuntime();
    if (!(await canRead(runtime.config.mode))) return Response.json({ ok: false, error: { code: 'unauthenticated', message: 'sign in first' } }, { status: 401 });
    const live = await runtime.live();
    return Response.json({ ok: true, tip: live.projection.tip, targets: workTargets(live.projection, ids) }, { headers: { 'cache-control': 'no-store' } });
  } catch (e) {
    if (isProtocolError(e)) return Response.json({ ok: false, error: { code: e.code, message: 'the ledger could not be read' } }, { status: 503 });
    return Response.json({ ok: false, error: { code: INTERNAL_ERROR, message: INTERNAL_ERROR_MESSAGE } }, { status: 500 });
  }
}
