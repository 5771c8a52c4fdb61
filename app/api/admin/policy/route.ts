/** POST /api/admin/policy — administrator only; answers with the receipt. */
import { handleAdminAction } from '../../../../lib/console/admin/handler.ts';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleAdminAction('policy', request);
}
