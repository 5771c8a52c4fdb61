import { describe, expect, it } from 'vitest';
import { describeError, internalError, isProtocolError, isRefusedCandidate, ProtocolError, refusedCandidate } from './errors.ts';

describe('ProtocolError across module copies', () => {
  it('is recognised when thrown by another copy of engine/errors.ts (as Next.js server and SSR chunks load it)', async () => {
    // A query string makes Vite load a second, independent instance of the module.
    const specifier = './errors.ts?second-copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import('./errors.ts');
    expect(copy.ProtocolError).not.toBe(ProtocolError);
    const foreign = new copy.ProtocolError('unknown_commit', 'that commit is not in the validated ledger');
    expect(isProtocolError(foreign)).toBe(true);
    expect(foreign instanceof ProtocolError).toBe(true);
    expect(describeError(foreign)).toMatchObject({ code: 'unknown_commit' });
    expect(copy.isProtocolError(new ProtocolError('ledger_invalid', 'x'))).toBe(true);
  });

  it('still refuses what is not a ProtocolError, including look-alikes with a code', () => {
    const lookalike = Object.assign(new Error('no'), { code: 'unknown_commit', name: 'ProtocolError' });
    expect(isProtocolError(lookalike)).toBe(false);
    expect(isProtocolError(new TypeError('boom'))).toBe(false);
    expect(isProtocolError(null)).toBe(false);
    expect(isProtocolError('unknown_commit')).toBe(false);
    expect(describeError(new TypeError('boom'))).toMatchObject({ code: internalError(new TypeError('boom')).code });
  });

  it('keeps instanceof exact for classes derived from it', () => {
    class Narrow extends ProtocolError {}
    expect(new Narrow('a', 'b') instanceof Narrow).toBe(true);
    expect(new ProtocolError('a', 'b') instanceof Narrow).toBe(false);
    expect(new Narrow('a', 'b') instanceof ProtocolError).toBe(true);
  });
});

describe('refusedCandidate', () => {
  it('drops the candidate commit id and line, keeps operation, path and details, and marks the refusal', () => {
    const e = new ProtocolError('unknown_fairness_key', 'not registered', { commit: 'q_x', line: 2, operation: 0, path: 'operations.0.fairness_key' }, { key: 'platform' });
    const r = refusedCandidate(e) as ProtocolError;
    expect(r.toJSON()).toEqual({ code: 'unknown_fairness_key', message: 'not registered', operation: 0, path: 'operations.0.fairness_key', details: { key: 'platform', refused_candidate: true } });
    expect(isRefusedCandidate(r)).toBe(true);
    expect(isRefusedCandidate(e)).toBe(false);
    expect(refusedCandidate(r)).toBe(r);
    const bug = new TypeError('boom');
    expect(refusedCandidate(bug)).toBe(bug);
  });
});
