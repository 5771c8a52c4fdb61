import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../store/types.ts';
import { runAdminAction } from './admin/actions.ts';
import { ConsoleRuntime } from './runtime.ts';
import { MemoryStore } from '../../tests/support/memory-store.ts';
import { DEMO_CONSOLE_CONFIG, demoStore } from '../../tests/support/demo-console.ts';

const config = DEMO_CONSOLE_CONFIG;

/** A store whose reads can be made to fail, to see the last good view survive. */
class FlakyStore implements LedgerStore {
  readonly label = 'flaky';
  failing = false;
  constructor(private readonly inner: MemoryStore) {}
  async read(): Promise<LedgerSnapshot> {
    // Like the real stores: an I/O failure is a ProtocolError (a raw exception would be a bug).
    if (this.failing) throw new ProtocolError('store_unreachable', 'connection reset');
    return this.inner.read();
  }
  compareAndSwap(expected: string | null, bytes: Uint8Array, message: string): Promise<CasOutcome> {
    return this.inner.compareAndSwap(expected, bytes, message);
  }
  readDefaultBranchFile(): Promise<Uint8Array | null> {
    return Promise.resolve(null);
  }
}

const seeded = (): Promise<MemoryStore> => demoStore('runtime');

describe('console runtime', () => {
  it('keeps serving the last good projection, flagged stale, when reads fail', async () => {
    const flaky = new FlakyStore(await seeded());
    const runtime = new ConsoleRuntime(config, flaky);
    const good = await runtime.live();
    expect(good.stale).toBeNull();
    flaky.failing = true;
    runtime.invalidate();
    const stale = await runtime.live();
    expect(stale.projection.tip).toBe(good.projection.tip);
    expect(stale.stale).toMatchObject({ code: 'store_unreachable' });
    flaky.failing = false;
    runtime.invalidate();
    expect((await runtime.live()).stale).toBeNull();
  });

  it('publishes administrator actions through the publisher and returns the receipt', async () => {
    const store = await seeded();
    const runtime = new ConsoleRuntime(config, store);
    const out = await runAdminAction(runtime, 'control', { control: 'grants_paused', value: true, reason: 'test.pause', request_id: 'console-test-pause-1' }, '1001');
    expect(out).toMatchObject({ ok: true, status: 'committed', request_id: 'console-test-pause-1', receipt_url: '/receipts/console-test-pause-1' });
    expect(out.receipt?.operations[0]).toMatchObject({ kind: 'Control', detail: 'grants_paused = true (test.pause)' });
    expect((await runtime.live()).projection.state.controls.grants_paused).toBe(true);
    // The same request id again is the same logical request: nothing new is written.
    const again = await runAdminAction(runtime, 'control', { control: 'grants_paused', value: true, reason: 'test.pause', request_id: 'console-test-pause-1' }, '1001');
    expect(again.status).toBe('request_replayed');
    expect(store.messages.filter((m) => m.includes('console-test-pause-1'))).toHaveLength(1);
  });

  it('refuses a policy epoch while the queue is not quiescent', async () => {
    const runtime = new ConsoleRuntime(config, await seeded());
    const policy = (await runtime.live()).projection.state.policy!.policy;
    await expect(runAdminAction(runtime, 'policy', { epoch: 'demo-day-2', policy: policy as never }, '1001')).rejects.toMatchObject({ code: 'policy_not_quiescent' });
  });

  it('cancels an open Claim and reprioritizes available Work', async () => {
    const runtime = new ConsoleRuntime(config, await seeded());
    const state = (await runtime.live()).projection.state;
    const open = [...state.claims.values()].find((c) => c.state === 'open')!;
    const cancelled = await runAdminAction(runtime, 'cancel-claim', { claim_ids: [open.claimId], reason: 'operator_cancelled' }, '1001');
    expect(cancelled.receipt?.operations.map((o) => o.kind)).toEqual(['WorkCancellation']);
    const available = [...state.works.values()].find((w) => w.state === 'available' && w.effectivePriority === 3)!;
    const re = await runAdminAction(runtime, 'reprioritize', { work_ids: [available.workId], priority: 1, reason: 'operator_reprioritized' }, '1001');
    expect(re.receipt?.operations[0]).toMatchObject({ kind: 'WorkPriority', detail: 'priority 3 → 1 (operator_reprioritized)' });
  });
});
