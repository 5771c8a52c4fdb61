import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import {
  applyTransition,
  classStride,
  classV,
  clockView,
  keyStride,
  keyV,
  planPick,
  planSibling,
} from './clocks.ts';
import { createFairnessState, tickScale, type FairnessState, type SiblingClock } from '../state/fairness.ts';
import { numericCompare, utf8Compare } from './order.ts';

const POOL = 'default';

function fairness(opts: { mode?: string; classes?: number[]; keys?: Record<string, number> } = {}): FairnessState {
  return createFairnessState(
    { mode: opts.mode ?? 'weighted-priority', class_weights: opts.classes ?? [8, 4, 2, 1, 1], accounting_weights: opts.keys ?? { '': 1 } },
    'e1',
  );
}

/** One admitted decision: plan, then apply. Returns "class/key". */
function grant(f: FairnessState, eligible: Record<number, string[]>): string {
  const t = planPick(f, POOL, new Map(Object.entries(eligible).map(([c, keys]) => [Number(c), keys])));
  if (t === null) throw new Error('no winner');
  applyTransition(f, t);
  return `${t.priority}/${t.fairnessKey}`;
}

function counts(list: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of list) out[x] = (out[x] ?? 0) + 1;
  return out;
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'none';
}

describe('tick scale and strides (spec 7.5)', () => {
  it('Q is the LCM of the weights including the default 1; stride = Q / weight', () => {
    expect(tickScale([8, 4, 2, 1, 1])).toBe(8n);
    expect(tickScale([1, 2, 3, 4])).toBe(12n);
    expect(tickScale([])).toBe(1n);
    expect(tickScale([1000, 999, 998, 997, 996])).toBe(41_251_456_251_000n);
    const f = fairness({ keys: { '': 1, a: 2, b: 3, c: 4 } });
    expect(f.classScale).toBe(8n);
    expect([1, 2, 3, 4, 5].map((p) => classStride(f, p))).toEqual([1n, 2n, 4n, 8n, 8n]);
    expect(f.keyScale).toBe(12n);
    expect(['', 'a', 'b', 'c', 'unregistered'].map((k) => keyStride(f, k))).toEqual([12n, 6n, 4n, 3n, 12n]);
  });

  it('the LCM of large coprime-ish weights is exact (bigint, no rounding)', () => {
    const q = tickScale([1000, 999, 997, 991, 983]);
    for (const w of [1000n, 999n, 997n, 991n, 983n]) expect(q % w).toBe(0n);
    expect(q).toBe(1000n * 999n * 997n * 991n * 983n);
  });

  it('rejects weights outside 1..1000 and malformed class vectors', () => {
    expect(codeOf(() => createFairnessState({ class_weights: [8, 4, 2, 1, 0], accounting_weights: {} }))).toBe('policy_invalid');
    expect(codeOf(() => createFairnessState({ class_weights: [8, 4, 2, 1], accounting_weights: {} }))).toBe('policy_invalid');
    expect(codeOf(() => createFairnessState({ class_weights: [8, 4, 2, 1, 1], accounting_weights: { a: 1001 } }))).toBe('policy_invalid');
    expect(codeOf(() => createFairnessState({ class_weights: [8, 4, 2, 1, 1], accounting_weights: { a: 1.5 } }))).toBe('policy_invalid');
    expect(codeOf(() => createFairnessState({ mode: 'fifo', class_weights: [8, 4, 2, 1, 1], accounting_weights: {} }))).toBe('policy_invalid');
  });
});

