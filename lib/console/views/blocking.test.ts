import { beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../../engine/replay/index.ts';
import { eligibility } from '../../../engine/scheduler/eligibility.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { workDetail } from './work.ts';
import { DOTCOM_HOST } from '../../github/host.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
let projection: Projection;

beforeAll(async () => {
  const store = new MemoryStore('blocking');
  await seedDemoDay(new Publisher(store), { now: NOW });
  const runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

function byKey(key: string) {
  return [...projection.state.works.values()].find((w) => w.nodeKey === key)!;
}

describe('blocking paths are complete (issue 14 §3)', () => {
  it('review-proposals lists and draws both blockers: the unmerged PR and propose-docs-changes, each with its own reason', () => {
    const work = byKey('review-proposals');
    const d = workDetail(projection, work.workId, NOW, DOTCOM_HOST)!;
    const branches = d.blocking!.branches;
    const heads = branches.map((b) => ({ kind: b[0]!.kind, text: b[0]!.text, reason: b[0]!.reason }));
    expect(heads).toContainEqual({ kind: 'pull_request', text: expect.stringContaining('acme/upstream-sdk'), reason: 'external_wait' });
    expect(heads).toContainEqual({ kind: 'work', text: 'propose-docs-changes', reason: 'dependency_wait' });
    expect(branches.length).toBeGreaterThanOrEqual(2);
    // The first branch is the engine's one blocking path.
    const verdict = eligibility(projection.state, work, NOW);
    expect(verdict.eligible).toBe(false);
    if (!verdict.eligible) expect(branches[0]!.map((s) => s.reason)).toEqual(verdict.blockingPath.slice(1).map((s) => s.reason));
    // The diagram names every listed step with the same text, on a highlighted edge.
    const texts = new Set(d.blocking!.nodes.map((n) => n.text));
    for (const b of branches) for (const s of b) expect(texts.has(s.text), s.text).toBe(true);
    const hot = (d.blocking!.mermaid.match(/==>/g) ?? []).length;
    expect(hot).toBeGreaterThanOrEqual(branches.length);
    expect(d.blocking!.more).toBe(0);
  });

  it('lists no branch for a Work whose dependencies are all satisfied', () => {
    const ready = [...projection.state.works.values()].find((w) => w.state === 'available' && w.dependsOn.length > 0 && workDetail(projection, w.workId, NOW, DOTCOM_HOST)!.status.readiness === 'ready');
    if (ready !== undefined) expect(workDetail(projection, ready.workId, NOW, DOTCOM_HOST)!.blocking!.branches).toEqual([]);
    const done = [...projection.state.works.values()].find((w) => w.state === 'completed' && w.dependsOn.length > 0)!;
    expect(workDetail(projection, done.workId, NOW, DOTCOM_HOST)!.blocking!.branches).toEqual([]);
  });
});
