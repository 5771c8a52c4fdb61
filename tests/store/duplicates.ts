/**
 * Duplicate commit lines read through a real store (spec 7.6): the ledger is
 * committed to the authority as `work-queue.jsonl`, then read the way every
 * command reads it (the publisher's projection cache: store bytes → cold
 * replay, or incremental refresh when the branch extends the validated bytes).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger, summarize, type ProjectionSummary } from '../../engine/replay/index.ts';
import { Publisher } from '../../lib/publisher/publisher.ts';
import { LEDGER_FILE } from '../../lib/store/types.ts';
import { appendedVariants, baseLedger, duplicateVariants } from '../support/duplicates.ts';
import type { StoreFixture } from './contract.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

async function judged(read: () => Promise<ProjectionSummary>): Promise<ProjectionSummary | string> {
  try {
    return await read();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

export function duplicateReadSuite(name: string, makeFixture: () => Promise<StoreFixture>): void {
  describe(`duplicate commit lines read from ${name}`, () => {
    const ledger = baseLedger();
    const expected = summarize(replayLedger(utf8(ledger)));
    let f: StoreFixture;
    beforeAll(async () => {
      f = await makeFixture();
    });

    for (const v of duplicateVariants(ledger)) {
      it(`${v.name} → ${v.expect === 'same' ? 'same projection' : v.expect}`, async () => {
        await f.seed(f.queueBranch, { [LEDGER_FILE]: v.text });
        const got = await judged(async () => summarize((await new Publisher(f.makeStore()).cache.load()).projection!));
        expect(got).toEqual(v.expect === 'same' ? expected : v.expect);
      });
    }

    for (const v of appendedVariants(ledger)) {
      it(`incremental refresh: ${v.name} → ${v.expect === 'same' ? 'same projection' : v.expect}`, async () => {
        const publisher = new Publisher(f.makeStore());
        await f.seed(f.queueBranch, { [LEDGER_FILE]: v.prefix });
        const first = (await publisher.cache.load()).projection!;
        await f.seed(f.queueBranch, { [LEDGER_FILE]: v.prefix + v.appended });
        const got = await judged(async () => {
          const { projection } = await publisher.cache.load();
          expect(projection).toBe(first); // extended in place, not replayed cold
          return summarize(projection!);
        });
        expect(got).toEqual(v.expect === 'same' ? summarize(replayLedger(utf8(v.equal))) : v.expect);
      });
    }
  });
}
