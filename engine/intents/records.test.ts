/**
 * `parseIntentRecord` (engine/intents/records.ts): a staged intent whose input has no canonical
 * version-3 JSON form cannot be fingerprinted, and that is a verdict on the file (`intent_invalid`);
 * a JavaScript exception while fingerprinting is not a verdict and is never turned into one
 * (engine/errors.ts INTERNAL_ERROR: surfaces report it as internal_error).
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { INTENT_SCHEMA, intentFingerprint, parseIntentRecord } from './records.ts';

function body(input: Record<string, unknown>) {
  return {
    schema: INTENT_SCHEMA as typeof INTENT_SCHEMA,
    intent_id: `i_${'0'.repeat(32)}`,
    seq: 1,
    tool: 'work_queue_dispatch_next',
    snapshot_id: 'a'.repeat(64),
    staged_at: 1,
    input,
    scope: null,
  };
}

/** What `parseIntentRecord` throws (undefined when it returns). */
function thrown(value: unknown): unknown {
  try {
    parseIntentRecord(value);
    return undefined;
  } catch (e) {
    return e;
  }
}

describe('parseIntentRecord fingerprinting', () => {
  it('accepts a record whose fingerprint matches its content', () => {
    const record = body({ pool: 'default', max_claims: 1, max_dispatches: 1 });
    expect(parseIntentRecord({ ...record, fingerprint: intentFingerprint(record) })).toMatchObject({ input: { pool: 'default' } });
  });

  it('an input with no canonical JSON form (a fraction, an unpaired surrogate, too deep) is intent_invalid', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 80; i++) deep = { d: deep };
    for (const input of [{ pool: 'default', max_claims: 1.5 }, { pool: 'de\ud800fault' }, { pool: 'default', deep }]) {
      const e = thrown({ ...body(input), fingerprint: 'b'.repeat(64) });
      expect(isProtocolError(e), String(e)).toBe(true);
      expect(e).toMatchObject({ code: 'intent_invalid', message: expect.stringContaining('not a version-3 JSON value') });
    }
  });

  it('a JavaScript exception while fingerprinting is rethrown as it is, never made intent_invalid', () => {
    // A member whose read throws: no JSON file holds one, so this reaches fingerprinting only as a bug would.
    const nested = { get boom(): never { throw new TypeError('member read failed'); } };
    const e = thrown({ ...body({ pool: 'default', nested }), fingerprint: 'b'.repeat(64) });
    expect(isProtocolError(e)).toBe(false);
    expect(e).toBeInstanceOf(TypeError);
    expect((e as Error).message).toBe('member read failed');
  });
});
