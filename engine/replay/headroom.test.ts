/**
 * The operating envelope's level (spec 7.17): it follows the tighter of replay's two bounds, so
 * a queue whose owed lifecycle reserve fills watermark + reserve is not reported `ok` while
 * replay already refuses its next admission (`ledger_limit`).
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { nodes, policyOf, TestQueue } from '../../tests/acceptance/queue.ts';
import { envelopeOf, envelopeView } from './headroom.ts';
import type { BudgetReport } from './ledger-budget.ts';

const report = (bytes: number, reserve: number, W = 1000, Rv = 500): BudgetReport => ({
  bytes, reserve, ledger_bytes: W, recovery_bytes: Rv,
  admission_remaining: Math.max(0, W - bytes), reserve_remaining: Math.max(0, Rv - reserve), closure_remaining: Math.max(0, W + Rv - bytes - reserve),
});

describe('envelope level: the tighter of the watermark and the watermark + reserve bound', () => {
  it('is ok below 80 % of both bounds', () => {
    expect(envelopeOf(report(700, 400))).toMatchObject({ level: 'ok', warning: null, used_fraction: 0.7 });
  });

  it('warns from 80 % of the ledger plus owed reserve against watermark + reserve, with the ledger itself under 80 %', () => {
    expect(envelopeOf(report(700, 500))).toMatchObject({ level: 'near_watermark', warning: 'near_watermark', used_fraction: 0.7 });
    expect(envelopeOf(report(300, 1200))).toMatchObject({ level: 'at_watermark', warning: 'at_watermark' });
  });

  it('keeps the watermark\'s own level when it is the tighter one', () => {
    expect(envelopeOf(report(800, 0))).toMatchObject({ level: 'near_watermark' });
    expect(envelopeOf(report(1000, 0))).toMatchObject({ level: 'at_watermark' });
  });

  it('on a replayed queue: once the owed reserve makes replay refuse a submit, the level is no longer ok', () => {
    const policy = policyOf({ accounting_weights: { a: 1 } });
    const limits = policy.limits as Record<string, number>;
    policy.limits = { ...limits, ledger_bytes: 400_000, recovery_bytes: 60_000 };
    const q = new TestQueue(policy, nodes('seed', 1, 'a'));
    let refused: string | null = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      try {
        q.submit(nodes(`n${i}`, 4, 'a'), { graphId: `g${i}` });
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        expect(e.code).toBe('ledger_limit');
        refused = e.message;
      }
    }
    expect(refused).toMatch(/would exceed watermark \+ reserve/);
    const e = envelopeView(q.state);
    expect(e.bytes / e.ledger_bytes, 'the ledger alone is still under the 80 % mark').toBeLessThan(0.8);
    expect(e.level).not.toBe('ok');
    expect(e.warning).not.toBeNull();
  });
});
