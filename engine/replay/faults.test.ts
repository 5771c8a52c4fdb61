/**
 * Replay never turns a JavaScript exception into a protocol verdict (issue 10 §1): a
 * ProtocolError is the verdict on the ledger; any other exception raised while replaying is
 * a bug and propagates unchanged (surfaces report it once as `internal_error`).
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { appendLedger, replayLedger } from './index.ts';
import { baseLedger } from '../../tests/support/duplicates.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
// 30 copies of a real ledger: > 1000 lines, so the progress callback runs inside the fold.
const ledger = bytes(baseLedger().repeat(30));

describe('replay and non-protocol exceptions', () => {
  it('a TypeError raised inside the fold propagates as that TypeError, not as ledger_invalid', () => {
    let thrown: unknown = null;
    try {
      replayLedger(ledger, () => {
        throw new TypeError('injected fault');
      });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect(isProtocolError(thrown)).toBe(false);
    expect((thrown as Error).message).toBe('injected fault');
  });

  it('the same ledger without the fault replays (control), and a poisoned projection refuses further appends', () => {
    const p = replayLedger(ledger);
    expect(p.commitCount).toBe(baseLedger().split('\n').filter(Boolean).length);
    expect(() => appendLedger(p, bytes('{"version":3}\n'))).toThrow(expect.objectContaining({ code: 'schema_invalid' }) as Error);
    expect(p.valid).toBe(false);
    expect(() => appendLedger(p, bytes(baseLedger()))).toThrow(expect.objectContaining({ code: 'projection_invalid' }) as Error);
  });
});
