import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classV, keyV } from '../scheduler/clocks.ts';
import { planNext } from '../scheduler/plan.ts';
import { summarize, type Projection } from './index.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { appendBytes, replayBytes } from '../../tests/support/bytes.ts';

const fixtures = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const generated = new URL('../../../shared/reference/gh-aw-generated/', import.meta.url);
const haveReference = existsSync(fixtures) && existsSync(generated);

interface PrefixExpectation {
  tip: string;
  policy_epoch: string;
  claims: number;
  native_reservations: number;
  class_v: string;
  key_v: string;
  next_node: string;
  reason: string;
  works: Record<string, { state: string; barrier: string }>;
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

function prefixView(p: Projection): PrefixExpectation {
  const { state } = p;
  const works: PrefixExpectation['works'] = {};
  for (const w of p.works()) works[w.nodeKey] = { state: w.state, barrier: w.barrier };
  const at = state.commits[state.commits.length - 1]!.at;
  const plan = planNext(state, 'default', at);
  let native = 0;
  for (const n of state.outstandingNative.values()) native += n;
  return {
    tip: p.tip!,
    policy_epoch: p.policyEpoch!,
    claims: state.claims.size,
    native_reservations: native,
    class_v: classV(state.fairness, 'default'),
    key_v: keyV(state.fairness, 'default', 3),
    next_node: plan.selected ? plan.work.nodeKey : '',
    reason: plan.selected ? 'selected' : plan.reason,
    works,
  };
}

describe.skipIf(referenceSkip(haveReference))('reference conformance: canonical-prefix.json (../shared/reference absent: skipped)', () => {
  const fixture = haveReference ? JSON.parse(readFileSync(new URL('canonical-prefix.json', fixtures), 'utf8')) : null;
  const all = haveReference ? lines(fixture.canonical) : [];

  it('matches the expected projection at every causal prefix (cold replay)', () => {
    expect(fixture.prefixes).toHaveLength(all.length);
    fixture.prefixes.forEach((expected: PrefixExpectation, i: number) => {
      const p = replayBytes(all.slice(0, i + 1).join('\n') + '\n');
      expect(prefixView(p), `prefix ${expected.tip}`).toEqual(expected);
    });
  });

  it('cold and incremental replay agree at every prefix', () => {
    const incremental = replayBytes(all[0] + '\n');
    for (let i = 1; i < all.length; i++) {
      appendBytes(incremental, all[i] + '\n');
      const cold = replayBytes(all.slice(0, i + 1).join('\n') + '\n');
      expect(summarize(incremental)).toEqual(summarize(cold));
      expect(prefixView(incremental)).toEqual(prefixView(cold));
    }
  });

  it('property: any reordering and duplication of complete lines gives the same projection', () => {
    const expected = summarize(replayBytes(fixture.canonical));
    fc.assert(
      fc.property(
        fc.shuffledSubarray(all.map((_, i) => i), { minLength: all.length, maxLength: all.length }),
        fc.array(fc.nat({ max: all.length - 1 }), { maxLength: 6 }),
        (order, dupes) => {
          const shuffled = [...order, ...dupes].map((i) => all[i]!);
          expect(summarize(replayBytes(shuffled.join('\n') + '\n'))).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe.skipIf(referenceSkip(haveReference))('reference-written ledgers (../shared/reference absent: skipped)', () => {
  const cases = [
    ['ledger-1m.jsonl', 572, 'q_5d976b8aeff34268d07cda831c90808a315b07f346bb46875fd5e51b407a0b73'],
    ['ledger-16m.jsonl', 8342, 'q_796a9b38ddef8312f33ea5a870965858ff40e1dd23816392e7101fcebe9784f2'],
  ] as const;
  for (const [name, commits, tip] of cases) {
    it(`${name} verifies, re-derives every Claim and reaches the published tip`, () => {
      const p = replayBytes(readFileSync(new URL(name, generated)));
      expect(p.tip).toBe(tip);
      expect(p.commitCount).toBe(commits);
      const summary = JSON.parse(readFileSync(new URL(name.replace('.jsonl', '.summary.json'), generated), 'utf8'));
      expect(p.state.claims.size).toBe(summary.operationKinds.Claim);
      expect(p.state.works.size).toBe(summary.operationKinds.Work);
      // (The summary's liveWorks is the generator's own bookkeeping, not a protocol fact.)
      const claims = [...p.state.claims.values()];
      expect(claims.filter((c) => c.state === 'completed')).toHaveLength(summary.operationKinds.Completion);
      expect(claims.filter((c) => c.state === 'cancelled')).toHaveLength(summary.operationKinds.ClaimCancellation);
      const works = [...p.works()];
      expect(works.filter((w) => w.barrier === 'verified')).toHaveLength(summary.operationKinds.Result);
      expect(works.filter((w) => w.barrier === 'failed')).toHaveLength(summary.operationKinds.DeliveryFailure);
      expect(works.filter((w) => w.state === 'cancelled')).toHaveLength(summary.operationKinds.WorkCancellation ?? 0);
      expect([...p.state.dispatches.values()].filter((d) => d.released)).toHaveLength(summary.operationKinds.Release);
    });
  }

  it('incremental replay of ledger-1m agrees with cold replay at sampled prefixes', () => {
    const all = lines(readFileSync(new URL('ledger-1m.jsonl', generated), 'utf8'));
    const incremental = replayBytes(all.slice(0, 1).join('\n') + '\n');
    for (let i = 1; i < all.length; i++) {
      appendBytes(incremental, all[i] + '\n');
      if (i % 97 === 0 || i === all.length - 1) {
        expect(summarize(incremental)).toEqual(summarize(replayBytes(all.slice(0, i + 1).join('\n') + '\n')));
      }
    }
  });
});
