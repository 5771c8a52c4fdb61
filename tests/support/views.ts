/**
 * Every projection view a user can reach, run over one projection (CLI views and
 * console views). Protocol errors are answers (e.g. `history_compacted`); any other
 * exception propagates, so a caller asserting "never throws" sees it.
 */
import { isProtocolError } from '../../engine/errors.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { explainNext, explainWork } from '../../cli/commands/explain.ts';
import { historicalExplanation } from '../../cli/history.ts';
import { traceView } from '../../cli/trace.ts';
import { claimDetail, statsView, treeRows, workDetail as cliWorkDetail } from '../../cli/views.ts';
import { blockingDiagram } from '../../lib/console/views/blocking.ts';
import { commitsPage } from '../../lib/console/views/commits.ts';
import { explorerView, parseExplorerQuery } from '../../lib/console/views/explorer.ts';
import { fairnessView } from '../../lib/console/views/fairness.ts';
import { graphView } from '../../lib/console/views/graph.ts';
import { overviewView } from '../../lib/console/views/overview.ts';
import { receiptView } from '../../lib/console/views/receipt.ts';
import { workStatus } from '../../lib/console/views/status.ts';
import { currentSettings, readyBacklog, whatIf } from '../../lib/console/views/whatif.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';

export function poolsOf(p: Projection): string[] {
  const names = new Set<string>(Object.keys((p.state.policy?.policy.pools ?? {}) as Record<string, unknown>));
  for (const w of p.works()) names.add(w.pool);
  names.add('default');
  return [...names].sort();
}

/** Runs `view`; a ProtocolError is an answer (its code), anything else propagates. */
export function answer<T>(view: () => T): T | string {
  try {
    return view();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

/** Runs every view over `p` at decision time `at` (at most `sample` Work, Claims, requests, graphs each). */
export function exerciseViews(p: Projection, at: number, sample = 6, options: { whatIf?: boolean } = {}): void {
  const works = [...p.works()].slice(0, sample);
  const claims = [...p.state.claims.keys()].slice(0, sample);
  const requests = [...p.state.requests.keys()].slice(0, sample);
  answer(() => statsView(p, at));
  answer(() => treeRows(p, { offset: 0, limit: 256 }));
  answer(() => overviewView(p, at));
  answer(() => explorerView(p, at, parseExplorerQuery({})));
  answer(() => commitsPage(p, 1));
  answer(() => currentSettings(p));
  answer(() => fairnessView(p, at, null, 50));
  for (const pool of poolsOf(p)) {
    answer(() => explainNext(p, pool, at));
    answer(() => fairnessView(p, at, pool, 50));
    answer(() => readyBacklog(p, pool, at));
    if (options.whatIf !== false) answer(() => whatIf(p, at, { pool, grants: 5, settings: currentSettings(p) }));
  }
  for (const g of [...p.state.graphs.keys()].slice(0, sample)) answer(() => graphView(p, g, at, null));
  for (const w of works) {
    answer(() => explainWork(p, w.pool, w.workId, at));
    answer(() => cliWorkDetail(p, w.workId, at));
    answer(() => workDetail(p, w.workId, at, DOTCOM_HOST));
    answer(() => blockingDiagram(p.state, w, at, workStatus(p.state, w, at)));
  }
  for (const c of claims) {
    answer(() => claimDetail(p, c));
    answer(() => traceView(p, { claimId: c }, 0, 64));
    answer(() => historicalExplanation(p, { claimId: c }));
  }
  for (const r of requests) {
    answer(() => receiptView(p, r, DOTCOM_HOST));
    answer(() => traceView(p, { requestId: r }, 0, 64));
    answer(() => historicalExplanation(p, { requestId: r }));
  }
}
