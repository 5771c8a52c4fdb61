/**
 * The console links each Work to its ledger-bound backing Issue (Work page and explorer) and
 * the overview counts Work still without one (issue 12 §4).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { explorerView, parseExplorerQuery } from '../../lib/console/views/explorer.ts';
import { overviewView } from '../../lib/console/views/overview.ts';
import { workDetail } from '../../lib/console/views/work.ts';
import { issueBench, issuesOf, type IssueBench } from './bench.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';

let bench: IssueBench | null = null;
afterEach(async () => {
  await bench?.close();
  bench = null;
});

describe('console: backing Issue links', () => {
  it('Work page and explorer link the bound Issue; the overview counts bound and pending projections', async () => {
    bench = await issueBench([{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {} }]);
    const a = (await bench.projection()).works().next().value!.workId;
    await bench.projector().sync({ workIds: [a] });
    const p = await bench.projection();
    const [issue] = issuesOf(bench);
    const detail = workDetail(p, a, bench.clock.t, DOTCOM_HOST)!;
    expect(detail.backingIssue).toEqual({ repository: 'owner/repo', number: String(issue!.number), url: `https://github.com/owner/repo/issues/${issue!.number}`, comments: 1 });
    const rows = explorerView(p, bench.clock.t, parseExplorerQuery({})).rows;
    expect(rows.find((r) => r.workId === a)!.issue).toEqual({ number: String(issue!.number), url: `https://github.com/owner/repo/issues/${issue!.number}` });
    expect(rows.find((r) => r.workId !== a)!.issue).toBeNull();
    expect(overviewView(p, bench.clock.t).backingIssues).toEqual({ linked: 1, unlinked: 1 });
  });
});
