import { beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../../engine/replay/index.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { DOTCOM_HOST } from '../../github/host.ts';
import { consoleGitHubHost } from '../store.ts';
import { openClaimTargets, runUrl, workTargets } from './admin-targets.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
let projection: Projection;

beforeAll(async () => {
  const store = new MemoryStore('admin-targets');
  await seedDemoDay(new Publisher(store), { now: NOW });
  const runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

describe('admin targets (issue 14 §4)', () => {
  it('lists every open Claim with its full id, Work name, receipt link and GitHub run link when bound', () => {
    const rows = openClaimTargets(projection.state, DOTCOM_HOST);
    const open = [...projection.state.claims.values()].filter((c) => c.state === 'open');
    expect(rows.map((r) => r.claimId).sort()).toEqual(open.map((c) => c.claimId).sort());
    expect(new Set(rows.map((r) => r.claimId)).size).toBe(rows.length);
    for (const r of rows) {
      expect(r.nodeKey).toBe(projection.state.works.get(r.workId)!.nodeKey);
      expect(r.receiptHref).toBe(`/receipts/${encodeURIComponent(r.requestId)}`);
      if (r.runId !== null) expect(r.runUrl).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/actions\/runs\/[1-9][0-9]*$/);
    }
    expect(rows.some((r) => r.runUrl !== null)).toBe(true);
  });

  it('builds run links only from well-formed repository names and run ids', () => {
    expect(runUrl(DOTCOM_HOST, 'acme/fairway-demo', '7001')).toBe('https://github.com/acme/fairway-demo/actions/runs/7001');
    expect(runUrl(DOTCOM_HOST, 'acme/fairway-demo', '0')).toBeNull();
    expect(runUrl(DOTCOM_HOST, 'javascript:alert(1)//x', '1')).toBeNull();
    expect(runUrl(DOTCOM_HOST, 'acme/x/../y', '1')).toBeNull();
    expect(runUrl(DOTCOM_HOST, null, '1')).toBeNull();
  });

  it('links runs on the GitHub Enterprise Server the console\'s store talks to, never on github.com', () => {
    const ghes = consoleGitHubHost({ kind: 'github', github: 'acme/fairway-demo', branch: 'work-queue' }, { FAIRWAY_GITHUB_API_URL: 'https://ghe.example.com/api/v3' });
    expect(ghes).toBe('ghe.example.com');
    expect(runUrl(ghes, 'acme/fairway-demo', '7001')).toBe('https://ghe.example.com/acme/fairway-demo/actions/runs/7001');
    expect(runUrl('ghe.example.com:8443', 'acme/fairway-demo', '7001')).toBe('https://ghe.example.com:8443/acme/fairway-demo/actions/runs/7001');
    const rows = openClaimTargets(projection.state, ghes);
    expect(rows.some((r) => r.runUrl !== null)).toBe(true);
    for (const r of rows) if (r.runId !== null) expect(r.runUrl).toMatch(/^https:\/\/ghe\.example\.com\/[^/]+\/[^/]+\/actions\/runs\/[1-9][0-9]*$/);
  });

  it('builds no run link on a host that could end the authority or change the scheme', () => {
    for (const host of ['', 'evil.example/x', 'user@evil.example', 'evil.example#', 'evil.example?', '//evil.example', 'javascript:alert(1)', '-x', 'a b', 'ghe.example.com:', 'ghe.example.com:123456', '[::1]']) {
      expect(runUrl(host, 'acme/fairway-demo', '7001'), host).toBeNull();
    }
  });

  it('resolves by-id targets to name, state and owner, and flags ids that do not exist', () => {
    const claimed = [...projection.state.works.values()].find((w) => w.state === 'claimed')!;
    const [a, b] = workTargets(projection.state, [claimed.workId, 'no-such-work']);
    expect(a).toEqual({ id: claimed.workId, exists: true, nodeKey: claimed.nodeKey, state: 'claimed', priority: claimed.effectivePriority, owner: claimed.currentClaim });
    expect(b).toEqual({ id: 'no-such-work', exists: false });
  });
});

describe('GET /api/targets', () => {
  it('answers each id’s name, state and owner from the live ledger, and exists:false for an unknown id', async () => {
    const { resetRuntime } = await import('../context.ts');
    const { installConsoleRuntime } = await import('../../../tests/support/console-runtime.ts');
    const { GET } = await import('../../../app/api/targets/route.ts');
    const store = new MemoryStore('admin-targets-route');
    await seedDemoDay(new Publisher(store), { now: NOW });
    installConsoleRuntime(new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store));
    try {
      const work = [...projection.state.works.values()][0]!;
      const res = await GET(new Request(`http://127.0.0.1:3000/api/targets?work_id=${encodeURIComponent(work.workId)}&work_id=nope`));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { targets: unknown[] };
      expect(body.targets).toEqual([
        { id: work.workId, exists: true, nodeKey: work.nodeKey, state: work.state, priority: work.effectivePriority, owner: work.currentClaim },
        { id: 'nope', exists: false },
      ]);
      // An over-long id is answered (it names no Work), never left out; more ids than an action takes are refused.
      const long = 'a'.repeat(300);
      const answered = await GET(new Request(`http://127.0.0.1:3000/api/targets?work_id=${long}&work_id=nope`));
      expect(((await answered.json()) as { targets: unknown[] }).targets).toEqual([{ id: long, exists: false }, { id: 'nope', exists: false }]);
      const many = new URLSearchParams(Array.from({ length: 257 }, (_, i): [string, string] => ['work_id', `w${i}`]));
      expect((await GET(new Request(`http://127.0.0.1:3000/api/targets?${many.toString()}`))).status).toBe(400);
    } finally {
      resetRuntime();
    }
  });
});
