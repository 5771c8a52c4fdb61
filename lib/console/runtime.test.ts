import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import type { CasOutcome, LedgerSnapshot, LedgerStore } from '../store/types.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { runAdminAction } from './admin/actions.ts';
import { previewLive } from './admin/preview.ts';
import { overviewView } from './views/overview.ts';
import { GET as tipRoute } from '../../app/api/tip/route.ts';
import { GET as targetsRoute } from '../../app/api/targets/route.ts';
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

/** Appends a line the protocol refuses in a new branch version (as a hand edit of the ledger would). */
async function appendRefused(store: MemoryStore): Promise<string> {
  const { version, bytes } = await store.read();
  const next = Buffer.concat([bytes!, Buffer.from('{"not":"a queue commit"}\n')]);
  expect(await store.compareAndSwap(version, next, 'hand edit')).toMatchObject({ status: 'committed' });
  // The ledger's own verdict, as a cold replay (`fairway verify`) gives it.
  let code = '';
  try {
    replayLedger(next);
  } catch (e) {
    code = (e as ProtocolError).code;
  }
  expect(code).not.toBe('');
  return code;
}

const RUNTIME = Symbol.for('fairway.console.runtime');

describe('console runtime', () => {
  it('/api/tip and /api/targets answer a store that cannot be read with 503, its code and a fixed message, never the store\'s text', async () => {
    const flaky = new FlakyStore(await seeded());
    flaky.failing = true;
    (globalThis as Record<symbol, unknown>)[RUNTIME] = new ConsoleRuntime(config, flaky);
    try {
      for (const res of [await tipRoute(), await targetsRoute(new Request('http://127.0.0.1:3000/api/targets?work_id=w'))]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await res.json()).toEqual({ ok: false, error: { code: 'store_unreachable', message: 'the ledger could not be read' } });
      }
    } finally {
      delete (globalThis as Record<symbol, unknown>)[RUNTIME];
    }
  });

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

  it('an invalid commit appended after a good read keeps the last good view, flagged stale with the ledger\'s own verdict (pages, /api/tip, preview)', async () => {
    const store = await seeded();
    const runtime = new ConsoleRuntime(config, store);
    const good = await runtime.live();
    const tip = good.projection.tip;
    const commits = good.projection.commitCount;
    const verdict = await appendRefused(store);
    expect(verdict).not.toBe('projection_invalid');
    for (let read = 0; read < 2; read++) {
      runtime.invalidate();
      const stale = await runtime.live();
      expect(stale.stale).toMatchObject({ code: verdict });
      expect(stale.projection.valid).toBe(true);
      expect(stale.projection.tip).toBe(tip);
      // What the overview page renders from the view.
      const view = await runtime.view();
      expect(overviewView(view.projection, view.asOf).summary).toMatchObject({ tip, commits });
    }
    // The preview refuses with the ledger's verdict, not with a view it cannot vouch for.
    await expect(previewLive(runtime, 'control', { control: 'grants_paused', value: true, reason: 'x' })).rejects.toMatchObject({ code: verdict });
    // GET /api/tip (the real route handler, local mode): the last good tip, flagged stale with the verdict.
    (globalThis as Record<symbol, unknown>)[RUNTIME] = runtime;
    try {
      runtime.invalidate();
      const res = await tipRoute();
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, tip, commits, stale: { code: verdict } });
      // GET /api/targets resolves ids against that same last good view, and says so (the id dialog warns).
      const work = [...good.projection.works()][0]!;
      runtime.invalidate();
      const targets = await targetsRoute(new Request(`http://127.0.0.1:3000/api/targets?work_id=${encodeURIComponent(work.workId)}`));
      expect(targets.status).toBe(200);
      expect(await targets.json()).toMatchObject({ ok: true, tip, stale: { code: verdict }, targets: [{ id: work.workId, exists: true }] });
    } finally {
      delete (globalThis as Record<symbol, unknown>)[RUNTIME];
    }
  });
});
