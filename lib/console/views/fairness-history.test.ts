import { beforeAll, describe, expect, it } from 'vitest';
import { grantPlan } from '../../../engine/receipts/dispatch.ts';
import type { Projection } from '../../../engine/replay/index.ts';
import { seedDemoDay } from '../../demo/day.ts';
import { Publisher } from '../../publisher/publisher.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { fairnessView } from './fairness.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
let projection: Projection;

beforeAll(async () => {
  const store = new MemoryStore('fairness-history');
  await seedDemoDay(new Publisher(store), { now: NOW });
  const runtime = new ConsoleRuntime({ source: { kind: 'ledger', ledger: '-' }, demo: true, mode: 'local', pollMs: 5000, principal: '1001', fixedNow: NOW }, store);
  projection = (await runtime.live()).projection;
});

describe('fairness owed over the decisions where each class/key was eligible (issue 14 §2)', () => {
  it('reconstructs the demo’s P3 key numbers by hand from each grant’s eligible keys (all demo key weights are 1)', () => {
    const f = fairnessView(projection, NOW, 'default', 0)!;
    const p3 = f.classes.find((c) => c.priority === 3)!;
    // By hand: every dispatch_next request's packer run on its prefix; a P3 pick owes 1/|eligible keys| to each eligible key.
    const owed = new Map<string, number>();
    const got = new Map<string, number>();
    const eligible = new Map<string, number>();
    const requests = new Set([...projection.state.claims.values()].map((c) => c.requestId));
    for (const id of requests) {
      for (const t of grantPlan(projection, id).transitions) {
        if (t.priority !== 3) continue;
        for (const k of t.keyStep.active) {
          owed.set(k, (owed.get(k) ?? 0) + 1 / t.keyStep.active.length);
          eligible.set(k, (eligible.get(k) ?? 0) + 1);
        }
        got.set(t.fairnessKey, (got.get(t.fairnessKey) ?? 0) + 1);
      }
    }
    expect(owed.size).toBeGreaterThan(0);
    for (const row of p3.keys) {
      expect(row.owed, row.key).toBeCloseTo(owed.get(row.key) ?? NaN, 9);
      expect(row.eligibleDecisions, row.key).toBe(eligible.get(row.key) ?? 0);
      expect(row.deficit!, row.key).toBeCloseTo((owed.get(row.key) ?? 0) - (got.get(row.key) ?? 0), 9);
    }
    // Within a class, what is owed is exactly what the class received: deficits cancel.
    expect(p3.keys.reduce((n, k) => n + (k.deficit ?? 0), 0)).toBeCloseTo(0, 9);
  });

  it('owes each decision once across classes, and nothing to a class at decisions where it had no eligible Work', () => {
    const f = fairnessView(projection, NOW, 'default', 0)!;
    expect(f.windowDecisions).toBe(f.windowGrants);
    expect(f.classes.reduce((n, c) => n + (c.owed ?? 0), 0)).toBeCloseTo(f.windowDecisions, 9);
    for (const c of f.classes) {
      expect(c.eligibleDecisions).toBeLessThanOrEqual(f.windowDecisions);
      if (c.eligibleDecisions === 0) expect(c.deficit).toBeNull();
      // Owed never exceeds the decisions it was eligible at.
      expect(c.owed ?? 0).toBeLessThanOrEqual(c.eligibleDecisions + 1e-9);
    }
  });
});
