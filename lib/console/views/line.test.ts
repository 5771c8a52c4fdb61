import { beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../../engine/replay/index.ts';
import { planNext } from '../../../engine/scheduler/plan.ts';
import type { Actor } from '../../../engine/schema/index.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { DEMO_PRINCIPAL, DEMO_REPOSITORY } from '../../demo/policy.ts';
import { Seeder } from '../../demo/seeder.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { grantRate, lineView, linePosition, ordinal, positionText } from './line.ts';
import { currentSettings, whatIf } from './whatif.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
const dispatcher: Actor = { role: 'dispatcher', principal: DEMO_PRINCIPAL, repository: DEMO_REPOSITORY, workflow: '.github/workflows/dispatcher.lock.yml', run_id: '5001', run_attempt: 1 };
let publisher: Publisher;
let runtime: ConsoleRuntime;
let projection: Projection;

beforeAll(async () => {
  const store = new MemoryStore('line');
  publisher = new Publisher(store);
  await seedDemoDay(publisher, { now: NOW });
  runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

describe('the line (issue 14 §1)', () => {
  it('predicts the demo pool’s whole ready backlog; its first entry is explain’s next pick', () => {
    const v = lineView(projection, NOW, null)!;
    expect(v.pool).toBe('default');
    expect(v.line.entries.length).toBeGreaterThan(400);
    expect(v.line.truncated).toBe(false);
    const next = planNext(projection.state, 'default', NOW);
    expect(next.selected).toBe(true);
    expect(next.selected && next.work.workId).toBe(v.line.entries[0]!.work_id);
    expect(new Set(v.line.entries.map((e) => e.work_id)).size).toBe(v.line.entries.length);
    expect(lineView(projection, NOW, 'nosuchpool')).toBeNull();
  });

  it('the grants the real dispatcher then publishes are the line’s first entries, in order', async () => {
    const store = new MemoryStore('line-grants');
    const pub = new Publisher(store);
    await seedDemoDay(pub, { now: NOW });
    const rt = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
    const before = (await rt.live()).projection;
    const predicted = lineView(before, NOW, 'default')!.line.entries.slice(0, 6).map((e) => e.work_id);
    const seeder = new Seeder(pub);
    const granted: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await seeder.dispatchNext(`line-check-${i}`, dispatcher, NOW, { pool: 'default', max_claims: 2, max_dispatches: 2, max_bytes: 49152 });
      granted.push(...g.claims.map((c) => c.work_id));
    }
    expect(granted).toEqual(predicted);
  });

  it('a ready Work’s position: ordinal, grants ahead in its class, the Work just before it, and an estimate from the grant rate', () => {
    const entries = lineView(projection, NOW, 'default')!.line.entries;
    const k = 37;
    const target = entries[k - 1]!;
    const p = linePosition(projection, NOW, target.work_id)!;
    expect(p.position).toBe(k);
    expect(p.ahead).toBe(k - 1);
    expect(p.aheadInClass).toBe(entries.slice(0, k - 1).filter((e) => e.priority === target.priority).length);
    expect(p.after).toEqual({ workId: entries[k - 2]!.work_id, nodeKey: entries[k - 2]!.node_key });
    expect(positionText(p)).toBe(`37th; ${p.aheadInClass} grant${p.aheadInClass === 1 ? '' : 's'} ahead in P${target.priority}; next after ${entries[k - 2]!.node_key}`);
    const rate = grantRate(projection, 'default', NOW)!;
    expect(rate.grants).toBeGreaterThan(1);
    expect(p.estimateMs).toBe(Math.round(((k - 1) / rate.perHour) * 3_600_000));
    const first = linePosition(projection, NOW, entries[0]!.work_id)!;
    expect(first.after).toBeNull();
    expect(positionText(first)).toMatch(/^1st; 0 grants ahead in P\d; next to be granted$/);
    // Claimed or completed Work is not in the line.
    const claimed = [...projection.state.works.values()].find((w) => w.state === 'claimed')!;
    expect(linePosition(projection, NOW, claimed.workId)).toBeNull();
    expect(linePosition(projection, NOW, 'no-such-work')).toBeNull();
  });

  it('ordinals', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st', '111th']);
  });
});

describe('what-if baseline (issue 14 §2)', () => {
  it('starts from the live clocks by default: its installed run’s first grant is explain’s next pick and follows the line', () => {
    const settings = currentSettings(projection);
    const r = whatIf(projection, NOW, { pool: 'default', grants: 12, settings });
    expect(r.baseline).toBe('live');
    const next = planNext(projection.state, 'default', NOW);
    const work = next.selected ? next.work : null;
    expect(r.current.grants[0]).toEqual({ priority: work!.effectivePriority, key: work!.fairnessKey });
    const line = lineView(projection, NOW, 'default', 12)!.line.entries;
    expect(r.current.grants).toEqual(line.map((e) => ({ priority: e.priority, key: e.fairness_key })));
    expect(r.changed).toEqual([]);
  });

  it('a weight change runs on the same live clocks (rescaled to its tick scale); the fresh-epoch toggle starts from zero clocks', () => {
    const settings = currentSettings(projection);
    const proposal = { ...settings, accounting_weights: { ...settings.accounting_weights, security: 5 } };
    const live = whatIf(projection, NOW, { pool: 'default', grants: 30, settings: proposal });
    expect(live.rescaled).toBe(true);
    expect(live.changed.length).toBeGreaterThan(0);
    const fresh = whatIf(projection, NOW, { pool: 'default', grants: 30, settings, baseline: 'fresh' });
    expect(fresh.baseline).toBe('fresh');
    // Fresh clocks and live clocks disagree about the installed settings' order here (the demo's clocks are not fresh).
    const liveSame = whatIf(projection, NOW, { pool: 'default', grants: 30, settings });
    expect(fresh.current.grants).not.toEqual(liveSame.current.grants);
  });
});
