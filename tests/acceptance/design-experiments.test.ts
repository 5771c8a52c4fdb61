/**
 * Spec §8.1 "Small design experiments", reproduced with the real scheduler:
 * the simulate core (the packer + planNext + clocks over a synthetic queue),
 * one row through the `fairway simulate` CLI in-process, and the
 * restore/replay/late-binding rows on real ledgers built by the request
 * builders and validated by replay.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFairway } from '../support/cli.ts';
import { candidateCommitId } from '../../engine/identity/index.ts';

import type { ReplayState } from '../../engine/state/state.ts';
import { buildCommit, commitOn } from '../../engine/requests/build.ts';
import { dispatchNextRequest } from '../../engine/requests/operations.ts';
import { clockView } from '../../engine/scheduler/clocks.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import { simulate, type SimulationResult } from '../../engine/scheduler/simulate.ts';
import { dispatcher, nodes, policyOf, TestQueue } from './queue.ts';
import { replayBytes } from '../support/bytes.ts';

const keyGrants = (r: SimulationResult) => Object.fromEntries(r.shares.filter((s) => s.level === 'key').map((s) => [`${s.priority}/${s.key}`, s.grants]));
const classGrants = (r: SimulationResult) => r.shares.filter((s) => s.level === 'class').map((s) => s.grants);
const sequence = (r: SimulationResult, from: number, to: number) => r.grants.slice(from, to).map((g) => g.key).join('');

function capture() {
  let out = '';
  let err = '';
  return { io: { out: (s: string) => (out += s.endsWith('\n') ? s : `${s}\n`), err: (s: string) => (err += s) }, out: () => out, err: () => err };
}

describe('spec §8.1 small design experiments', () => {
  it('three continuously eligible keys, weights 5:3:2, 10,000 grants → 5,000 / 3,000 / 2,000', () => {
    const r = simulate(
      { accounting_weights: { a: 5, b: 3, c: 2 } },
      { nodes: ['a', 'b', 'c'].map((key) => ({ key, priority: 3, count: 10_000 })) },
      10_000,
    );
    expect(r.grants).toHaveLength(10_000);
    expect(keyGrants(r)).toEqual({ '3/a': 5000, '3/b': 3000, '3/c': 2000 });
  });

  it('five continuously eligible classes, weights 8:4:2:1:1, 16,000 grants → 8,000 / 4,000 / 2,000 / 1,000 / 1,000', () => {
    const r = simulate({ class_weights: [8, 4, 2, 1, 1] }, { nodes: [1, 2, 3, 4, 5].map((priority) => ({ key: '', priority, count: 16_000 })) }, 16_000);
    expect(classGrants(r)).toEqual([8000, 4000, 2000, 1000, 1000]);
    expect(r.shares.filter((s) => s.level === 'class').map((s) => s.target_share)).toEqual([0.5, 0.25, 0.125, 0.0625, 0.0625]);
  });

  it('class 3\'s 2,000 grants split among 5:3:2 keys → 1,000 / 600 / 400', () => {
    const workload = {
      nodes: [
        ...[1, 2, 4, 5].map((priority) => ({ key: '', priority, count: 16_000 })),
        ...['a', 'b', 'c'].map((key) => ({ key, priority: 3, count: 16_000 })),
      ],
    };
    const r = simulate({ accounting_weights: { a: 5, b: 3, c: 2 } }, workload, 16_000);
    expect(classGrants(r)).toEqual([8000, 4000, 2000, 1000, 1000]);
    const k = keyGrants(r);
    expect([k['3/a'], k['3/b'], k['3/c']]).toEqual([1000, 600, 400]);
  });

  it('an equal-weight new key joins after 1,000 single-key grants: the next eight grants alternate; no 1,000-grant catch-up', () => {
    const r = simulate(
      { accounting_weights: { a: 1, b: 1 } },
      { nodes: [{ key: 'a', priority: 3, count: 5000 }], events: [{ after_grants: 1000, admit: { key: 'b', priority: 3, count: 5000 } }] },
      2000,
    );
    expect(sequence(r, 0, 1000)).toBe('a'.repeat(1000));
    expect(sequence(r, 1000, 1008)).toBe('abababab');
    // From the join on, b gets its fair half, not the 1,000 grants a had before it arrived.
    const b = r.grants.slice(1000).filter((g) => g.key === 'b').length;
    expect(b).toBe(500);
  });

  it('an equal-weight idle key returns after 1,000 other-key grants: the next eight grants alternate; no accumulated idle credit', () => {
    const r = simulate(
      { accounting_weights: { a: 1, b: 1 } },
      {
        nodes: [{ key: 'a', priority: 3, count: 5000 }, { key: 'b', priority: 3, count: 5000 }],
        events: [{ after_grants: 2, pause_key: 'b' }, { after_grants: 1002, resume_key: 'b' }],
      },
      1100,
    );
    expect(sequence(r, 0, 2)).toBe('ab');
    expect(sequence(r, 2, 1002)).toBe('a'.repeat(1000));
    expect(sequence(r, 1002, 1010)).toBe('abababab');
    const b = r.shares.find((s) => s.key === 'b')!;
    expect(b.longest_zero_service).toBe(1); // the idle stretch does not count as eligible-but-unserved
  });

  it('restore clock, passes and active set after 17 grants: the next 100 selections are identical (ledger replayed cold vs the live state)', () => {
    const policy = policyOf({ concurrency: 4096, accounting_weights: { a: 5, b: 3, c: 2 } });
    const q = new TestQueue(policy, [...nodes('a', 60, 'a'), ...nodes('b', 60, 'b'), ...nodes('c', 60, 'c')]);
    q.submit([...nodes('p1', 40, '', 1), ...nodes('p5', 40, 'a', 5)]);
    const before = q.grants(17);
    expect(before).toHaveLength(17);

    const restored = replayBytes(q.text()).state; // the serialized form is the ledger itself
    expect(clockView(restored.fairness, 'default')).toEqual(clockView(q.state.fairness, 'default'));

    const next = (state: ReplayState, i: number, at: number): { line: string; keys: string[]; reason: string } => {
      const id = `after-restore-${i}`;
      const built = dispatchNextRequest(state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: id, commitId: candidateCommitId(state.tip, id) }, at);
      const line = commitOn(state, buildCommit(state, { id, kind: built.kind, parameters: built.parameters, actor: dispatcher, at, operations: built.operations }));
      return { line, keys: built.plan.claims.map((c) => state.works.get(c.work_id)!.nodeKey), reason: built.plan.explanations[0]!.reason };
    };
    const live: string[] = [];
    const cold: string[] = [];
    for (let i = 0; i < 100; i++) {
      const at = q.tick();
      const a = next(q.state, i, at);
      const b = next(restored, i, at);
      expect(b.line).toBe(a.line); // byte-identical commits: same Claims, ids, order
      live.push(...a.keys);
      cold.push(...b.keys);
    }
    expect(cold).toEqual(live);
    expect(live).toHaveLength(100);
    expect(new Set(live.map((k) => k.split('-')[0])).size).toBeGreaterThan(2); // classes and keys interleave
  });

  it('equal grant counts with job durations 60:1 → resource-time split 98.36% / 1.64%', () => {
    const r = simulate({ accounting_weights: { long: 1, short: 1 } }, { nodes: [{ key: 'long', priority: 3, count: 1000 }, { key: 'short', priority: 3, count: 1000 }] }, 1000);
    const k = keyGrants(r);
    expect(k['3/long']).toBe(k['3/short']);
    const time = { long: k['3/long']! * 60, short: k['3/short']! * 1 };
    expect(((100 * time.long) / (time.long + time.short)).toFixed(2)).toBe('98.36');
    expect(((100 * time.short) / (time.long + time.short)).toFixed(2)).toBe('1.64');
  });

  it('causal replay with client timestamps out of order: first-committed A precedes B; backdating does not overtake', () => {
    const q = new TestQueue(policyOf(), [{ node_key: 'A', payload: { task: 'A' }, enqueued: 9_000_000_000_000 }]);
    q.submit([{ node_key: 'B', payload: { task: 'B' }, enqueued: 1 }]);
    const lines = q.w.lines;
    // Physical order B's record before A's: the causal chain decides, not the file or the timestamps.
    const shuffled = [lines[1]!, lines[0]!].join('');
    const replayed = replayBytes(shuffled).state;
    const plan = planNext(replayed, 'default', q.t);
    expect(plan.selected && plan.work.nodeKey).toBe('A');
    expect(q.grants(2)).toEqual(['A', 'B']);
  });

  it('snapshot predicts A, another request claims A, then this request grants B with B\'s own stored plan', () => {
    const q = new TestQueue(policyOf(), [{ node_key: 'A', payload: { plan: 'do A' } }, { node_key: 'B', payload: { plan: 'do B' } }]);
    const snapshot = replayBytes(q.text()).state;
    const predicted = planNext(snapshot, 'default', q.t);
    expect(predicted.selected && predicted.work.nodeKey).toBe('A');
    expect(q.keys(q.grant())).toEqual(['A']); // another request wins A
    const mine = q.grant();
    expect(q.keys(mine)).toEqual(['B']);
    const member = (mine.groups[0]!.assignment.claims as Array<{ work: unknown; work_id: string }>)[0]!;
    expect(member.work).toEqual({ plan: 'do B' });
    expect(member.work_id).toBe(q.workId('B'));
  });

  it('reorder physical commit records and add an exact duplicate: same projection, request results and unit charges', () => {
    const q = new TestQueue(policyOf({ accounting_weights: { a: 2, b: 1 } }), [...nodes('a', 10, 'a'), ...nodes('b', 10, 'b')]);
    q.grants(6);
    const lines = [...q.w.lines];
    const reordered = [lines[0]!, ...lines.slice(1).reverse(), lines[3]!].join('');
    const a = replayBytes(q.text()).state;
    const b = replayBytes(reordered).state;
    expect(b.tip).toBe(a.tip);
    expect(clockView(b.fairness, 'default')).toEqual(clockView(a.fairness, 'default'));
    expect([...b.outstandingByKey]).toEqual([...a.outstandingByKey]);
    expect([...b.requests.values()].map((r) => [r.requestId, r.claimIds])).toEqual([...a.requests.values()].map((r) => [r.requestId, r.claimIds]));
    const na = planNext(a, 'default', q.t);
    const nb = planNext(b, 'default', q.t);
    expect(nb.explanation).toEqual(na.explanation);
  });

  it('via `fairway simulate --json` (in-process): 5:3:2 over 10,000 grants → 5,000 / 3,000 / 2,000', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairway-sim-'));
    const settings = join(dir, 'settings.json');
    const workload = join(dir, 'workload.json');
    writeFileSync(settings, JSON.stringify({ accounting_weights: { a: 5, b: 3, c: 2 } }));
    writeFileSync(workload, JSON.stringify({ nodes: ['a', 'b', 'c'].map((key) => ({ key, priority: 3, count: 10_000 })) }));
    const c = capture();
    expect(await runFairway(['simulate', '--settings', settings, '--workload', workload, '--grants', '10000', '--json'], c.io)).toBe(0);
    const out = JSON.parse(c.out());
    expect(out.ok).toBe(true);
    expect(out.grants).toHaveLength(10_000);
    expect(out.grants[0]).toEqual({ priority: 3, key: 'a' });
    const keys = out.shares.filter((s: { level: string }) => s.level === 'key');
    expect(keys.map((s: { key: string; grants: number; weight: number; target_share: number }) => [s.key, s.weight, s.grants, s.target_share])).toEqual([
      ['a', 5, 5000, 0.5],
      ['b', 3, 3000, 0.3],
      ['c', 2, 2000, 0.2],
    ]);
  });
});