describe('pick rule (spec 7.5)', () => {
  it('entering keys clamp to max(previous P, V + stride)', () => {
    const clock: SiblingClock<string> = { v: 10n, pass: new Map([['a', 50n], ['b', 3n]]), active: new Set() };
    const step = planSibling(clock, ['a', 'b', 'c'], () => 4n, utf8Compare)!;
    expect(step.entered).toEqual([['a', 50n], ['b', 14n], ['c', 14n]]);
    expect(step.selected).toBe('b'); // tie 14/14 broken by key order
    expect(step.v).toBe(14n);
    expect(step.pass).toBe(18n);
  });

  it('an empty eligible set returns none without advancing V', () => {
    const f = fairness();
    expect(planPick(f, POOL, new Map())).toBeNull();
    expect(planPick(f, POOL, new Map([[3, []]]))).toBeNull();
    expect(classV(f, POOL)).toBe('0');
  });

  it('passes of continuously eligible keys are never recomputed against the new V', () => {
    const f = fairness({ keys: { '': 1, a: 2, b: 1 } });
    expect(grant(f, { 3: ['a', 'b'] })).toBe('3/a'); // P[a]=1, P[b]=2
    expect(grant(f, { 3: ['a', 'b'] })).toBe('3/a'); // tie at 2: a first
    const t = planPick(f, POOL, new Map([[3, ['a', 'b']]]))!;
    const b = t.keyStep.candidates.find((c) => c.member === 'b')!;
    expect(b.entering).toBe(false);
    expect(b.pass).toBe(2n); // still its first pass, not V + stride = 4
    expect(t.fairnessKey).toBe('b');
  });

  it('a key joining after 1000 single-key grants alternates: no historical catch-up', () => {
    const f = fairness({ keys: { '': 1, a: 1, b: 1 } });
    for (let i = 0; i < 1000; i++) grant(f, { 3: ['a'] });
    const next = Array.from({ length: 8 }, () => grant(f, { 3: ['a', 'b'] }));
    expect(next).toEqual(['3/a', '3/b', '3/a', '3/b', '3/a', '3/b', '3/a', '3/b']);
  });

  it('an idle key returning after 1000 other-key grants gets no accumulated idle credit', () => {
    const f = fairness({ keys: { '': 1, a: 1, b: 1 } });
    grant(f, { 3: ['a', 'b'] });
    grant(f, { 3: ['a', 'b'] });
    for (let i = 0; i < 1000; i++) grant(f, { 3: ['a'] });
    const next = Array.from({ length: 8 }, () => grant(f, { 3: ['a', 'b'] }));
    expect(counts(next)).toEqual({ '3/a': 4, '3/b': 4 });
    const t = planPick(f, POOL, new Map([[3, ['a', 'b']]]))!;
    expect(t.keyStep.candidates.every((c) => c.pass - t.keyStep.vBefore <= c.stride)).toBe(true);
  });

  it('classes tie in numeric order and keys in UTF-8 byte order (not UTF-16 order)', () => {
    const f = fairness({ classes: [1, 1, 1, 1, 1] });
    const all = { 1: [''], 2: [''], 3: [''], 4: [''], 5: [''] };
    expect(Array.from({ length: 5 }, () => grant(f, all))).toEqual(['1/', '2/', '3/', '4/', '5/']);
    const keys = ['\u{10000}', '\uE000', 'é', 'z', 'Z'];
    const g = fairness({ keys: Object.fromEntries(keys.map((k) => [k, 1])) });
    const order = Array.from({ length: 5 }, () => grant(g, { 3: keys }).slice(2));
    expect(order).toEqual(['Z', 'z', 'é', '\uE000', '\u{10000}']);
    expect([...keys].sort()).not.toEqual(order); // UTF-16 order would differ
  });

  it('8:4:2:1:1 over 16 grants with every class eligible gives 8/4/2/1/1', () => {
    const f = fairness();
    const all = { 1: [''], 2: [''], 3: [''], 4: [''], 5: [''] };
    const got = counts(Array.from({ length: 16 }, () => grant(f, all)));
    expect(got).toEqual({ '1/': 8, '2/': 4, '3/': 2, '4/': 1, '5/': 1 });
  });

  it('spec 8.1: 16,000 class grants split 8,000/4,000/2,000/1,000/1,000 and 5:3:2 keys 1,000/600/400 of class 3', () => {
    const f = fairness({ keys: { '': 1, a: 5, b: 3, c: 2 } });
    const all = { 1: [''], 2: [''], 3: ['a', 'b', 'c'], 4: [''], 5: [''] };
    const got = counts(Array.from({ length: 16000 }, () => grant(f, all)));
    expect(got).toEqual({ '1/': 8000, '2/': 4000, '3/a': 1000, '3/b': 600, '3/c': 400, '4/': 1000, '5/': 1000 });
  });

  it('empty classes lend their opportunities to eligible ones', () => {
    const f = fairness();
    const got = counts(Array.from({ length: 30 }, () => grant(f, { 2: [''], 5: [''] })));
    expect(got).toEqual({ '2/': 24, '5/': 6 }); // 4:1
  });

  it('long-run shares of a fixed continuously eligible set stay within n of N·w/W (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 40 }), (weights, rounds) => {
        const keys = weights.map((_, i) => `k${i}`);
        const f = fairness({ keys: { '': 1, ...Object.fromEntries(keys.map((k, i) => [k, weights[i]!])) } });
        const total = weights.reduce((a, b) => a + b, 0);
        const n = total * rounds;
        const got = counts(Array.from({ length: n }, () => grant(f, { 3: keys })));
        keys.forEach((k, i) => {
          const ideal = (n * weights[i]!) / total;
          expect(Math.abs((got[`3/${k}`] ?? 0) - ideal)).toBeLessThanOrEqual(keys.length);
        });
      }),
      { numRuns: 60 },
    );
  });
});

