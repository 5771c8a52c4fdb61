/**
 * The records behind a projection (ledger-records.ts) are kept by the commit's position in the
 * replay state: every commit's text reads back as its line, its successor is the next commit on
 * the chain, on the byte path and the text path, through appends, and through a fork (which
 * reads its parent's records and keeps its own from the parent).
 */
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { appendLedger, replayLedger } from './index.ts';
import { Projection } from './projection.ts';
import { LedgerRecords } from './ledger-records.ts';
import { createState } from '../state/state.ts';
import { commitOn } from '../requests/build.ts';
import type { QueueCommit } from '../schema/index.ts';
import type { JsonObject } from '../json.ts';
import { submitRequest } from '../requests/operations.ts';
import { nodes, policyOf, producer, TestQueue } from '../../tests/acceptance/queue.ts';
import { forge } from '../../tests/conformance/forbidden.ts';

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

  it('refuses to remember a commit the fold did not just append, or one not extending the commit before (a bug, not a verdict)', () => {
    const projection = replayLedger(bytesOf(0, 1));
    // Records starting after the genesis; the second commit is then folded into the same state.
    const after = (): LedgerRecords => new LedgerRecords(projection.state, null);
    const records = [after(), after(), after()];
    appendLedger(projection, bytesOf(1, 2));
    expect(() => records[0]!.remember(ids[2]!, ids[1]!, lines[2]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
    expect(() => records[1]!.remember(ids[1]!, 'q_other', lines[1]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
    records[2]!.remember(ids[1]!, ids[0]!, lines[1]!, -1, 0, 0);
    expect(records[2]!.text(ids[1]!)).toBe(lines[1]);
    // Remembered twice, or before anything was folded.
    expect(() => records[2]!.remember(ids[1]!, ids[0]!, lines[1]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
    expect(() => new LedgerRecords(createState(), null).remember(ids[0]!, null, lines[0]!, -1, 0, 0)).toThrow(/not the state's last folded commit/);
  });

  it('commits folded into the state without a record (a writer folds its own) have none; records appended after them read back', () => {
    const state = createState();
    const projection = new Projection(state);
    for (const line of lines.slice(0, cut)) commitOn(state, JSON.parse(line) as QueueCommit);
    appendLedger(projection, bytesOf(cut, lines.length));
    for (let i = 0; i < cut; i++) expect(projection.commitText(ids[i]!)).toBeUndefined();
    for (let i = cut; i < lines.length; i++) expect(projection.commitText(ids[i]!)).toBe(lines[i]);
    expect(projection.successorOf(ids[cut - 1]!)).toBe(ids[cut]);
  });

  it('a fork made before its parent moved on has no record of the parent\'s new commits, not even a rival at its own commit\'s position', () => {
    const q = new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 1, 'a'));
    const prefix = Buffer.from(q.text());
    /** A submit of node `key` on the tip of `q`: its line and commit id. */
    const submit = (key: string): { line: string; id: string } => {
      const operations = submitRequest(q.state, nodes(key, 1, 'a'), { graphId: `g-${key}`, at: q.tick() }).operations as unknown as JsonObject[];
      const line = `${Buffer.from(forge(q, { id: `submit-${key}`, kind: 'submit', actor: producer, at: q.t, operations })).toString().split('\n').at(-2)!}\n`;
      return { line, id: idOf(line) };
    };
    const [x, y] = [submit('x'), submit('y')];
    const parent = replayLedger(prefix);
    const stale = parent.fork();
    appendLedger(stale, Buffer.from(x.line));
    appendLedger(parent, Buffer.from(y.line));
    expect(stale.commitText(y.id)).toBeUndefined();
    expect(stale.commitText(x.id)).toBe(x.line.slice(0, -1));
    expect(parent.commitText(y.id)).toBe(y.line.slice(0, -1));
    expect(parent.commitText(x.id)).toBeUndefined();
  });
});
