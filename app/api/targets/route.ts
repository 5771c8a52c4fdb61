/**
 * GET /api/targets?work_id=…(repeated): each Work id resolved against the live ledger (name, state,
 * priority, owner), with `stale` when that is the last good view of a ledger that could not be read again.
 */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { MAX_ADMIN_TARGETS } from '../../../engine/schema/defaults.ts';
import { canRead } from '../../../lib/auth/session.ts';
import { errorResponse as error } from '../../../lib/console/body.ts';
import { consoleRuntime } from '../../../lib/console/context.ts';
import { storeFailureResponse } from '../../../lib/console/store-failure.ts';
import { workTargets } from '../../../lib/console/views/admin-targets.ts';

export const dynamic = 'force-dynamic';

export async function GET(request: Request): Promise<Response> {
  // Every id is answered, an over-long one as exists:false (it names no Work): an id left out of
  // the answer would read as "nothing missing" to the dialog. More than one action takes is refused.
  const ids = [...new Set(new URL(request.url).searchParams.getAll('work_id'))].filter((id) => id.length > 0);
  if (ids.length > MAX_ADMIN_TARGETS) return error(400, 'request_invalid', `work_id: at most ${MAX_ADMIN_TARGETS} ids`);
  try {
    const runtime = consoleRuntime();
    if (!(await canRead(runtime.config.mode))) return error(401, 'unauthenticated', 'sign in first');
    const live = await runtime.live();
    // `stale`: the ledger could not be read again, so the ids were resolved against the last good
    // view (as /api/tip says); the dialog warns, and the action itself is checked at the live tip.
    return Response.json({
      ok: true,
      tip: live.projection.tip,
      stale: live.stale === null ? null : { code: live.stale.code, since: live.stale.since },
      read_at: live.readAt,
      targets: workTargets(live.projection, ids),
    }, { headers: { 'cache-control': 'no-store' } });
  } catch (e) {
    if (isProtocolError(e)) return storeFailureResponse(e.code);
    return error(500, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE);
  }
}
