/** GET /api/tip: the live ledger tip for polling (no payloads, no identifiers beyond the tip). */
import { INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, isProtocolError } from '../../../engine/errors.ts';
import { canRead } from '../../../lib/auth/session.ts';
import { errorResponse as error } from '../../../lib/console/body.ts';
import { consoleRuntime } from '../../../lib/console/context.ts';
import { storeFailureResponse } from '../../../lib/console/store-failure.ts';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  try {
    const runtime = consoleRuntime();
    if (!(await canRead(runtime.config.mode))) return error(401, 'unauthenticated', 'sign in first');
    const live = await runtime.live();
    return Response.json(
      {
        ok: true,
        tip: live.projection.tip,
        commits: live.projection.commitCount,
        controls: live.projection.controls,
        envelope: live.projection.envelope(),
        stale: live.stale === null ? null : { code: live.stale.code, since: live.stale.since },
        read_at: live.readAt,
      },
      { headers: { 'cache-control': 'no-store' } },
    );
  } catch (e) {
    // A read failure is a ProtocolError (the message is not echoed); anything else is a bug.
    if (isProtocolError(e)) return storeFailureResponse(e.code);
    return error(500, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE);
  }
}
