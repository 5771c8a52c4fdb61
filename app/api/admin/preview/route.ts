/** POST /api/admin/preview — administrator only; what an action would publish now (targets, preconditions, operations). Publishes nothing. */
import { handleAdminPreview } from '../../../../lib/console/admin/handler.ts';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleAdminPreview(request);
}
