/**
 * The browser's edge: administrator publications through the checked
 * publisher, and how each outcome is classified (committed, replayed,
 * rejected before any write, uncertain after an attempted write).
 */
import { describe, expect, it } from 'vitest';
import { storeBackend } from '../../cli/tui/backend.ts';
import type { ActionPlan } from '../../cli/tui/dialog.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../../lib/store/types.ts';
import { REPOSITORY, buildQueue } from './fixtures.ts';

class MemoryStore implements LedgerStore {
  readonly label = 'memory:queue';
  version = 1;
  failWrite: Error | null = null;
  failRead: Error | null = null;
  writes = 0;
  constructor(public bytes: Uint8Array) {}
  async read(): Promise<LedgerSnapshot> {
    if (this.failRead !== null) throw this.failRead;
    return { version: String(this.version), bytes: this.bytes };
  }
  async compareAndSwap(expected: string | null, bytes: Uint8Array): Promise<CasOutcome> {
    this.writes += 1;
    if (this.failWrite !== null) throw this.failWrite;
    if (expected !== String(this.version)) return { status: 'conflict', actual: String(this.version) };
    this.bytes = bytes;
    this.version += 1;
    return { status: 'committed', version: String(this.version) };
  }
  async readDefaultBranchFile(): Promise<Uint8Array | null> {
    return null;
  }
}

function setup() {
  const { writer } = buildQueue();
  const store = new MemoryStore(new TextEncoder().encode(writer.text()));
  const backend = storeBackend(store, { principal: '1001', basis: 'test' });
  return { store, backend };
}

const plan = (o: Partial<ActionPlan> & Pick<ActionPlan, 'ids'>): ActionPlan => ({ action: 'cancel_work', requestId: 'tui-t-1', reason: 'operator_cancelled', priority: null, ...o });

describe('storeBackend', () => {
  it('loads a snapshot and names its authority', async () => {
    const { backend } = setup();
    const snap = await backend.load([]);
    expect(snap.repository).toBe(REPOSITORY);
    expect(snap.works.size).toBe(35);
    expect(backend.authority).toEqual({ principal: '1001', source: 'memory:queue', writable: true, basis: 'test' });
  });

  it('publishes as administrator; the same request id again is a replay, not a second write', async () => {
    const { backend, store } = setup();
    const snap = await backend.load([]);
    const task = [...snap.works.values()].find((w) => w.nodeKey === 'Task-01')!;
    const first = await backend.publish(plan({ ids: [task.id] }));
    expect(first).toEqual({ status: 'committed', commitId: expect.stringMatching(/^q_/) });
    const again = await backend.publish(plan({ ids: [task.id] }));
    expect(again).toEqual({ status: 'replayed', commitId: (first as { commitId: string }).commitId });
    expect(store.writes).toBe(1);
    const after = await backend.load(['tui-t-1', 'tui-unknown']);
    expect(after.works.get(task.id)!.state).toBe('cancelled');
    expect(after.committedRequests).toEqual({ 'tui-t-1': (first as { commitId: string }).commitId });
  });

  it('cancel-claim and reprioritize go through the same path', async () => {
    const { backend } = setup();
    const snap = await backend.load([]);
    const claimed = [...snap.works.values()].find((w) => w.state === 'claimed')!;
    expect((await backend.publish(plan({ action: 'cancel_claims', requestId: 'tui-c', ids: [claimed.currentClaim!] }))).status).toBe('committed');
    const available = [...snap.works.values()].find((w) => w.nodeKey === 'Task-02')!;
    expect((await backend.publish(plan({ action: 'reprioritize', requestId: 'tui-p', reason: 'operator_reprioritized', priority: 1, ids: [available.id] }))).status).toBe('committed');
    const after = await backend.load([]);
    expect(after.claims.get(claimed.currentClaim!)!.state).toBe('cancelled');
    expect(after.works.get(available.id)!.effectivePriority).toBe(1);
  });

  it('a stale target is rejected by the engine check, with nothing written', async () => {
    const { backend, store } = setup();
    const snap = await backend.load([]);
    const cancelled = [...snap.works.values()].find((w) => w.state === 'cancelled')!;
    expect(await backend.publish(plan({ ids: [cancelled.id] }))).toEqual({ status: 'rejected', code: 'work_terminal', message: expect.any(String) });
    expect(store.writes).toBe(0);
  });

  it('a priority change since the review is refused (preview_stale), never applied over it; nothing is written', async () => {
    const { backend, store } = setup();
    const snap = await backend.load([]);
    const task = [...snap.works.values()].find((w) => w.nodeKey === 'Task-04')!;
    const reviewed = { [task.id]: { state: 'available', priority: 3 } };
    expect((await backend.publish(plan({ action: 'reprioritize', requestId: 'tui-other', reason: 'operator_reprioritized', priority: 2, ids: [task.id] }))).status).toBe('committed');
    const writes = store.writes;
    const stale = await backend.publish(plan({ action: 'reprioritize', requestId: 'tui-p-1', reason: 'operator_reprioritized', priority: 1, ids: [task.id], reviewed }));
    expect(stale).toMatchObject({ status: 'rejected', code: 'preview_stale', message: expect.stringContaining('available P3, now available P2') });
    expect(store.writes).toBe(writes);
    expect((await backend.load([])).works.get(task.id)!.effectivePriority).toBe(2);
  });

  it('a failed read before any write is rejected; a failed write is uncertain', async () => {
    const { backend, store } = setup();
    const snap = await backend.load([]);
    const task = [...snap.works.values()].find((w) => w.nodeKey === 'Task-03')!;
    store.version += 1; // force a fresh read
    store.failRead = Object.assign(new Error('network down'), { code: 'store_read_failed' });
    expect(await backend.publish(plan({ ids: [task.id] }))).toMatchObject({ status: 'rejected' });
    store.failRead = null;
    store.failWrite = new Error('connection reset after sending');
    // A raw exception from the store is not a protocol verdict: internal_error, said to be a bug.
    const uncertain = await backend.publish(plan({ requestId: 'tui-t-2', ids: [task.id] }));
    expect(uncertain).toMatchObject({ status: 'uncertain', code: 'internal_error' });
    expect((uncertain as { message: string }).message).toMatch(/connection reset after sending.*bug in Fairway.*please report it/);
    // The view then shows the branch, not the unconfirmed candidate.
    expect((await backend.load([])).works.get(task.id)!.state).toBe('available');
  });
});
