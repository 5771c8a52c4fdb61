/**
 * The checked publisher over a scripted store: every compare-and-swap answers what the test
 * says (commit, a rival wins first, uncertain after or without writing, a thrown write).
 * The candidate is validated on a fork of the cached projection (the tentative projection):
 * on every failure path the fork is dropped and the validated projection stays cached and
 * unchanged, so a retry replays only the new tail, never the ledger cold.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { bootstrapRequest, operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { defaultPolicy } from '../../engine/requests/writer.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { MemoryStore } from '../../tests/support/memory-store.ts';
import { configureDebug, setDebugSink } from '../debug/log.ts';
import type { CasOutcome, LedgerStore } from '../store/types.ts';
import { Publisher, type PublishInput } from './publisher.ts';

const repository = 'acme/queue';
const producer: Actor = { role: 'producer', principal: '1', repository };
const node = (k: string) => ({ node_key: k, payload: { k } });

type Step = 'commit' | 'rival' | 'uncertain_landed' | 'uncertain_lost' | 'moved_nowhere' | 'throw';

/** A store whose compare-and-swaps follow a script (then commit), counting reads. */
class ScriptedStore implements LedgerStore {
  readonly label = 'scripted';
  readonly inner = new MemoryStore('scripted');
  script: Step[] = [];
  reads = 0;
  versionReads = 0;
  /** What each compare-and-swap was handed: the pieces, before any joining. */
  readonly handed: Array<readonly Uint8Array[]> = [];
  rival: Publisher | null = null;
  private rivals = 0;

  async read() {
    this.reads++;
    return this.inner.read();
  }

  async readVersion() {
    this.versionReads++;
    return (await this.inner.read()).version;
  }

  compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    return this.compareAndSwapParts(expected, [bytes], message);
  }

  async compareAndSwapParts(expected: string | null, parts: readonly Uint8Array[], message: string): Promise<CasOutcome> {
    this.handed.push(parts);
    const step = this.script.shift() ?? 'commit';
    const bytes = Buffer.concat(parts);
    switch (step) {
      case 'commit':
        return this.inner.compareAndSwap(expected, bytes, message);
      case 'rival':
        await submit(this.rival!, `rival-${++this.rivals}`, `r${this.rivals}`);
        return this.inner.compareAndSwap(expected, bytes, message);
      case 'uncertain_landed': {
        const outcome = await this.inner.compareAndSwap(expected, bytes, message);
        expect(outcome.status).toBe('committed');
        return { status: 'uncertain', reason: 'connection reset after sending' };
      }
      case 'uncertain_lost':
        return { status: 'uncertain', reason: 'connection reset before sending' };
      case 'moved_nowhere': // refused as moved, yet the branch gained nothing (a futile race)
        return { status: 'conflict' };
      case 'throw':
        throw new ProtocolError('store_write_failed', 'disk full');
    }
  }

  readDefaultBranchFile() {
    return Promise.resolve(null);
  }
}

function submit(publisher: Publisher, requestId: string, key: string, extra: Partial<PublishInput> = {}) {
  return publisher.publish({ requestId, actor: producer, prepare: (p, ids) => submitRequest(p.state, [node(key)], { graphId: 'g', at: ids.at }), ...extra });
}

async function seeded(): Promise<{ store: ScriptedStore; publisher: Publisher; events: string[] }> {
  const store = new ScriptedStore();
  const policy = defaultPolicy({ repository, principal: '1' });
  await new Publisher(store.inner).publish({
    requestId: 'seed', actor: producer, prepare: () => { throw new Error('bootstraps'); },
    bootstrap: (ids) => bootstrapRequest(policy, 'e1', [node('a')], { graphId: 'g', at: ids.at }),
  });
  store.rival = new Publisher(store.inner);
  await store.rival.cache.load();
  const publisher = new Publisher(store);
  await publisher.cache.load(); // warm
  store.reads = 0;
  const events: string[] = [];
  setDebugSink((l) => events.push(l.replace(/^\S+ work-queue:/, '')));
  configureDebug({ DEBUG: 'work-queue:replay,work-queue:memory,work-queue:store' });
  return { store, publisher, events };
}

