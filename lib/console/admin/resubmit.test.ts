/**
 * "Run it again" (issue 14 §4): a new submission pre-filled from a cancelled
 * Work, a spec 7.15 replacement of a delivery-failed one; history is never
 * rewritten, and the dialog's preview is exactly what publication writes.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReplayState, WorkRecord } from '../../../engine/state/state.ts';
import { MemoryStore } from '../../../tests/support/memory-store.ts';
import { DEMO_NOW, demoRuntime, demoStore } from '../../../tests/support/demo-console.ts';
import { ConsoleRuntime } from '../runtime.ts';
import { runAdminAction } from './actions.ts';
import { previewAdminAction } from './preview.ts';
import { rerunNodeKey, runAgainKind } from '../../../engine/requests/run-again.ts';

const NOW = DEMO_NOW;
let store: MemoryStore;
let runtime: ConsoleRuntime;
let state: ReplayState;

beforeEach(async () => {
  store = await demoStore('run-again');
  runtime = demoRuntime(store);
  // The demo day cancels no Work: cancel one with a dependency, as an operator would.
  const seeded = (await runtime.live()).projection.state;
  const victim = [...seeded.works.values()].find((w) => w.state === 'available' && (w.definition.depends_on as unknown[]).length > 0)!;
  await runAdminAction(runtime, 'cancel-work', { work_ids: [victim.workId], reason: 'operator_cancelled' }, '1001');
  state = (await runtime.live()).projection.state;
});

const find = (f: (w: WorkRecord) => boolean) => [...state.works.values()].find(f)!;

describe('run it again', () => {
  it('a cancelled Work: a new node in the same graph with the same payload, pool, profile, priority, key and dependencies; the old one keeps its history', async () => {
    const old = find((w) => runAgainKind(w) === 'resubmission');
    const key = rerunNodeKey(state, old);
    expect(key).toBe(`${old.nodeKey}-rerun`);
    const body = { work_id: old.workId, node_key: key, reason: 'operator_rerun' };
    const preview = previewAdminAction('run-again', body, state, NOW - 5_000);
    expect(preview.kind).toBe('submit');
    expect(preview.operations).toHaveLength(1);
    const out = await runAdminAction(runtime, 'run-again', { ...body, expect_operations_sha256: preview.operations_sha256 }, '1001');
    expect(out.status).toBe('committed');
    const after = (await runtime.live()).projection.state;
    const fresh = [...after.works.values()].find((w) => w.graphId === old.graphId && w.nodeKey === key)!;
    expect(fresh.state).toBe('available');
    expect(fresh).toMatchObject({ pool: old.pool, workerProfile: old.workerProfile, priority: old.priority, fairnessKey: old.fairnessKey });
    expect(fresh.definition.payload).toEqual(old.definition.payload);
    expect((fresh.definition.depends_on as unknown[]).length).toBe((old.definition.depends_on as unknown[]).length);
    expect(fresh.definition.replacement_of).toBeUndefined();
    expect(after.works.get(old.workId)!.state).toBe('cancelled');
    expect(rerunNodeKey(after, old)).toBe(`${old.nodeKey}-rerun-2`);
  });

  it('a delivery-failed Work: a replacement naming it (disposition, evidence), inheriting pool, priority and key', async () => {
    const old = find((w) => runAgainKind(w) === 'replacement' && ![...state.works.values()].some((r) => (r.definition.replacement_of as { work_id?: string } | undefined)?.work_id === w.workId && r.nodeKey === `${w.nodeKey}-rerun`));
    const body = { work_id: old.workId, node_key: rerunNodeKey(state, old), disposition: 'idempotent' as const, reason: 'ops-review-9' };
    expect(() => previewAdminAction('run-again', { ...body, disposition: undefined }, state)).toThrow(expect.objectContaining({ code: 'request_invalid' }));
    const out = await runAdminAction(runtime, 'run-again', body, '1001');
    expect(out.status).toBe('committed');
    const after = (await runtime.live()).projection.state;
    const fresh = [...after.works.values()].find((w) => w.nodeKey === body.node_key && w.graphId === old.graphId)!;
    expect(fresh.definition.replacement_of).toEqual({ work_id: old.workId, disposition: 'idempotent', evidence: 'ops-review-9' });
    expect(after.works.get(old.workId)!.barrier).toBe('failed');
  });

  it('refuses Work that is not cancelled or delivery-failed, unknown Work and a taken node key, writing nothing', async () => {
    const before = await store.text();
    const live = find((w) => w.state === 'available');
    await expect(runAdminAction(runtime, 'run-again', { work_id: live.workId, node_key: 'x-rerun', reason: 'r' }, '1001')).rejects.toMatchObject({ code: 'work_not_rerunnable' });
    await expect(runAdminAction(runtime, 'run-again', { work_id: 'w_nope', node_key: 'x', reason: 'r' }, '1001')).rejects.toMatchObject({ code: 'unknown_work' });
    const old = find((w) => runAgainKind(w) === 'resubmission');
    // Its own node key names the admitted (cancelled) Work: refused, never re-admitted or rewritten.
    expect(() => previewAdminAction('run-again', { work_id: old.workId, node_key: old.nodeKey, reason: 'r' }, state)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(inconsistent_resubmission|duplicate_node_key)$/) }));
    expect(await store.text()).toBe(before);
  });
});
