/**
 * Exact duplicate commit lines are idempotent wherever they sit; a duplicate id
 * with different content is `conflicting_duplicate_commit` (spec 7.6, 8.2
 * "Compaction"). Every variant runs on string input and on bytes through the
 * real framing, cold and incremental. Store and CLI paths: tests/store/duplicates.ts,
 * tests/integration/duplicates-cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { appendLedger, refreshLedger, replayLedger, summarize } from './index.ts';
import { appendedVariants, baseLedger, duplicateVariants, judge } from '../../tests/support/duplicates.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const ledger = baseLedger();
const expected = summarize(replayLedger(bytes(ledger)));

describe('exact duplicate commit lines (cold replay)', () => {
  for (const v of duplicateVariants(ledger)) {
    const want = v.expect === 'same' ? expected : v.expect;
    it(`bytes: ${v.name} → ${v.expect === 'same' ? 'same projection' : v.expect}`, () => {
      expect(judge(() => replayLedger(bytes(v.text)))).toEqual(want);
    });
    it(`string: ${v.name} → ${v.expect === 'same' ? 'same projection' : v.expect}`, () => {
      expect(judge(() => replayLedger(v.text))).toEqual(want);
    });
  }
});

describe('exact duplicate commit lines in appended bytes (incremental replay)', () => {
  for (const v of appendedVariants(ledger)) {
    const want = v.expect === 'same' ? summarize(replayLedger(bytes(v.equal))) : v.expect;
    it(`appendLedger (bytes): ${v.name}`, () => {
      const p = replayLedger(bytes(v.prefix));
      expect(judge(() => appendLedger(p, bytes(v.appended)))).toEqual(want);
      if (v.expect !== 'same') expect(p.valid).toBe(false); // poisoned: the caller replays cold
    });
    it(`appendLedger (string): ${v.name}`, () => {
      expect(judge(() => appendLedger(replayLedger(v.prefix), v.appended))).toEqual(want);
    });
    it(`refreshLedger (full new bytes extend the validated prefix): ${v.name}`, () => {
      const p = replayLedger(bytes(v.prefix));
      const full = bytes(v.prefix + v.appended);
      expect(p.isPrefixOf(full)).toBe(true);
      expect(judge(() => refreshLedger(p, full))).toEqual(want);
      // The same bytes replayed cold agree.
      expect(judge(() => replayLedger(full))).toEqual(want);
    });
  }

  it('a duplicate of a line released from an earlier appended chunk, two appends later (chunks stay readable)', () => {
    const l = ledger.split('\n').filter(Boolean);
    const p = replayLedger(bytes(`${l[0]}\n`));
    for (let i = 1; i < l.length; i++) appendLedger(p, bytes(`${l[i]}\n${l[i - 1]}\n${l[Math.floor(i / 2)]}\n`));
    expect(summarize(p)).toEqual(expected);
  });
});