afterEach(() => {
  setDebugSink(null);
  configureDebug({});
});

/** The cached projection: validated, and holding exactly the requests `ids`. */
function cachedHolds(publisher: Publisher, ids: string[]) {
  const current = publisher.cache.current()!;
  expect(current.projection.valid).toBe(true);
  expect(current.projection.forked).toBe(false);
  expect([...current.projection.state.requests.keys()].sort()).toEqual([...ids].sort());
  return current.projection;
}

describe('Publisher over a scripted store', () => {
  it('conflict: the tentative projection is dropped, the cached one kept, and the retry replays only the rival tail', async () => {
    const { store, publisher, events } = await seeded();
    const before = cachedHolds(publisher, ['seed']);
    store.script = ['rival'];
    let retriedWith: ReturnType<typeof cachedHolds> | null = null;
    const outcome = await submit(publisher, 'mine', 'b', { onRetry: () => void (retriedWith = cachedHolds(publisher, ['seed'])) });
    expect(outcome).toMatchObject({ status: 'committed', attempts: 2 });
    expect(retriedWith).toBe(before); // after the conflict: same object, no candidate in it
    expect(cachedHolds(publisher, ['seed', 'rival-1', 'mine'])).toBe(before); // the tail was appended to it
    expect(events).toContain('memory discard reason=conflict kept=true');
    expect(events.some((e) => e.startsWith('replay cold'))).toBe(false);
    expect(events.some((e) => /^replay incremental .*commits=1 /.test(e))).toBe(true);
    // The ledger ends with the rival's commit and then ours, and replays.
    expect(store.inner.text().trim().split('\n').map((l) => JSON.parse(l).request.id)).toEqual(['seed', 'rival-1', 'mine']);
  });

  it('the candidate is handed to the store as the cached pieces plus its line, never a joined copy of the ledger', async () => {
    const { store, publisher } = await seeded();
    const chunks = publisher.cache.current()!.projection.validatedChunks();
    await submit(publisher, 'one', 'b');
    await submit(publisher, 'two', 'c');
    expect(store.handed[0]!.slice(0, -1)).toEqual(chunks);
    expect(store.handed[0]![0]).toBe(chunks[0]); // the same buffer, not a copy
    expect(store.handed[1]!.length).toBe(chunks.length + 2); // the first line appended as a piece of its own
    expect(store.reads).toBe(0); // the version matched: nothing re-read
  });

  it('uncertain, landed: read back, found by request id, committed on the first attempt; the cached projection took the tail', async () => {
    const { store, publisher, events } = await seeded();
    const before = cachedHolds(publisher, ['seed']);
    store.script = ['uncertain_landed'];
    expect(await submit(publisher, 'mine', 'b')).toMatchObject({ status: 'committed', attempts: 1 });
    expect(events).toContain('memory discard reason=uncertain kept=true');
    expect(events).toContain('store recovered attempt=1 committed=true replayed=false');
    expect(cachedHolds(publisher, ['seed', 'mine'])).toBe(before);
    expect(events.some((e) => e.startsWith('replay cold'))).toBe(false);
  });

  it('uncertain, lost: not found by request id, retried with backoff, committed once', async () => {
    const { store, publisher, events } = await seeded();
    store.script = ['uncertain_lost'];
    let retries = 0;
    expect(await submit(publisher, 'mine', 'b', { onRetry: (r) => void (retries++, expect(r.reason).toBe('uncertain')) })).toMatchObject({ status: 'committed', attempts: 2 });
    expect(retries).toBe(1);
    expect(events).toContain('store recovered attempt=1 committed=false replayed=false');
    cachedHolds(publisher, ['seed', 'mine']);
    expect(store.inner.text().match(/"id":"mine"/g)).toHaveLength(1);
  });

  it('a thrown write: the error propagates, nothing tentative survives in the cache', async () => {
    const { store, publisher, events } = await seeded();
    const before = cachedHolds(publisher, ['seed']);
    store.script = ['throw'];
    await expect(submit(publisher, 'mine', 'b')).rejects.toMatchObject({ code: 'store_write_failed' });
    expect(events).toContain('memory discard reason=write_failed kept=true');
    expect(cachedHolds(publisher, ['seed'])).toBe(before);
    // The next publication works from the same validated projection.
    expect(await submit(publisher, 'next', 'c')).toMatchObject({ status: 'committed', attempts: 1 });
    expect(cachedHolds(publisher, ['seed', 'next'])).toBe(before);
  });

  it('an invalid candidate: replay refuses it on the fork, nothing is written, the cached projection is untouched', async () => {
    const { store, publisher, events } = await seeded();
    const before = cachedHolds(publisher, ['seed']);
    // A producer may not write a control operation: replay answers operation_not_allowed.
    const control = operationsRequest('control', [{ kind: 'Control', control: 'grants_paused', value: true, reason: 'maintenance' }]);
    await expect(publisher.publish({ requestId: 'bad', actor: producer, prepare: () => control })).rejects.toBeInstanceOf(ProtocolError);
    expect(store.handed).toHaveLength(0);
    expect(events).toContain('memory discard reason=invalid kept=true');
    expect(cachedHolds(publisher, ['seed'])).toBe(before);
  });

  it('replayed: an already committed request answers request_replayed and writes nothing; another meaning is request_id_conflict', async () => {
    const { store, publisher } = await seeded();
    await submit(publisher, 'mine', 'b');
    const writes = store.handed.length;
    expect(await submit(new Publisher(store), 'mine', 'b')).toMatchObject({ status: 'request_replayed' });
    expect(await submit(publisher, 'mine', 'b')).toMatchObject({ status: 'request_replayed' });
    await expect(submit(publisher, 'mine', 'other')).rejects.toMatchObject({ code: 'request_id_conflict' });
    expect(store.handed).toHaveLength(writes);
  });

  it('a rival that committed the same request id while we raced: request_replayed after the conflict', async () => {
    const { store, publisher } = await seeded();
    store.rival = null;
    const rival = new Publisher(store.inner);
    const original = store.compareAndSwapParts.bind(store);
    store.compareAndSwapParts = async (expected, parts, message) => {
      store.compareAndSwapParts = original;
      await submit(rival, 'mine', 'b');
      return original(expected, parts, message);
    };
    expect(await submit(publisher, 'mine', 'b')).toMatchObject({ status: 'request_replayed' });
    cachedHolds(publisher, ['seed', 'mine']);
  });

  it('races lost to other writers\' commits do not use up the retry budget: the call commits after them', async () => {
    const { store, publisher } = await seeded();
    store.script = Array.from({ length: 6 }, () => 'rival' as const);
    const out = await submit(publisher, 'mine', 'b', { maxAttempts: 4 });
    expect(out).toMatchObject({ status: 'committed', attempts: 7 });
    cachedHolds(publisher, ['seed', 'rival-1', 'rival-2', 'rival-3', 'rival-4', 'rival-5', 'rival-6', 'mine']);
  });

  it('retries exhausted: attempts that ended without progress use up the budget; the cached projection holds only what was committed', async () => {
    const { store, publisher } = await seeded();
    store.script = ['rival', 'moved_nowhere', 'uncertain_lost', 'moved_nowhere', 'moved_nowhere'];
    await expect(submit(publisher, 'mine', 'b', { maxAttempts: 4 })).rejects.toMatchObject({
      code: 'publish_retries_exhausted',
      details: { attempts: 5, lost_to_commits: 1, without_progress: 4 },
    });
    const after = publisher.cache.current();
    expect(after === null || after.projection.request('mine') === undefined).toBe(true);
    expect((await publisher.cache.load()).projection!.request('mine')).toBeUndefined();
    cachedHolds(publisher, ['seed', 'rival-1']);
  });

  it('retries exhausted: races lost to other writers stop at the deadline', async () => {
    const { store, publisher } = await seeded();
    store.script = Array.from({ length: 50 }, () => 'rival' as const);
    const error = await submit(publisher, 'mine', 'b', { deadlineMs: 150 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'publish_retries_exhausted', details: { without_progress: 0 } });
    expect((error as { details: { lost_to_commits: number } }).details.lost_to_commits).toBeGreaterThan(0);
    expect(publisher.cache.current()!.projection.request('mine')).toBeUndefined();
  });
});
