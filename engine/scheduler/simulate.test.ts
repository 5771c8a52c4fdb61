import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { simulate, type SimulationShare } from './simulate.ts';
import { parseWorkload } from './workload.ts';

const settings = { mode: 'weighted-priority', class_weights: [8, 4, 2, 1, 1], accounting_weights: { '': 1, a: 2, b: 1 } };

const classRows = (shares: SimulationShare[]) => shares.filter((s) => s.level === 'class');
const keyRows = (shares: SimulationShare[]) => shares.filter((s) => s.level === 'key');

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    return isProtocolError(e) ? `${e.code}@${e.path ?? ''}` : 'other';
  }
  return 'accepted';
}

describe('simulate', () => {
  it('all classes backlogged: 16 grants split 8/4/2/1/1', () => {
    const nodes = [1, 2, 3, 4, 5].map((priority) => ({ key: '', priority, count: 100 }));
    const result = simulate(settings, { nodes }, 16);
    expect(classRows(result.shares).map((s) => [s.priority, s.grants])).toEqual([[1, 8], [2, 4], [3, 2], [4, 1], [5, 1]]);
    expect(classRows(result.shares)[0]).toMatchObject({ weight: 8, target_share: 0.5, actual_share: 0.5 });
    expect(result.stopped).toBeNull();
  });

  it('uses accounting weights within a class and stops when the backlog is exhausted', () => {
    const result = simulate(settings, { nodes: [{ key: 'a', priority: 3, count: 4 }, { key: 'b', priority: 3, count: 2 }] }, 10);
    expect(result.grants.map((g) => g.key)).toEqual(['a', 'a', 'b', 'a', 'a', 'b']);
    expect(result.stopped).toBe('no_work');
    expect(keyRows(result.shares).map((s) => [s.key, s.weight, s.grants])).toEqual([['a', 2, 4], ['b', 1, 2]]);
  });

  it('a paused key re-enters clamped (no idle credit); an admitted key joins without catch-up', () => {
    const result = simulate(
      { accounting_weights: { '': 1, a: 1, b: 1, c: 1 } },
      {
        nodes: [{ key: 'a', priority: 3, count: 100 }, { key: 'b', priority: 3, count: 100 }],
        events: [
          { after_grants: 2, pause_key: 'b' },
          { after_grants: 12, resume_key: 'b' },
          { after_grants: 20, admit: { key: 'c', priority: 3, count: 100 } },
        ],
      },
      26,
    );
    const keys = result.grants.map((g) => g.key).join('');
    expect(keys.slice(0, 12)).toBe('ab' + 'a'.repeat(10));
    expect(keys.slice(12, 20)).toBe('abababab');
    expect(keys.slice(20)).toBe('abcabc');
    // c is listed from the start (it was announced by an event), runs count only eligible decisions.
    expect(keyRows(result.shares).map((s) => [s.key, s.grants, s.longest_zero_service])).toEqual([['a', 17, 2], ['b', 7, 2], ['c', 2, 2]]);
  });

  it('a fully paused queue stops with no_eligible_work', () => {
    const result = simulate({}, { nodes: [{ key: 'a', priority: 3, count: 5 }], events: [{ after_grants: 1, pause_key: 'a' }] }, 5);
    expect(result.grants).toHaveLength(1);
    expect(result.stopped).toBe('no_eligible_work');
  });

  it('target share and prefix deviation follow the fluid reference over the eligible set', () => {
    const result = simulate({ accounting_weights: { a: 3, b: 1 } }, { nodes: [{ key: 'a', priority: 3, count: 1000 }, { key: 'b', priority: 3, count: 1000 }] }, 400);
    const [a, b] = keyRows(result.shares);
    expect(a).toMatchObject({ grants: 300, target_share: 0.75, actual_share: 0.75 });
    expect(b).toMatchObject({ grants: 100, target_share: 0.25, actual_share: 0.25 });
    expect(a!.max_prefix_deviation).toBeLessThanOrEqual(1);
    expect(b!.longest_zero_service).toBe(3);
  });

  it('rejects malformed workloads with workload_invalid and a path', () => {
    expect(codeOf(() => simulate(settings, { nodes: [{ key: 'a', priority: 6, count: 1 }] }, 1))).toBe('workload_invalid@workload.nodes[0].priority');
    expect(codeOf(() => parseWorkload({ nodes: [], extra: 1 }))).toBe('workload_invalid@workload.extra');
    expect(codeOf(() => parseWorkload({ nodes: [{ key: 'a', priority: 1 }] }))).toBe('workload_invalid@workload.nodes[0].count');
    expect(codeOf(() => parseWorkload({ nodes: [{ key: 1, priority: 1, count: 1 }] }))).toBe('workload_invalid@workload.nodes[0].key');
    expect(codeOf(() => parseWorkload({ nodes: [], events: [{ after_grants: 1, pause_key: 'a', resume_key: 'a' }] }))).toBe('workload_invalid@workload.events[0]');
    expect(codeOf(() => parseWorkload({ nodes: [], events: [{ pause_key: 'a' }] }))).toBe('workload_invalid@workload.events[0].after_grants');
    expect(codeOf(() => parseWorkload({ events: [] }))).toBe('workload_invalid@workload.nodes');
    expect(codeOf(() => simulate(settings, { nodes: [] }, -1))).toBe('workload_invalid@grants');
  });
});
