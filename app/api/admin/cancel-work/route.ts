/** POST /api/admin/cancel-work — administrator only; answers with the receipt. */
import { handleAdminAction } from '../../../../lib/console/admin/handler.ts';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleAdminAction('cancel-work', request);
}
