/**
 * Replay's paths agree on every fuzzed ledger: the byte path (records sliced from 64 KiB
 * windows, ASCII records proven canonical before JSON.parse and parsed with their repeated
 * parameters left out), the same bytes with a worker thread checking records ahead
 * (lib/replay/thread-verifier.ts, whose shared copy of the bytes is reused from variant to
 * variant), and the string path (records decoded one by one, the general parse). For each
 * variant of the fuzzer (./fuzzer.ts): the same projection, or the same first error (code,
 * line, commit, operation). The string path is compared only where the bytes are valid UTF-8:
 * it never sees the bytes, so it cannot name `invalid_unicode` where they are not.
 *
 * Sources need nothing outside the repository: the demo queue (a Fairway-written ledger) and a
 * generated ledger whose records cross the 64 KiB windows. FUZZ_SEED and FUZZ_RUNS scale it.
 */
import { afterAll, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import { ThreadVerifier } from '../../lib/replay/thread-verifier.ts';
import { baseLedger, ledgerLines } from '../support/duplicates.ts';
import { variants } from './fuzzer.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const TIMEOUT = 240_000;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const verifier = new ThreadVerifier({ threads: 1, minBytes: 0 });
afterAll(() => verifier.close());

function outcome(run: () => ReturnType<typeof replayLedger>): unknown {
  try {
    const p = run();
    return { tip: p.tip, commits: p.commitCount, summary: summarize(p), texts: p.state.commits.map((c) => p.commitText(c.id)) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, line: e.line, commit: e.commit, operation: e.operation };
  }
}

function compare(lines: readonly string[], runs: number, seed: number): { variants: number; threaded: number; strings: number; rejected: number } {
  const tally = { variants: 0, threaded: 0, strings: 0, rejected: 0 };
  for (const v of variants(lines, runs, seed)) {
    const bytes = Buffer.from(v.bytes);
    const alone = outcome(() => replayLedger(bytes));
    const ahead = outcome(() => replayLedger(bytes, undefined, verifier));
    expect(ahead, `${v.kind}: with a worker thread`).toEqual(alone);
    if ((verifier.last?.ahead ?? 0) > 0) tally.threaded++;
    let text: string | null = null;
    try {
      text = utf8.decode(bytes);
    } catch {
      // Not UTF-8: only the byte paths can judge it.
    }
    if (text !== null) {
      const decoded = text;
      expect(outcome(() => replayLedger(decoded)), `${v.kind}: as a string`).toEqual(alone);
      tally.strings++;
    }
    if ('code' in (alone as object)) tally.rejected++;
    tally.variants++;
  }
  return tally;
}

it(`the demo queue: ${RUNS} variants give one outcome on the byte path, with a worker thread, and as a string`, async () => {
  expect(await verifier.start()).toBe(1);
  const tally = compare(ledgerLines(baseLedger()), RUNS, SEED);
  expect(tally.variants).toBe(RUNS);
  // The comparisons ran: most variants are UTF-8, some are rejected, and some accepted.
  expect(tally.strings).toBeGreaterThan(RUNS / 2);
  expect(tally.rejected).toBeGreaterThan(0);
  expect(tally.rejected).toBeLessThan(RUNS);
}, TIMEOUT);

it(`a generated ledger of about 200 KiB (records across 64 KiB windows): ${Math.round(RUNS / 4)} variants give one outcome on every path`, async () => {
  expect(await verifier.start()).toBe(1);
  const lines = ledgerLines(generateLedger(200 * 1024, 3).text);
  const tally = compare(lines, Math.round(RUNS / 4), SEED + 1);
  expect(tally.variants).toBe(Math.round(RUNS / 4));
  expect(tally.strings).toBeGreaterThan(RUNS / 8);
  // The worker checked records ahead of replay on some variants (it starts 16 records ahead).
  expect(tally.threaded).toBeGreaterThan(0);
}, TIMEOUT);
