/**
 * Issue 20 §1 (spec 7.8 "Multiple matching runs are a binding conflict", §8.2 "Launch
 * recovery": duplicate or conflicting runs retain capacity; neither run may bind). The
 * binding paths that do not go through `reconcile` -- the worker's own activation and the
 * launcher's binding of the run its POST response named -- discover every run carrying the
 * group's dispatch id (the same paged discovery reconcile uses) before proposing
 * Dispatch(bound). Two duplicate runs that both activate before any reconcile: the first
 * activation records the conflict naming both runs, neither binds, the reservation stays.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { launchView } from '../../engine/lifecycle/launch-state.ts';
import type { GitHubApi } from '../../lib/github/api.ts';
import { finishClaim } from '../../lib/lifecycle/finish.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { actions, addRun } from '../fake-github/routes-actions.ts';
import { countOps, createBench, dispatchPosts, type Bench } from './harness.ts';
import { activate, duplicateOf, lastRun, lostLaunch } from '../support/lifecycle-bench.ts';

let bench: Bench;
afterEach(async () => bench?.close());

/** The bench's API, but `before` runs once just before the first read of `route`. */
function apiWithHook(api: GitHubApi, route: string, before: () => void): GitHubApi {
  let done = false;
  return new Proxy(api, {
    get(target, key) {
      if (key === 'get') {
        return async (...args: Parameters<GitHubApi['get']>) => {
          if (!done && args[0] === route) {
            done = true;
            before();
          }
          return target.get(...args);
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('duplicate runs never get authority on the activation and launch paths', () => {
  it('two duplicate runs that both activate before any reconcile: neither binds, the first activation records run_binding_conflict naming both runs', async () => {
    bench = await createBench();
    const { d, original, outcome } = await lostLaunch(bench);
    expect(outcome).toBe('uncertain');
    const duplicate = duplicateOf(bench, original);

    await expect(activate(bench, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    let p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null, released: false });
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([original.id, duplicate.id].sort());

    await expect(activate(bench, duplicate.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    p = await bench.replayValid();
    expect(p.dispatch(d!)!.run).toBeNull();
    expect(countOps(p, 'Dispatch', d!)).toBe(3); // started, uncertain, unresolved(conflict): nothing else
    expect(p.state.outstandingNative.get('default')).toBe(1);
    // Neither run's finish is accepted: no binding, no Completion authority.
    const claim = p.dispatch(d!)!.claimIds[0]!;
    for (const run of [original, duplicate]) {
      await expect(finishClaim(bench.publisher, bench.api, bench.jobContext(run.id), { dispatch_id: d!, claim_handle: p.claim(claim)!.handle, outcome: 'completed' }, bench.now))
        .rejects.toMatchObject({ code: expect.stringMatching(/run_binding|not_bound|dispatch_unbound/) as unknown as string });
    }
    expect(countOps(await bench.replayValid(), 'Completion')).toBe(0);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('the duplicate activating first is refused the same way (order does not matter)', async () => {
    bench = await createBench();
    const { d, original } = await lostLaunch(bench);
    const duplicate = duplicateOf(bench, original);
    await expect(activate(bench, duplicate.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    await expect(activate(bench, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    const p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null });
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([original.id, duplicate.id].sort());
  });

  it('discovery is paged: a duplicate beyond the first page of 100 runs still makes activation a conflict', async () => {
    bench = await createBench();
    const { d, original } = await lostLaunch(bench);
    const duplicate = duplicateOf(bench, original);
    // 120 newer unrelated dispatch runs of the worker workflow push both candidates to page 2.
    for (let i = 0; i < 120; i++) addRun(bench.fake.state, { ...original, inputs: {}, displayTitle: `worker unrelated ${i}` });
    await expect(activate(bench, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    const p = await bench.replayValid();
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([original.id, duplicate.id].sort());
    const pages = bench.fake.requests.filter((r) => r.template === '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs');
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });

  it('control: a single run carrying the dispatch id activates and binds', async () => {
    bench = await createBench();
    const { d, original } = await lostLaunch(bench);
    await expect(activate(bench, original.id)).resolves.toMatchObject({ binding: 'bound_now', run_id: original.id });
    expect((await bench.replayValid()).dispatch(d!)!.state).toBe('bound');
  });

  it('launch: a duplicate visible when the launcher verifies its response-named run is a conflict, not a binding', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    const api = apiWithHook(bench.api, '/repos/{owner}/{repo}/actions/runs/{run_id}', () => { duplicateOf(bench, lastRun(bench)); });
    const launch = await launchGroup(bench.launchDeps({ api }), d!);
    expect(launch).toMatchObject({ outcome: 'run_binding_conflict', state: 'unresolved', reason: 'run_binding_conflict' });
    expect(launch.next_action).toContain(`fairway evidence --dispatch-id ${d!}`);
    const runs = actions(bench.fake.state).runs.map((r) => r.id);
    const p = await bench.replayValid();
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null });
    expect(launchView(p, d!).conflict_run_ids.sort()).toEqual([...runs].sort());
    for (const id of runs) await expect(activate(bench, id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('race: a duplicate created after the first activation bound gets no authority; the bound run keeps it and the reservation follows the bound run', async () => {
    bench = await createBench();
    const { d, original } = await lostLaunch(bench);
    await expect(activate(bench, original.id)).resolves.toMatchObject({ binding: 'bound_now' });
    const late = duplicateOf(bench, original);
    await expect(activate(bench, late.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    // Re-activation of the bound run still works (idempotent), and reconcile keeps the slot while it runs.
    await expect(activate(bench, original.id)).resolves.toMatchObject({ binding: 'already_bound' });
    const r = await reconcileDispatch(bench.reconcileDeps(), d!);
    expect(r).toMatchObject({ outcome: 'running', state: 'bound', run_id: original.id });
    const p = await bench.replayValid();
    expect((p.dispatch(d!)!.run as { run_id: string }).run_id).toBe(original.id);
    const claim = p.dispatch(d!)!.claimIds[0]!;
    await expect(finishClaim(bench.publisher, bench.api, bench.jobContext(late.id), { dispatch_id: d!, claim_handle: p.claim(claim)!.handle, outcome: 'completed' }, bench.now))
      .rejects.toMatchObject({ code: expect.stringMatching(/run_binding|not_bound/) as unknown as string });
    expect(p.state.outstandingNative.get('default')).toBe(1);
  });
});
