import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { simulate } from './simulate.ts';

const settings = { mode: 'weighted-priority', class_weights: [8, 4, 2, 1, 1], accounting_weights: { '': 1, a: 2, b: 1 } };

describe('simulate', () => {
  it('all classes backlogged: 16 grants split 8/4/2/1/1', () => {
    const nodes = [1, 2, 3, 4, 5].map((priority) => ({ key: '', priority, count: 100 }));
    const result = simulate(settings, { nodes }, 16);
    expect(result.shares.map((s) => [s.priority, s.grants])).toEqual([[1, 8], [2, 4], [3, 2], [4, 1], [5, 1]]);
    expect(result.shares[0]!.share).toBe(0.5);
    expect(result.stopped).toBeNull();
  });

  it('uses accounting weights within a class and stops when the backlog is exhausted', () => {
    const result = simulate(settings, { nodes: [{ key: 'a', priority: 3, count: 4 }, { key: 'b', priority: 3, count: 2 }] }, 10);
    expect(result.grants.map((g) => g.key)).toEqual(['a', 'a', 'b', 'a', 'a', 'b']);
    expect(result.stopped).toBe('no_eligible_work');
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
  });

  it('rejects malformed workloads with simulation_invalid', () => {
    let code = 'none';
    try {
      simulate(settings, { nodes: [{ key: 'a', priority: 6, count: 1 }] }, 1);
    } catch (e) {
      code = isProtocolError(e) ? e.code : 'other';
    }
    expect(code).toBe('simulation_invalid');
  });
});
