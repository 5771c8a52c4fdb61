import { describe, expect, it } from 'vitest';
import { demoRuntime, demoStore } from '../../../tests/support/demo-console.ts';
import { runAdminAction } from './actions.ts';

describe('no-op admin actions are refused before publishing (issue 14 §4)', () => {
  it('reprioritise to the current priority and pause when already paused answer no_change and write nothing', async () => {
    const store = await demoStore('noop');
    const runtime = demoRuntime(store);
    const before = await store.text();
    const work = [...(await runtime.live()).projection.state.works.values()].find((w) => w.state === 'available')!;
    await expect(runAdminAction(runtime, 'reprioritize', { work_ids: [work.workId], priority: work.effectivePriority, reason: 'operator_reprioritized' }, '1001'))
      .rejects.toMatchObject({ code: 'no_change' });
    await expect(runAdminAction(runtime, 'control', { control: 'admission_paused', value: false, reason: 'operator.maintenance' }, '1001'))
      .rejects.toMatchObject({ code: 'no_change' });
    expect(await store.text()).toBe(before);

    // A real change still publishes, and its retry is answered as replayed (not refused as a no-op).
    const body = { control: 'admission_paused' as const, value: true, reason: 'operator.maintenance', request_id: 'noop-retry-check' };
    expect(await runAdminAction(runtime, 'control', body, '1001')).toMatchObject({ status: 'committed' });
    expect(await runAdminAction(runtime, 'control', body, '1001')).toMatchObject({ status: 'request_replayed' });
  });
});
