/**
 * record-texts.ts: a byte input's records decoded a window at a time are the texts the
 * record-by-record decoding gives, across window edges, for records longer than a window and
 * in windows that are not ASCII; an invalid sequence is still named at its own line, and replay
 * through the windows gives the projection and errors it gives on text.
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { frameLedger } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { decodeRecord, verifiedCommit, verifyRecord } from './record.ts';
import { RecordTexts, WINDOW_BYTES } from './record-texts.ts';
import { replayLedger, summarize } from './index.ts';

const encoder = new TextEncoder();

function textsOf(bytes: Uint8Array): { windowed: string[]; single: string[] } {
  const frames = frameLedger(bytes);
  const texts = new RecordTexts(bytes, frames);
  return {
    windowed: frames.map((f, n) => texts.text(n, f.line)),
    single: frames.map((f) => decodeRecord(bytes, f.start, f.end, f.line)),
  };
}

function errorOf(run: () => unknown): unknown {
  try {
    run();
    return null;
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, line: e.line };
  }
}

describe('record texts decoded a window at a time', () => {
  const { text } = generateLedger(3 * WINDOW_BYTES, 3);
  const bytes = Buffer.from(text);

  it('are the record-by-record decodings across several windows', () => {
    const { windowed, single } = textsOf(bytes);
    expect(bytes.length).toBeGreaterThan(2 * WINDOW_BYTES);
    expect(windowed).toEqual(single);
  });

  it('keep a record longer than a window whole, and the records around it', () => {
    const long = `{"x":"${'a'.repeat(WINDOW_BYTES + 10)}"}`;
    const input = Buffer.from(`{"a":1}\n${long}\n{"b":2}\n`);
    expect(textsOf(input).windowed).toEqual(['{"a":1}', long, '{"b":2}']);
  });

  it('decode a window that is not ASCII record by record, and name an invalid sequence at its own line', () => {
    const lines = text.split('\n').slice(0, 40);
    const accented = lines.map((l, i) => (i === 17 ? l.replace('"owner/repo"', '"owner/répo"') : l)).join('\n') + '\n';
    const { windowed, single } = textsOf(Buffer.from(accented));
    expect(windowed).toEqual(single);
    expect(windowed[17]).toContain('répo');

    const spoiled = Buffer.from(accented);
    const at = spoiled.indexOf('r\u00e9po'.normalize(), 0, 'utf8') + 1;
    spoiled[at] = 0xff; // a lone byte that is never UTF-8
    const frames = frameLedger(spoiled);
    const texts = new RecordTexts(spoiled, frames);
    for (let n = 0; n < 17; n++) texts.text(n, frames[n]!.line);
    expect(errorOf(() => texts.text(17, frames[17]!.line))).toEqual({ code: 'invalid_unicode', line: 18 });
  });

  it('replay over the windows gives the projection replay of the same ledger as text gives', () => {
    expect(summarize(replayLedger(bytes))).toEqual(summarize(replayLedger(text)));
  });

  it('replay names an invalid record in a later window at its line, as on text', () => {
    const lines = text.split('\n');
    const bad = Math.floor(lines.length * 0.8);
    lines[bad] = lines[bad]!.replace('"version":3', '"version":4');
    const spoiled = lines.join('\n');
    const onBytes = errorOf(() => replayLedger(encoder.encode(spoiled)));
    expect(onBytes).toEqual({ code: 'unsupported_protocol', line: bad + 1 });
    expect(onBytes).toEqual(errorOf(() => replayLedger(spoiled)));
  });

  describe('a verified record read from its bytes (the repeated parameters left out as they are copied)', () => {
    /** Every record's value read from its bytes, against the value read from its text and JSON.parse of it. */
    function readBoth(input: Buffer, order: number[]): void {
      const frames = frameLedger(input);
      const texts = new RecordTexts(input, frames);
      let repeated = 0;
      for (const n of order) {
        const f = frames[n]!;
        const verified = verifyRecord(input, f.start, f.end);
        const line = decodeRecord(input, f.start, f.end, f.line);
        if (verified === null) continue;
        if (verified.repeat !== null) repeated++;
        const fromBytes = texts.verifiedCommit(n, f.line, verified.repeat);
        expect(fromBytes).toEqual(verifiedCommit(line, verified.repeat));
        expect(fromBytes).toEqual(JSON.parse(line));
      }
      expect(repeated).toBeGreaterThan(0);
    }

    it('is the value read from its text, across windows, in ledger order', () => {
      readBoth(bytes, frameLedger(bytes).map((_, n) => n));
    });

    it('is the value read from its text for a record behind the current window and in a window that is not ASCII', () => {
      const lines = text.split('\n').slice(0, 60);
      const accented = Buffer.from(lines.map((l, i) => (i % 7 === 3 ? l.replace('"owner/repo"', '"owner/répo"') : l)).join('\n') + '\n');
      const n = frameLedger(accented).length;
      readBoth(accented, [...Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 1), ...Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0)]);
      const order = frameLedger(bytes).map((_, i) => i);
      readBoth(bytes, [...order.slice(order.length >> 1), ...order.slice(0, order.length >> 1)]);
    });

    it('leaves a record\'s text to be read when asked: a text asked late is the record-by-record decoding', () => {
      const frames = frameLedger(bytes);
      const texts = new RecordTexts(bytes, frames);
      const last = frames.length - 1;
      texts.text(last, frames[last]!.line);
      for (const n of [0, 1, last >> 1, last]) expect(texts.text(n, frames[n]!.line)).toBe(decodeRecord(bytes, frames[n]!.start, frames[n]!.end, frames[n]!.line));
    });
  });
});
