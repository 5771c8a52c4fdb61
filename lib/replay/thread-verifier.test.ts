/**
 * Cold replay with the per-record checks on real worker threads (thread-verifier.ts): the
 * workers run verify-worker.ts from source here (through tsx), the compiled CLI runs its built
 * copy (tests/integration/cli-replay-threads.test.ts). The answer never depends on them: the
 * same projection, the same first error, and replay goes on alone when they are gone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger, summarize } from '../../engine/replay/index.ts';
import { ledgerBuffer, MIN_BYTES, ThreadVerifier } from './thread-verifier.ts';

const { text } = generateLedger(320 * 1024, 11);
const LINES = text.split('\n').slice(0, -1);
const verifier = new ThreadVerifier({ threads: 1, minBytes: 0 });
afterAll(() => verifier.close());

function outcome(bytes: Uint8Array, with_?: ThreadVerifier): unknown {
  try {
    const p = replayLedger(bytes, undefined, with_);
    return { tip: p.tip, commits: p.commitCount, summary: summarize(p), texts: p.state.commits.map((c) => p.commitText(c.id)) };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message, line: e.line, commit: e.commit, operation: e.operation };
  }
}

describe('ThreadVerifier', () => {
  it('checks records ahead on a worker, and replay gives the projection it gives alone', async () => {
    expect(await verifier.start()).toBe(1);
    const bytes = Buffer.from(text);
    const alone = outcome(bytes);
    // The worker, loaded, takes records before replay's thread reaches them (on a busy machine it
    // may not be scheduled during one short replay: a few rounds).
    let ahead = 0;
    for (let round = 0; round < 20 && ahead === 0; round++) {
      expect(outcome(bytes, verifier)).toEqual(alone);
      expect(verifier.last).toMatchObject({ threads: 1, records: LINES.length });
      ahead += verifier.last!.ahead;
    }
    expect(ahead).toBeGreaterThan(0);
  });

  it('a record a worker verified is read from its bytes: an exact duplicate is folded once, a conflicting one named at its line, as alone', async () => {
    expect(await verifier.start()).toBe(1);
    const again = LINES[10]!;
    const rival = again.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`);
    expect(rival).not.toBe(again);
    const exact = Buffer.from(`${[...LINES, again].join('\n')}\n`);
    const conflicting = Buffer.from(`${[...LINES, rival].join('\n')}\n`);
    const alone = [outcome(exact), outcome(conflicting)];
    expect(alone[0]).toMatchObject({ commits: LINES.length });
    expect(alone[1]).toMatchObject({ code: 'conflicting_duplicate_commit', line: LINES.length + 1 });
    let ahead = 0;
    for (let round = 0; round < 20 && ahead < 2; round++) {
      for (const [i, bytes] of [exact, conflicting].entries()) {
        expect(outcome(bytes, verifier)).toEqual(alone[i]);
        if ((verifier.last?.ahead ?? 0) > 0) ahead++;
      }
    }
    expect(ahead).toBeGreaterThan(0);
  });

  it('ledgers of different sizes in turn each give the projection replay gives alone', async () => {
    expect(await verifier.start()).toBe(1);
    const larger = Buffer.from(generateLedger(1200 * 1024, 12).text);
    const prefix = Buffer.from(`${LINES.slice(0, Math.floor(LINES.length / 3)).join('\n')}\n`);
    // The same prefix with its last record spoiled: replayed after a larger ledger, the shared copy it
    // reuses still holds the larger's bytes past its end, and the spoiled record must still fail.
    const spoiledPrefix = Buffer.from(prefix.toString().replace(/"version":3}\n$/, '"version":2}\n'));
    expect(spoiledPrefix.length).toBe(prefix.length);
    const ledgers = [Buffer.from(text), prefix, larger, spoiledPrefix, prefix, Buffer.from(text), larger, spoiledPrefix];
    const alone = ledgers.map((b) => outcome(b));
    expect((alone[3] as { code?: string }).code).toBe('unsupported_protocol');
    for (let i = 0; i < ledgers.length; i++) {
      expect(outcome(ledgers[i]!, verifier), `ledger ${i}`).toEqual(alone[i]);
      expect(verifier.last).toMatchObject({ threads: 1 });
    }
  });

  it('a replay started from another replay\'s progress callback, on the same verifier, leaves the outer verdict as it is alone', async () => {
    expect(await verifier.start()).toBe(1);
    // The outer ledger spoils its last record without changing its length; the nested replay
    // (at the outer's 1,000th record, before the worker gets near the end) is the same ledger
    // unspoiled. Its bytes must never stand in for the outer ledger's: a verdict computed on them
    // would pass the spoiled record.
    const clean = generateLedger(8 * 1024 * 1024, 14).text;
    const lines = clean.split('\n').slice(0, -1);
    lines[lines.length - 1] = lines[lines.length - 1]!.replace('"version":3}', '"version":2}');
    const spoiled = Buffer.from(`${lines.join('\n')}\n`);
    expect(spoiled.length).toBe(Buffer.byteLength(clean));
    const alone = outcome(spoiled) as { code?: string };
    expect(alone.code).toBe('unsupported_protocol');
    for (let round = 0; round < 3; round++) {
      let nested = 0;
      let verdict: unknown;
      try {
        replayLedger(spoiled, ({ lines: done }) => {
          if (done !== 1000) return;
          nested++;
          replayLedger(Buffer.from(clean), undefined, verifier);
        }, verifier);
        verdict = 'accepted';
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        verdict = { code: e.code, message: e.message, line: e.line, commit: e.commit, operation: e.operation };
      }
      expect(nested).toBe(1);
      expect(verdict).toEqual(alone);
    }
  });

  it('keeps one shared copy for the next ledger, never more than twice the last ledger\'s size, and none after close', async () => {
    const own = new ThreadVerifier({ threads: 1, minBytes: 0 });
    try {
      expect(await own.start()).toBe(1);
      expect(own.retainedBytes).toBe(0);
      const large = Buffer.from(generateLedger(5 * 1024 * 1024, 15).text);
      expect(outcome(large, own)).toEqual(outcome(large));
      expect(own.retainedBytes).toBe(Math.ceil(large.length / 2 ** 20) * 2 ** 20);
      const small = Buffer.from(text);
      expect(outcome(small, own)).toEqual(outcome(small));
      expect(own.retainedBytes).toBe(2 ** 20);
      expect(outcome(large, own)).toEqual(outcome(large));
      expect(own.retainedBytes).toBe(Math.ceil(large.length / 2 ** 20) * 2 ** 20);
    } finally {
      await own.close();
    }
    expect(own.retainedBytes).toBe(0);
  });

  it('takes a ledger read into ledgerBuffer as it is (no shared copy kept), in a Buffer or a plain Uint8Array over it', async () => {
    expect(ledgerBuffer(MIN_BYTES - 1).buffer instanceof SharedArrayBuffer).toBe(false);
    expect(ledgerBuffer(MIN_BYTES).buffer instanceof SharedArrayBuffer).toBe(true);
    const own = new ThreadVerifier({ threads: 1, minBytes: 0 });
    try {
      expect(await own.start()).toBe(1);
      const large = generateLedger(MIN_BYTES + 64 * 1024, 16).text;
      const alone = outcome(Buffer.from(large));
      const shared = ledgerBuffer(Buffer.byteLength(large));
      expect(shared.write(large)).toBe(shared.length);
      for (const input of [shared, new Uint8Array(shared.buffer, 0, shared.length)]) {
        expect(outcome(input, own)).toEqual(alone);
        expect(own.last).toMatchObject({ threads: 1 });
        expect(own.retainedBytes).toBe(0); // the workers read the input's own memory
      }
    } finally {
      await own.close();
    }
  });

  it('names the first error replay names alone, wherever the spoiled record is, and a record a worker failed is checked again', async () => {
    expect(await verifier.start()).toBe(1);
    let rechecked = 0;
    for (const at of [0, 1, Math.floor(LINES.length / 2), LINES.length - 1]) {
      for (const spoil of [(l: string) => l.replace('"version":3', '"version":2'), (l: string) => l.replace(/"at":(\d+)/, '"at":-$1'), (l: string) => l.slice(0, -1)]) {
        const bytes = Buffer.from(`${LINES.map((l, i) => (i === at ? spoil(l) : l)).join('\n')}\n`);
        const alone = outcome(bytes) as { code?: string };
        expect(alone.code).toEqual(expect.any(String));
        // Past the workers' lead a worker usually takes the spoiled record first (a few tries on a busy machine).
        for (let round = 0; round < (at > 16 ? 10 : 1); round++) {
          expect(outcome(bytes, verifier)).toEqual(alone);
          if (verifier.last!.rechecked > 0) break;
        }
        rechecked += verifier.last!.rechecked;
      }
    }
    expect(rechecked).toBeGreaterThan(0);
  });

  it('leaves small ledgers, text input and a pool of none to replay alone', () => {
    const small = new ThreadVerifier({ threads: 1 });
    expect(small.open(Buffer.from(text), [{ start: 0, end: 1 }, { start: 2, end: 3 }])).toBeNull();
    expect(small.last).toBeNull();
    const none = new ThreadVerifier({ threads: 0, minBytes: 0 });
    expect(outcome(Buffer.from(text), none)).toEqual(outcome(Buffer.from(text)));
    expect(none.last).toBeNull();
  });

  it('starts a new pool after close, and replay is unchanged while it loads', async () => {
    const own = new ThreadVerifier({ threads: 1, minBytes: 0 });
    const bytes = Buffer.from(text);
    const alone = outcome(bytes);
    // Not started: the worker loads while replay runs (and may check nothing before it ends).
    expect(outcome(bytes, own)).toEqual(alone);
    await own.close();
    expect(outcome(bytes, own)).toEqual(alone);
    expect(await own.start()).toBe(1);
    await own.close();
  });
});
