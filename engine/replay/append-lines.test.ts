/**
 * Incremental replay (`appendLedger`) names every error's line counted from the start of the
 * ledger, as a cold replay of the whole ledger does: framing errors (truncated, blank, CR-ended
 * records) and invalid UTF-8 included, which are found within the appended bytes. A framing
 * error changes nothing: the projection stays valid and extends as if the bad append had not
 * been offered.
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { isProtocolError } from '../errors.ts';
import { appendLedger, replayLedger } from './index.ts';

const { text } = generateLedger(64 * 1024, 5);
const lines = text.split('\n').slice(0, -1).map((l) => `${l}\n`);
const cut = lines.length - 3;
const prefix = Buffer.from(lines.slice(0, cut).join(''));
const rest = lines.slice(cut);

function errorOf(run: () => unknown): { code: string; line: number | undefined } {
  try {
    run();
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, line: e.line };
  }
  throw new Error('expected a protocol error');
}

/** Bytes of the record after the prefix with one byte made invalid UTF-8 (0xff never occurs in UTF-8). */
function spoiledUtf8(): Buffer {
  const bytes = Buffer.from(rest[1]!);
  bytes[Math.floor(bytes.length / 2)] = 0xff;
  return Buffer.concat([Buffer.from(rest[0]!), bytes]);
}

const BAD_APPENDS: Array<[string, () => Buffer, string, number]> = [
  ['a truncated record (no LF)', () => Buffer.from(rest[0]! + rest[1]!.slice(0, -1)), 'truncated_record', cut + 2],
  ['a blank record', () => Buffer.from(`${rest[0]!}\n`), 'blank_record', cut + 2],
  ['a CR-ended record', () => Buffer.from(rest[0]! + rest[1]!.replace(/\n$/, '\r\n')), 'crlf_record', cut + 2],
  ['invalid UTF-8 in a record', spoiledUtf8, 'invalid_unicode', cut + 2],
];

describe('appendLedger names lines from the start of the ledger', () => {
  for (const [name, bytes, code, line] of BAD_APPENDS) {
    it(`${name}: ${code} at the line a cold replay of the whole ledger names`, () => {
      const cold = errorOf(() => replayLedger(Buffer.concat([prefix, bytes()])));
      expect(cold).toEqual({ code, line });
      const projection = replayLedger(prefix);
      expect(errorOf(() => appendLedger(projection, bytes()))).toEqual(cold);
    });
  }

  it('a framing error leaves the projection valid, unchanged and extensible', () => {
    const projection = replayLedger(prefix);
    const before = { tip: projection.tip, commits: projection.commitCount, length: projection.validatedLength };
    expect(errorOf(() => appendLedger(projection, Buffer.from(rest[0]!.slice(0, -1)))).code).toBe('truncated_record');
    expect(projection.valid).toBe(true);
    expect({ tip: projection.tip, commits: projection.commitCount, length: projection.validatedLength }).toEqual(before);
    appendLedger(projection, Buffer.from(rest.join('')));
    const whole = replayLedger(Buffer.from(text));
    expect(projection.tip).toBe(whole.tip);
    expect(projection.commitText(projection.tip!)).toBe(whole.commitText(whole.tip!));
  });

  it('an error past framing (invalid UTF-8) poisons the projection', () => {
    const projection = replayLedger(prefix);
    errorOf(() => appendLedger(projection, spoiledUtf8()));
    expect(projection.valid).toBe(false);
  });
});