describe('modes (spec 7.1)', () => {
  it('strict-priority serves the least eligible class and never moves the class clock', () => {
    const f = fairness({ mode: 'strict-priority' });
    const trace = Array.from({ length: 6 }, () => grant(f, { 1: [''], 3: [''], 5: [''] }));
    expect(trace).toEqual(Array(6).fill('1/')); // starvation of 3 and 5 is the documented strict trace
    const t = planPick(f, POOL, new Map([[3, ['']], [5, ['']]]))!;
    expect(t.classStep).toBeNull();
    expect(t.priority).toBe(3);
    expect(classV(f, POOL)).toBe('0');
    expect(keyV(f, POOL, 1)).toBe('6');
  });

  it('weighted-priority moves the class clock: 3 grants in class 3 give class V 12 and key V 3 (canonical-prefix q3)', () => {
    const f = fairness();
    for (let i = 0; i < 3; i++) grant(f, { 3: [''] });
    expect(classV(f, POOL)).toBe('12');
    expect(keyV(f, POOL, 3)).toBe('3');
    expect(clockView(f, POOL)).toEqual({
      classes: { v: '12', pass: { '3': '16' }, active: ['3'] },
      keys: { '3': { v: '3', pass: { '': '4' }, active: [''] } },
    });
  });
});

describe('transitions', () => {
  it('planPick does not mutate; applyTransition applies exactly the planned step', () => {
    const f = fairness({ keys: { '': 1, a: 2 } });
    grant(f, { 1: [''], 3: ['a', ''] });
    const before = structuredClone(f);
    const t = planPick(f, POOL, new Map([[1, ['']], [3, ['a', '']]]))!;
    expect(f).toEqual(before);
    applyTransition(f, t);
    expect(f.pools.get(POOL)!.classes.v).toBe(t.classStep!.v);
    expect(f.pools.get(POOL)!.keys.get(t.priority)!.pass.get(t.fairnessKey)).toBe(t.keyStep.pass);
  });

  it('a transition applies once: replaying it is stale; another epoch is rejected', () => {
    const f = fairness();
    const t = planPick(f, POOL, new Map([[3, ['']]]))!;
    applyTransition(f, t);
    expect(codeOf(() => applyTransition(f, t))).toBe('fairness_transition_stale');
    const g = createFairnessState({ class_weights: [8, 4, 2, 1, 1], accounting_weights: { '': 1 } }, 'e2');
    expect(codeOf(() => applyTransition(g, t))).toBe('fairness_epoch_mismatch');
  });

  it('class ordering helper is numeric, key helper is bytewise', () => {
    expect([10, 9, 1].sort(numericCompare)).toEqual([1, 9, 10]);
    expect(utf8Compare('a', 'a')).toBe(0);
    expect(utf8Compare('a', 'ab')).toBe(-1);
    expect(utf8Compare('\u{10000}', '\uFFFF')).toBe(1);
  });
});
