/**
 * GET /metrics of the console (docs/observability.md "Metrics"): the queue metrics of the live projection as
 * OpenMetrics text, computed by the same pure function as `fairway stats --format openmetrics`.
 * Behind the same read authorisation as the pages (local mode: the loopback port; hosted
 * mode: a session) and, like every console request, the server's Host guard.
 */
import { INTERNAL_ERROR, isProtocolError } from '../../engine/errors.ts';
import { queueMetrics } from '../../engine/metrics/queue-metrics.ts';
import { OPENMETRICS_CONTENT_TYPE, renderOpenMetrics } from '../metrics/exposition.ts';
import type { ConsoleRuntime } from './runtime.ts';
import { storeFailureResponse } from './store-failure.ts';

const HEADERS = { 'cache-control': 'no-store' };

function refusal(status: number, code: string): Response {
  return new Response(`${code}\n`, { status, headers: { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' } });
}

export async function metricsResponse(runtime: () => ConsoleRuntime, canRead: (mode: 'local' | 'hosted') => Promise<boolean>): Promise<Response> {
  try {
    const r = runtime();
    if (!(await canRead(r.config.mode))) return refusal(401, 'unauthenticated');
    const live = await r.live();
    // A stale read (the store is unreachable) still answers the last good values, flagged in a
    // header and, for a scraper that keeps no headers, by fairway_store_stale 1.
    const text = await renderOpenMetrics(queueMetrics(live.projection, r.now()), { stale: live.stale !== null });
    return new Response(text, { status: 200, headers: { ...HEADERS, 'content-type': OPENMETRICS_CONTENT_TYPE, 'x-fairway-stale': live.stale === null ? '0' : '1' } });
  } catch (e) {
    // The message is not echoed (it may name the store); the code is stable.
    if (isProtocolError(e)) return storeFailureResponse(e.code, { text: true });
    return refusal(500, INTERNAL_ERROR);
  }
}
