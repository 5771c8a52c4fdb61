/**
 * The nesting limit counts from a record's root on the replay path (contract canonical_json
 * nesting 64; spec 7.17): a canonical record one level too deep is `resource_limit`
 * (`details.limit: nesting`) however it is spelled, as the strict parser answers for a
 * non-canonical spelling. Bytes through the real framing.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonValue } from '../../engine/json.ts';
import { bootstrapRequest } from '../../engine/requests/operations.ts';
import { LedgerWriter, defaultPolicy } from '../../engine/requests/writer.ts';
import { replayBytes } from '../support/bytes.ts';

const producer = { role: 'producer' as const, principal: '1001', repository: 'owner/repo' };

function nested(levels: number): JsonValue {
  let v: JsonValue = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/** The genesis ledger whose Work payload holds `levels` nested arrays, or null when the writer refuses it. */
function genesis(levels: number): string | null {
  const w = new LedgerWriter();
  try {
    w.publish('genesis', producer, 1000, bootstrapRequest(defaultPolicy(producer), 'e1', [{ node_key: 'a', payload: { deep: nested(levels) } }], { graphId: 'g', at: 1000 }));
  } catch (e) {
    if (isProtocolError(e)) return null;
    throw e;
  }
  return w.text();
}

describe('record nesting on the replay path', () => {
  it('a canonical record one level past the limit is resource_limit (nesting), not another verdict', () => {
    let deepest = 1;
    while (genesis(deepest + 1) !== null) deepest += 1;
    const valid = genesis(deepest)!;
    expect(replayBytes(valid).state.works.size).toBe(1);
    const tooDeep = valid.replaceAll(`"deep":${'['.repeat(deepest)}1`, `"deep":${'['.repeat(deepest + 1)}1`).replaceAll(`1${']'.repeat(deepest)}`, `1${']'.repeat(deepest + 1)}`);
    expect(tooDeep).not.toBe(valid);
    let verdict: unknown = 'accepted';
    try {
      replayBytes(tooDeep);
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      verdict = { code: e.code, limit: e.details?.limit };
    }
    expect(verdict).toEqual({ code: 'resource_limit', limit: 'nesting' });
  });
});
