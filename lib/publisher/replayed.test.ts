/**
 * What a reused request id means when a checkpoint replaced its commit and no Git history is
 * reachable (a store without `readAt`, like a depth-1 checkout): the receipt alone decides what it
 * can (another actor or kind, another dispatch_next: `request_id_conflict`); any other difference
 * is `history_compacted`, under a caller's id and under a derived one (`publishTransition`), so a
 * retry's other meaning (a finish's other outcome, a control's other value) is never answered as
 * the committed request. The same request is replayed. Nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import type { JsonValue } from '../../engine/json.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { buildCheckpointCommit } from '../../engine/replay/checkpoint.ts';
import { control } from '../../engine/requests/lifecycle.ts';
import { admin, nodes, policyOf, TestQueue } from '../../tests/acceptance/queue.ts';
import { MemoryStore } from '../../tests/support/memory-store.ts';
import { Publisher } from './publisher.ts';
import { publishTransition } from './requests.ts';

/** A store holding only the checkpoint of a queue whose request `pause` set grants_paused. */
async function compacted(): Promise<{ store: MemoryStore; publisher: Publisher }> {
  const q = new TestQueue(policyOf(), nodes('p', 2, ''));
  q.w.publish('pause', admin, q.tick(), control('grants_paused', true, 'incident'));
  const p = replayLedger(new TextEncoder().encode(q.text()));
  const root = buildCheckpointCommit(p, { priorGitSha: 'd'.repeat(40), actor: admin, at: q.tick() });
  const store = new MemoryStore('compacted');
  expect((await store.compareAndSwap(null, new TextEncoder().encode(`${canonicalize(root as unknown as JsonValue)}\n`), 'checkpoint')).status).toBe('committed');
  return { store, publisher: new Publisher(store) };
}

const pauseWith = (value: boolean) => () => control('grants_paused', value, 'incident');

describe('a reused request id after compaction, history unreachable', () => {
  for (const derived of [false, true]) {
    const how = derived ? 'a derived id (publishTransition)' : 'a caller\'s id';
    const publish = async (publisher: Publisher, value: boolean) => derived
      ? publishTransition(publisher, 'pause', admin, pauseWith(value))
      : publisher.publish({ requestId: 'pause', actor: admin, prepare: pauseWith(value) });

    it(`${how}: the same request replays; another value is history_compacted; nothing is written`, async () => {
      const { store, publisher } = await compacted();
      const version = (await store.read()).version;
      const same = await publish(publisher, true);
      expect(derived ? (same as { status: string }).status : (same as { replayed: boolean }).replayed).toBe(derived ? 'replayed' : true);
      await expect(publish(publisher, false)).rejects.toMatchObject({ code: 'history_compacted', details: { prior_git_sha: 'd'.repeat(40) } });
      expect((await store.read()).version).toBe(version);
    });
  }

  it('another kind under the same id is request_id_conflict', async () => {
    const { publisher } = await compacted();
    await expect(publisher.publish({ requestId: 'pause', actor: admin, prepare: () => ({ kind: 'cancel_work', parameters: { operations: [] }, operations: [] }) })).rejects.toMatchObject({ code: 'request_id_conflict' });
  });
});
