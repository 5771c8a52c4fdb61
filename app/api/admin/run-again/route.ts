/** POST /api/admin/run-again — administrator only: a new submission (a replacement when delivery failed) pre-filled from a cancelled or failed Work; answers with the receipt. */
import { handleAdminAction } from '../../../../lib/console/admin/handler.ts';

export const dynamic = 'force-dynamic';

export function POST(request: Request): Promise<Response> {
  return handleAdminAction('run-again', request);
}
