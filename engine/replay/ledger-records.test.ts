/**
 * The records behind a projection (ledger-records.ts) are kept by the commit's position in the
 * replay state: every commit's text reads back as its line, its successor is the next commit on
 * the chain, on the byte path and the text path, through appends, and through a fork (which
 * reads its parent's records and keeps its own from the parent).
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { appendLedger, replayLedger } from './index.ts';
import type { Projection } from './projection.ts';
import { LedgerRecords } from './ledger-records.ts';
import { createState } from '../state/state.ts';

const { text } = generateLedger(48 * 1024, 3);
const lines = text.split('\n').slice(0, -1);
const idOf = (line: string): string => (JSON.parse(line) as { id: string }).id;
const ids = lines.map(idOf);
const cut = lines.length - 4;
const bytesOf = (from: number, to: number): Buffer => Buffer.from(lines.slice(from, to).map((l) => `${l}\n`).join(''));

/** Every commit of `projection` from `from` to `to` reads back as its line, followed by the next. */
function expectRecords(projection: Projection, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    expect(projection.commitText(ids[i]!)).toBe(lines[i]);
    expect(projection.successorOf(ids[i]!)).toBe(i + 1 < to ? ids[i + 1] : undefined);
  }
}

describe('LedgerRecords (records by position in the replay state)', () => {
  it('reads every record back from bytes, with its successor, and nothing for an unknown commit', () => {
    const projection = replayLedger(bytesOf(0, lines.length));
    expectRecords(projection, 0, lines.length);
    expect(projection.commitText('q_unknown')).toBeUndefined();
    expect(projection.successorOf('q_unknown')).toBeUndefined();
  });

  it('reads every record back from text and from bytes appended later', () => {
    const projection = replayLedger(`${lines.slice(0, cut).join('\n')}\n`);
    expectRecords(projection, 0, cut);
    appendLedger(projection, bytesOf(cut, lines.length));
    expectRecords(projection, 0, lines.length);
  });

  it('a fork reads its parent\'s records and its own; the parent does not see the fork\'s', () => {
    const parent = replayLedger(bytesOf(0, cut));
    const fork = parent.fork();
    appendLedger(fork, bytesOf(cut, lines.length));
    expectRecords(fork, 0, lines.length);
    expectRecords(parent, 0, cut);
    expect(parent.commitText(ids[cut]!)).toBeUndefined();
    expect(parent.successorOf(ids[cut - 1]!)).toBeUndefined();
  });

  it('refuses to remember a commit the fold did not just append (a bug, not a verdict)', () => {
    const projection = replayLedger(bytesOf(0, 2));
    const records = new LedgerRecords(projection.state, null);
    expect(() => records.remember(ids[0]!, null, lines[0]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
    expect(() => records.remember(ids[1]!, 'q_other', lines[1]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
    const fresh = new LedgerRecords(createState(), null);
    expect(() => fresh.remember(ids[0]!, null, lines[0]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
  });
});
