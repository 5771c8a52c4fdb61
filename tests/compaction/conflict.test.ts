/**
 * Issue 20 §1: a recorded run binding conflict survives compaction (spec 7.10 "Compaction must
 * preserve ... dispatch bindings", 7.8). The conflict's candidate runs live in the group's
 * checkpoint state, so after `fairway compact` offline `evidence` and `explain` still name
 * both runs, no activation or reconcile can bind either run, and the exact-terminal exit
 * still needs every candidate -- the real CLI on a real local Git repository with the local
 * GitHub stand-in.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { dispatchBound } from '../../engine/requests/lifecycle.ts';
import { bindRequestId } from '../../engine/lifecycle/ids.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { publishTransition } from '../../lib/publisher/requests.ts';
import { actions, addRun, findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { countOps, createBench, PRINCIPAL, type Bench } from '../lifecycle/harness.ts';
import { activate, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';

async function cli(b: Bench, ...args: string[]): Promise<{ code: number; json: any; text: string }> {
  let out = '';
  const code = await main([...args.includes('--text') ? [] : ['--json'], '--repo', b.dir, '--principal', PRINCIPAL, ...args.filter((a) => a !== '--text')], { out: (s) => (out += s), err: () => undefined });
  return { code, json: out === '' || args.includes('--text') ? null : JSON.parse(out), text: out };
}

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('a recorded run binding conflict survives compaction', () => {
  it('conflict -> compact -> offline evidence and explain still name both runs; activation of either run and reconcile are refused; the terminal exit still needs both runs', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const original = actions(bench.fake.state).runs.at(-1)!;
    const duplicate = addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: original.displayTitle });
    await expect(activate(bench, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    const both = [original.id, duplicate.id].sort();

    const compacted = await cli(bench, 'compact');
    expect(compacted.json).toMatchObject({ ok: true, status: 'committed' });
    let p = await bench.replayValid();
    expect(p.state.commits[0]!.kind).toBe('checkpoint');
    expect(countOps(p, 'Dispatch', d!)).toBe(0); // the conflict record itself was compacted away
    expect(p.dispatch(d!)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null, released: false });
    expect([...p.dispatch(d!)!.conflict!.runs].sort()).toEqual(both);

    // Offline (no GitHub credentials in the environment): evidence and explain.
    const evidence = await cli(bench, 'evidence', '--dispatch-id', d!);
    expect(evidence.code).toBe(0);
    expect(evidence.json.groups[0]).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', conflict_open: true });
    expect([...evidence.json.groups[0].conflict_run_ids].sort()).toEqual(both);
    const text = await cli(bench, '--text', 'evidence', '--dispatch-id', d!);
    expect(text.text).toMatch(/run binding conflict: runs \d+, \d+ -- none may bind; capacity stays reserved/);
    const workId = p.claim(p.dispatch(d!)!.claimIds[0]!)!.workId;
    const explained = await cli(bench, 'explain', '--pool', 'default', '--work-id', workId);
    expect(explained.code).toBe(0);
    expect(explained.json.launch).toMatchObject({ dispatch_id: d, state: 'unresolved', conflict_open: true });
    expect([...explained.json.launch.conflict_run_ids].sort()).toEqual(both);

    // No process can bind either run.
    for (const id of both) await expect(activate(bench, id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    for (const id of both) {
      await expect(publishTransition(bench.publisher, bindRequestId(d!, id), bench.reconciler, (s, at) => dispatchBound(s, d!, id, at), { now: bench.now }))
        .rejects.toMatchObject({ code: 'run_binding_conflict' });
    }
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'run_binding_conflict', commits: [] });

    // The terminal exit reads the candidates from the checkpoint: one completed run is not enough.
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'run_binding_conflict', open_candidates: [duplicate.id] });
    // Even if the duplicate's title changes (discovery no longer finds it), the checkpointed list keeps it a candidate.
    findRun(bench.fake.state, duplicate.id)!.displayTitle = 'renamed';
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'run_binding_conflict', open_candidates: [duplicate.id] });
    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'released' });
    p = await bench.replayValid();
    expect(p.dispatch(d!)!.released).toBe(true);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);

    // And a second compaction keeps the settled conflict's record.
    expect((await cli(bench, 'compact')).json.status).toBe('committed');
    const after = await cli(bench, 'evidence', '--dispatch-id', d!);
    expect(after.json.groups[0]).toMatchObject({ state: 'released', conflict_open: false });
    expect([...after.json.groups[0].conflict_terminal_run_ids].sort()).toEqual(both);
  });
});
