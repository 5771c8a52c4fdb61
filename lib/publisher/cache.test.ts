/**
 * The read cache never poisons a projection it handed out: every user of a Publisher's cache
 * (the console's admin path, an MCP session's read, the TUI's snapshot, the CLI) may keep the
 * projection `load` returned while a later read finds a commit the protocol refuses.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../../engine/errors.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { seedDemoDay } from '../demo/day.ts';
import { LocalGitStore } from '../store/local-git.ts';
import { fixtureRepo } from '../../tests/support/fixture-repo.ts';
import { Publisher } from './publisher.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);

function verdictOf(bytes: Uint8Array): string {
  try {
    replayLedger(bytes);
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  throw new Error('the ledger replays');
}

describe('ProjectionCache', () => {
  it('a refused tail leaves the projection load returned before valid and answers the ledger\'s own verdict on every read', async () => {
    const store = new LocalGitStore({ repo: fixtureRepo('fairway-cache-poison-') });
    const publisher = new Publisher(store);
    await seedDemoDay(publisher, { now: NOW });
    const { projection: held, snapshot } = await publisher.cache.load();
    const tip = held!.tip;
    const good = (await store.read()).bytes!;
    const bad = Buffer.concat([good, Buffer.from('{"not":"a queue commit"}\n')]);
    expect(await store.compareAndSwap(snapshot.version, bad, 'hand edit')).toMatchObject({ status: 'committed' });
    const verdict = verdictOf(bad);
    expect(verdict).not.toBe('projection_invalid');

    for (let read = 0; read < 2; read++) {
      await expect(publisher.cache.load()).rejects.toMatchObject({ code: verdict });
      expect(held!.valid).toBe(true);
      expect(held!.tip).toBe(tip);
    }

    // The branch set back to the good bytes (a new version): the cache serves them again.
    const current = await store.read();
    expect(await store.compareAndSwap(current.version, good, 'restore')).toMatchObject({ status: 'committed' });
    const again = await publisher.cache.load();
    expect(again.projection!.tip).toBe(tip);
    expect(again.projection!.commitCount).toBe(held!.commitCount);
  });
});
