/**
 * `compact` (lib/publisher/compact.ts) publishes its checkpoint by compare-and-swap. When another
 * compact wins the race, the loser's conflict is answered `already_compact` (the ledger is what
 * was asked for); when the branch moved by anything else, it is `publish_conflict` and nothing is
 * replaced. Real local Git stores, the demo queue.
 */
import { describe, expect, it } from 'vitest';
import { LocalGitStore } from '../store/local-git.ts';
import { seedDemoDay } from '../demo/day.ts';
import { fixtureRepo } from '../../tests/support/fixture-repo.ts';
import type { PublishingActor } from './publisher.ts';
import { Publisher } from './publisher.ts';
import { compact } from './compact.ts';

const NOW = Date.UTC(2026, 4, 12, 15, 0, 0);
const admin = { role: 'administrator', principal: '1' } as PublishingActor;

/** A publisher whose next compare-and-swap first runs `before` (another writer getting there first). */
function racing(repo: string, before: () => Promise<unknown>): Publisher {
  const store = new LocalGitStore({ repo });
  const cas = store.compareAndSwap.bind(store);
  let raced = false;
  store.compareAndSwap = async (...args: Parameters<typeof cas>) => {
    if (!raced) {
      raced = true;
      await before();
    }
    return cas(...args);
  };
  return new Publisher(store);
}

describe('compact under a race', () => {
  it('losing to another compact is already_compact, and the winner\'s checkpoint stands', async () => {
    const repo = fixtureRepo('fairway-compact-race-');
    const winner = new Publisher(new LocalGitStore({ repo }));
    await seedDemoDay(winner, { now: NOW });
    let won: Awaited<ReturnType<typeof compact>> | undefined;
    // A later decision time than the loser's: another checkpoint than the one the loser builds.
    const loser = racing(repo, async () => (won = await compact(winner, admin, () => NOW + 60_000)));
    const lost = await compact(loser, admin, () => NOW);
    expect(won!.status).toBe('committed');
    expect(lost).toMatchObject({ status: 'already_compact', commit: null, version: won!.version, replaced_commits: 0 });
  });

  it('losing to any other write is publish_conflict, and nothing is replaced', async () => {
    const repo = fixtureRepo('fairway-compact-race-');
    const other = new Publisher(new LocalGitStore({ repo }));
    await seedDemoDay(other, { now: NOW });
    const store = new LocalGitStore({ repo });
    const loser = racing(repo, async () => {
      const read = await store.read();
      await store.compareAndSwap(read.version, read.bytes!, 'same bytes, a new Git commit');
    });
    await expect(compact(loser, admin, () => NOW)).rejects.toMatchObject({ code: 'publish_conflict' });
    const { projection } = await other.cache.load();
    expect(projection!.checkpoint).toBeUndefined();
  });
});
