/**
 * A failure that carries its command's report (`ReportedFailure`, e.g. a `launch --next` batch
 * stopped midway): the failure's own code and exit code, the report in `error.details`.
 */
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../engine/errors.ts';
import { EXIT_INTERNAL, EXIT_PROTOCOL, ReportedFailure, reportFailure } from './output.ts';

describe('ReportedFailure', () => {
  it('a stopped batch reports under --json: a protocol error keeps its code (exit 3), a JavaScript exception is internal_error (exit 70), both with the report in error.details', () => {
    const report = { launches: [{ dispatch_id: 'd1', outcome: 'bound' }], failed: ['d2'] };
    for (const [failure, exit, code] of [[new ProtocolError('store_locked', 'locked', {}, { ref: 'x' }), EXIT_PROTOCOL, 'store_locked'], [new TypeError('boom'), EXIT_INTERNAL, 'internal_error']] as const) {
      let out = '';
      expect(reportFailure({ out: (t) => (out += t), err: () => undefined }, new ReportedFailure(failure, report), true)).toBe(exit);
      const json = JSON.parse(out) as { ok: boolean; error: { code: string; details: Record<string, unknown> } };
      expect(json).toMatchObject({ ok: false, error: { code, details: report } });
      if (code === 'store_locked') expect(json.error.details.ref).toBe('x');
    }
  });
});
