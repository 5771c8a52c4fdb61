/** GET /metrics: OpenMetrics text of the live queue (lib/console/metrics.ts), same read authorisation as the pages. */
import { canRead } from '../../lib/auth/session.ts';
import { consoleRuntime } from '../../lib/console/context.ts';
import { metricsResponse } from '../../lib/console/metrics.ts';

export const dynamic = 'force-dynamic';

export function GET(): Promise<Response> {
  return metricsResponse(consoleRuntime, canRead);
}
