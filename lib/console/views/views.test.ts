import { beforeAll, describe, expect, it } from 'vitest';
import { workId } from '../../../engine/identity/index.ts';
import { replayLedger, type Projection } from '../../../engine/replay/index.ts';
import { seedDemoDay, PROBE_TEXT } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { commitsPage, compareCommits } from './commits.ts';
import { explorerView, parseExplorerQuery, serializeExplorerQuery } from './explorer.ts';
import { fairnessView } from './fairness.ts';
import { graphView } from './graph.ts';
import { mermaidText } from './mermaid.ts';
import { overviewView } from './overview.ts';
import { receiptView } from './receipt.ts';
import { currentSettings, whatIf } from './whatif.ts';
import { workDetail } from './work.ts';
import { DOTCOM_HOST } from '../../github/host.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
let projection: Projection;
let runtime: ConsoleRuntime;
let storeText: () => Promise<string>;

beforeAll(async () => {
  const store = new MemoryStore('views');
  storeText = async () => store.text();
  await seedDemoDay(new Publisher(store), { now: NOW, probe: true });
  runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

describe('overview', () => {
  it('counts Work, lists the paused-grants period and recent requests', () => {
    const v = overviewView(projection, NOW);
    expect(v.summary.works.total).toBe(projection.state.works.size);
    expect(Object.values(v.readiness).reduce((a, b) => a + b, 0)).toBe(v.summary.works.total);
    expect(v.pauses).toHaveLength(1);
    expect(v.pauses[0]).toMatchObject({ control: 'grants_paused', to: expect.any(Number) });
    expect(v.grantsPausedSince).toBeNull();
    expect(v.launches.map((l) => l.state)).toEqual(['launch_uncertain']);
    expect(v.backlog.find((r) => r.key === 'platform' && r.priority === 3)?.ready).toBeGreaterThan(400);
    expect(v.recent[0]!.commitId).toBe(projection.tip);
  });
});

describe('explorer', () => {
  it('filters by fairness key and round-trips its URL', () => {
    const query = parseExplorerQuery(new URLSearchParams('key=security&readiness=ready'));
    const v = explorerView(projection, NOW, query);
    expect(v.total).toBeGreaterThan(0);
    expect(v.total).toBeLessThanOrEqual(10);
    expect(v.rows.every((r) => r.key === 'security' && r.readiness === 'ready')).toBe(true);
    const qs = serializeExplorerQuery(v.query);
    expect(qs).toBe('?readiness=ready&key=security');
    expect(parseExplorerQuery(new URLSearchParams(qs.slice(1)))).toEqual(query);
    expect(serializeExplorerQuery(parseExplorerQuery(new URLSearchParams('key=(default)')))).toBe('?key=%28default%29');
  });

  it('paginates server-side', () => {
    const v = explorerView(projection, NOW, parseExplorerQuery(new URLSearchParams('page=3')));
    expect(v.rows).toHaveLength(50);
    expect(v.page).toBe(3);
  });
});

describe('work detail', () => {
  it('shows the PR-gated review as external_wait with its blocking path', () => {
    const d = workDetail(projection, workId('sdk-migration', 'review-proposals'), NOW, DOTCOM_HOST)!;
    expect(d.status.reason).toBe('external_wait');
    expect(d.status.blockingPath.map((s) => s.kind)).toEqual(['work', 'pull_request']);
    expect(d.blocking!.mermaid).toContain('==>');
    expect(d.blocking!.mermaid).toContain('[/');
  });

  it('links each Claim\'s bound run on the console\'s GitHub host (github.com or a GitHub Enterprise Server)', () => {
    const bound = [...projection.state.claims.values()].find((c) => (projection.dispatch(c.dispatchId)?.run as { run_id?: string } | null)?.run_id !== undefined)!;
    const runId = (projection.dispatch(bound.dispatchId)!.run as { run_id: string }).run_id;
    const repository = projection.repository;
    for (const host of [DOTCOM_HOST, 'ghe.example.com']) {
      const claim = workDetail(projection, bound.workId, NOW, host)!.claims.find((c) => c.claimId === bound.claimId)!;
      expect(claim.runUrl).toBe(`https://${host}/${repository}/actions/runs/${runId}`);
    }
  });

  it('escapes the probe in Mermaid labels', () => {
    const d = workDetail(projection, workId('xss-probe', PROBE_TEXT), NOW, DOTCOM_HOST)!;
    expect(d.payloadJson).toContain(PROBE_TEXT);
    expect(d.blocking?.mermaid ?? '').not.toContain('<img');
    expect(mermaidText(PROBE_TEXT)).toBe('#60;img src=x onerror=alert(1)#62;');
  });
});

describe('graph', () => {
  it('draws every SDK-migration vertex with distinct shapes', () => {
    const g = graphView(projection, 'sdk-migration', NOW, null)!;
    expect(g.total).toBe(8);
    expect(g.drawn).toBe(8);
    expect(g.mermaid).toMatch(/\{\{/);
    expect(g.mermaid).toMatch(/\[\//);
  });

  it('bounds a large graph', () => {
    const g = graphView(projection, 'platform-migration', NOW, null)!;
    expect(g.total).toBe(501); // 500 tasks and one replacement node
    expect(g.drawn).toBe(0); // all independent: summarized per status
    expect(g.summarized).toBe(501);
    expect(g.mermaid).toContain('independent Work');
    const focused = graphView(projection, 'sdk-migration', NOW, null)!;
    expect(focused.summarized).toBe(0);
  });
});

describe('fairness', () => {
  it('gives Platform and Security equal target shares', () => {
    const f = fairnessView(projection, NOW, null, 100)!;
    const p3 = f.classes.find((c) => c.priority === 3)!;
    const platform = p3.keys.find((k) => k.key === 'platform')!;
    const security = p3.keys.find((k) => k.key === 'security')!;
    expect(platform.targetShare).toBe(0.5);
    expect(security.targetShare).toBe(0.5);
    expect(BigInt(platform.stride)).toBe(BigInt(security.stride));
  });

  it('what-if changes the prediction when a weight changes', () => {
    const settings = currentSettings(projection);
    const same = whatIf(projection, NOW, { pool: 'default', grants: 30, settings });
    expect(same.changed).toEqual([]);
    const proposal = { ...settings, accounting_weights: { ...settings.accounting_weights, security: 5 } };
    const changed = whatIf(projection, NOW, { pool: 'default', grants: 30, settings: proposal });
    expect(changed.changed.length).toBeGreaterThan(0);
  });
});

describe('receipts', () => {
  it('derives a dispatch receipt with explanations, reproducibly', () => {
    const a = receiptView(projection, 'dispatch-0935-sdk-shared', DOTCOM_HOST)!;
    expect(a.dispatch!.granted_claims).toBe(3);
    expect(a.explanations).toHaveLength(3);
    expect(a.lifecycle.map((e) => e.kind)).toContain('Release');
    expect(a.sequence).toContain('sequenceDiagram');
    const b = receiptView(projection, 'dispatch-0935-sdk-shared', DOTCOM_HOST);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('reproduces identically from the ledger alone (a restart replays cold)', async () => {
    const before = JSON.stringify(receiptView(projection, 'dispatch-1200', DOTCOM_HOST));
    const restarted = replayLedger(await storeText());
    expect(JSON.stringify(receiptView(restarted, 'dispatch-1200', DOTCOM_HOST))).toBe(before);
  });

  it('describes any request kind', () => {
    const r = receiptView(projection, 'outage-pause-grants', DOTCOM_HOST)!;
    expect(r.operations[0]).toMatchObject({ kind: 'Control' });
  });
});

describe('commits', () => {
  it('pages newest first and compares two prefixes', () => {
    const page = commitsPage(projection, 1);
    expect(page.commits[0]!.id).toBe(projection.tip);
    const pause = projection.request('outage-pause-grants')!.commitId;
    const resume = projection.request('outage-resume-grants')!.commitId;
    const c = compareCommits(projection, runtime.prefix(projection, resume), runtime.prefix(projection, pause));
    expect(c.from.id).toBe(pause);
    expect(c.tally.controls).toBe(1);
    expect(c.before.controls.grants_paused).toBe(true);
    expect(c.after.controls.grants_paused).toBe(false);
  });
});

describe('time travel', () => {
  it('pins a view to a commit and evaluates at its decision time', async () => {
    const pause = projection.request('outage-pause-grants')!.commitId;
    const view = await runtime.view(pause);
    expect(view.projection.tip).toBe(pause);
    expect(view.asOf).toBe(view.at!.at);
    expect(view.projection.state.controls.grants_paused).toBe(true);
  });
});
