/**
 * A worker's verdict on a record travels through shared memory (slots.ts): `passed` writes it,
 * `verifiedOf` reads back exactly what `verifyRecord` answered, measures included; payload sizes
 * that find no room left in `payloads` are not handed over (the fold measures them).
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { verifyRecord } from '../../engine/replay/record.ts';
import { CONTROL_SLOTS, PASSED, passed, verifiedOf } from './slots.ts';

const lines = generateLedger(256 * 1024, 5).text.split('\n').slice(0, -1).map((l) => Buffer.from(l));

function slotsFor(records: number, payloadEntries: number) {
  return {
    repeats: new Int32Array(new SharedArrayBuffer(records * 8)),
    measures: new Int32Array(new SharedArrayBuffer(records * 16)),
    payloads: new Int32Array(new SharedArrayBuffer(payloadEntries * 4)),
    control: new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * 4)),
  };
}

/** What `verifiedOf` reads, with typed arrays as plain arrays. */
function plain(v: ReturnType<typeof verifiedOf>): unknown {
  return { ...v, measures: v.measures === null ? null : { ...v.measures, payloadBytes: v.measures.payloadBytes === null ? null : Array.from(v.measures.payloadBytes) } };
}

describe('slots: a verified record through shared memory', () => {
  it('reads back every record\'s verdict, repeat and measures, payload sizes included', () => {
    const s = slotsFor(lines.length, 1 << 16);
    let withPayloads = 0;
    lines.forEach((bytes, n) => {
      const verified = verifyRecord(bytes, 0, bytes.length);
      if (verified === null) return;
      const slot = passed(verified, s.repeats, s, n);
      expect(slot & PASSED).toBe(PASSED);
      expect(plain(verifiedOf(slot, s.repeats, s, n))).toEqual({ ...verified, measures: verified.measures === null ? null : { ...verified.measures, payloadBytes: verified.measures.payloadBytes === null ? null : Array.from(verified.measures.payloadBytes) } });
      if (verified.measures?.payloadBytes != null) withPayloads++;
    });
    expect(withPayloads).toBeGreaterThan(5);
  });

  it('a record whose payload sizes find no room hands over its other measures, not those', () => {
    const n = lines.findIndex((bytes) => verifyRecord(bytes, 0, bytes.length)?.measures?.payloadBytes != null);
    const verified = verifyRecord(lines[n]!, 0, lines[n]!.length)!;
    const s = slotsFor(lines.length, verified.measures!.payloadBytes!.length - 1);
    const back = verifiedOf(passed(verified, s.repeats, s, n), s.repeats, s, n);
    expect(back.measures).toEqual({ ...verified.measures, payloadBytes: null });
  });
});
