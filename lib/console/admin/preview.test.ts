/**
 * Admin dialog previews (issue 14 §4): each target's name, state and owner,
 * the precondition verdict before Confirm, and the exact operations — which
 * publication then writes, or refuses with preview_stale when they changed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReplayState } from '../../../engine/state/state.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { demoRuntime, demoStore } from '../../../tests/support/demo-console.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { runAdminAction } from './actions.ts';
import { operationsDigest, previewAdminAction } from './preview.ts';

let store: MemoryStore;
let runtime: ConsoleRuntime;
let state: ReplayState;

beforeEach(async () => {
  store = await demoStore('preview');
  runtime = demoRuntime(store);
  state = (await runtime.live()).projection.state;
});

const available = () => [...state.works.values()].filter((w) => w.state === 'available');
const claimed = () => [...state.works.values()].find((w) => w.state === 'claimed')!;

describe('admin action previews', () => {
  it('names every target (name, state, priority, owner) and lists the exact operations with their digest', () => {
    const [a, b] = available();
    const c = claimed();
    const p = previewAdminAction('cancel-work', { work_ids: [a!.workId, c.workId], reason: 'operator_cancelled' }, state);
    expect(p.tip).toBe(state.tip);
    expect(p.targets).toEqual([
      { id: a!.workId, kind: 'work', exists: true, name: `${a!.graphId}/${a!.nodeKey}`, state: 'available', priority: a!.effectivePriority, owner: null },
      { id: c.workId, kind: 'work', exists: true, name: `${c.graphId}/${c.nodeKey}`, state: 'claimed', priority: c.effectivePriority, owner: c.currentClaim },
    ]);
    expect(p.operations.map((o) => (o as { kind: string }).kind)).toEqual(['WorkCancellation', 'WorkCancellation']);
    expect(p.operations_sha256).toBe(operationsDigest(p.operations));
    const r = previewAdminAction('reprioritize', { work_ids: [b!.workId], priority: b!.effectivePriority === 1 ? 2 : 1, reason: 'operator_reprioritized' }, state);
    expect(r.operations).toHaveLength(1);
    const claim = previewAdminAction('cancel-claim', { claim_ids: [c.currentClaim!], reason: 'operator_cancelled' }, state);
    expect(claim.targets[0]).toMatchObject({ kind: 'claim', exists: true, name: c.nodeKey, state: 'open', owner: c.workId });
  });

  it('refuses before Confirm what publication would refuse: unknown ids, wrong states, no-ops', () => {
    const a = available()[0]!;
    const c = claimed();
    expect(() => previewAdminAction('cancel-work', { work_ids: ['w_nope'], reason: 'operator_cancelled' }, state)).toThrow(expect.objectContaining({ code: 'unknown_work' }));
    expect(() => previewAdminAction('reprioritize', { work_ids: [c.workId], priority: 1, reason: 'x' }, state)).toThrow(expect.objectContaining({ code: 'work_not_available' }));
    expect(() => previewAdminAction('reprioritize', { work_ids: [a.workId], priority: a.effectivePriority, reason: 'x' }, state)).toThrow(expect.objectContaining({ code: 'no_change' }));
    expect(() => previewAdminAction('control', { control: 'grants_paused', value: state.controls.grants_paused, reason: 'x' }, state)).toThrow(expect.objectContaining({ code: 'no_change' }));
    expect(() => previewAdminAction('cancel-claim', { claim_ids: ['c_nope'], reason: 'x' }, state)).toThrow(expect.objectContaining({ code: 'unknown_claim' }));
  });

  it('publication writes the previewed operations; when the queue moved and they differ it refuses with preview_stale and writes nothing', async () => {
    const [a, b] = available();
    const p = previewAdminAction('cancel-work', { work_ids: [a!.workId], reason: 'operator_cancelled' }, state);
    const done = await runAdminAction(runtime, 'cancel-work', { work_ids: [a!.workId], reason: 'operator_cancelled', expect_operations_sha256: p.operations_sha256 }, '1001');
    expect(done.status).toBe('committed');

    const target = b!.effectivePriority === 1 ? 2 : 1;
    const stale = previewAdminAction('reprioritize', { work_ids: [b!.workId], priority: target, reason: 'operator_reprioritized' }, (await runtime.live()).projection.state);
    // Someone else changes the priority first: the same body now builds a different compare-and-set.
    await runAdminAction(runtime, 'reprioritize', { work_ids: [b!.workId], priority: 5, reason: 'operator_reprioritized' }, '1001');
    const before = await store.text();
    await expect(runAdminAction(runtime, 'reprioritize', { work_ids: [b!.workId], priority: target, reason: 'operator_reprioritized', expect_operations_sha256: stale.operations_sha256 }, '1001'))
      .rejects.toMatchObject({ code: 'preview_stale' });
    expect(await store.text()).toBe(before);
  });
});
