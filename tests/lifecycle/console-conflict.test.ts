/**
 * Issue 20 §1, the console: a recorded run binding conflict (DispatchRecord.conflict) is shown
 * on the grant's receipt page (lib/console/views/lifecycle.ts `dispatchConflict`, rendered by
 * app/receipts/[requestId]/page.tsx): that it is a run binding conflict, every candidate run with
 * its GitHub link, which candidates have recorded exact terminal evidence, how many the receipt
 * could not name, and the operator's ways out -- also after `fairway compact`, when the conflict
 * record itself lives only in the checkpoint. The ledger is built the way
 * tests/compaction/conflict.test.ts builds it: a lost launch response, a duplicate run, and the
 * first activation recording the conflict, against the local GitHub stand-in.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.ts';
import { candidateTerminalRequest } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/index.ts';
import { conflictTerminalRequestId } from '../../engine/lifecycle/ids.ts';
import { resolveConflict } from '../../lib/lifecycle/conflict-exits.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { publishTransition } from '../../lib/publisher/requests.ts';
import { dispatchConflict } from '../../lib/console/views/lifecycle.ts';
import { receiptView } from '../../lib/console/views/receipt.ts';
import { actions, addRun, setRunStatus, type FakeRun } from '../fake-github/routes-actions.ts';
import { createBench, PRINCIPAL, type Bench } from './harness.ts';
import { activate, duplicateOf, isolateBenchEnvironment, lostLaunch } from '../support/lifecycle-bench.ts';
import { DOTCOM_HOST } from '../../lib/github/host.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const runLink = (id: string) => `https://github.com/acme/queue/actions/runs/${id}`;

let bench: Bench;
isolateBenchEnvironment(() => bench);

async function compact(b: Bench): Promise<void> {
  let out = '';
  const code = await main(['--json', '--repo', b.dir, '--principal', PRINCIPAL, 'compact'], { out: (s) => (out += s), err: () => undefined });
  expect(code).toBe(0);
  expect(JSON.parse(out)).toMatchObject({ ok: true, status: 'committed' });
}

/** A granted group whose lost launch response left two runs with its dispatch id; the first activation records the conflict. */
async function conflicted(b: Bench): Promise<{ d: string; original: FakeRun; duplicate: FakeRun }> {
  const { d, original } = await lostLaunch(b);
  expect(dispatchConflict(await b.replayValid(), d, DOTCOM_HOST)).toBeNull(); // no conflict recorded yet
  const duplicate = duplicateOf(b, original);
  await expect(activate(b, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
  return { d, original, duplicate };
}

describe('the console shows a recorded run binding conflict', () => {
  it('the receipt lists every candidate run with its link, which have exact terminal evidence, the unnamed count and the way out; compaction keeps it; release settles it', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);

    let p = await bench.replayValid();
    // The candidates in their recorded order (the conflict's receipt order).
    const runs = [...p.dispatch(d)!.conflict!.runs];
    expect([...runs].sort()).toEqual([original.id, duplicate.id].sort());
    let v = receiptView(p, 'g1', DOTCOM_HOST)!;
    // On a GitHub Enterprise Server console the candidates link to that server's runs.
    expect(receiptView(p, 'g1', 'ghe.example.com')!.conflicts[0]!.candidates.map((c) => c.runUrl)).toEqual(runs.map((id) => `https://ghe.example.com/acme/queue/actions/runs/${id}`));
    expect(v.compacted).toBeNull();
    expect(v.conflicts).toHaveLength(1);
    expect(v.conflicts[0]).toEqual({
      dispatchId: d, code: 'run_binding_conflict', status: 'open', boundRunId: null, unnamed: 0,
      candidates: runs.map((id) => ({ runId: id, runUrl: runLink(id), terminal: false })),
      wayOut: [
        expect.stringContaining(`fairway reconcile --dispatch-id ${d} --resolve-conflict RUN_ID`),
        expect.stringContaining(`fairway reconcile --dispatch-id ${d} releases the group once GitHub reports every candidate run completed (still without terminal evidence: ${runs.join(', ')})`),
      ],
    });
    expect(v.dispatch!.dispatches[0]).toMatchObject({ dispatch_id: d, status: 'launch_unresolved' });

    // One candidate's exact terminal evidence recorded (as the reconciler records it): only that one is marked.
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    const recorded = await publishTransition(bench.publisher, conflictTerminalRequestId(d, [original.id]), bench.reconciler, (s, at) => candidateTerminalRequest(s, d, [groupEvidence(s, d, {
      kind: 'terminal_run', source: 'github_api', checkedAt: at, runId: original.id, conclusion: 'success', completed: true,
    })]), { now: bench.now });
    expect(recorded.status).toBe('committed');
    p = await bench.replayValid();
    v = receiptView(p, 'g1', DOTCOM_HOST)!;
    expect(v.conflicts[0]!.status).toBe('open');
    expect(v.conflicts[0]!.candidates.map((c) => [c.runId, c.terminal])).toEqual(runs.map((id) => [id, id === original.id]));
    expect(v.conflicts[0]!.wayOut[1]).toContain(`(still without terminal evidence: ${duplicate.id})`);

    // After compaction the grant's commit and the conflict record are gone; the checkpoint keeps the conflict.
    await compact(bench);
    p = await bench.replayValid();
    expect(p.state.commits[0]!.kind).toBe('checkpoint');
    v = receiptView(p, 'g1', DOTCOM_HOST)!;
    expect(v.compacted).toMatchObject({ code: 'history_compacted' });
    expect(v.conflicts).toHaveLength(1);
    expect(v.conflicts[0]).toMatchObject({ dispatchId: d, code: 'run_binding_conflict', status: 'open', unnamed: 0 });
    expect(v.conflicts[0]!.candidates).toEqual(runs.map((id) => ({ runId: id, runUrl: runLink(id), terminal: id === original.id })));
    expect(v.conflicts[0]!.wayOut[1]).toContain(`(still without terminal evidence: ${duplicate.id})`);
    expect(v.conflicts[0]!.wayOut[0]).toContain(`--dispatch-id ${d} --resolve-conflict RUN_ID`);

    // Every candidate completed: reconcile releases once; the view shows the settled conflict, with no way out left to take.
    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'released' });
    v = receiptView(await bench.replayValid(), 'g1', DOTCOM_HOST)!;
    expect(v.conflicts[0]).toMatchObject({ status: 'released', boundRunId: null, wayOut: [] });
    expect(v.conflicts[0]!.candidates.every((c) => c.terminal)).toBe(true);
  });

  it('an administrator\'s resolution shows the conflict resolved and the bound candidate, before and after compaction', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);
    expect((await resolveConflict(bench.publisher, bench.api, bench.admin, d, duplicate.id, bench.now)).status).toBe('resolved');
    for (const round of ['before', 'after']) {
      if (round === 'after') await compact(bench);
      const c = dispatchConflict(await bench.replayValid(), d, DOTCOM_HOST)!;
      expect(c).toMatchObject({ status: 'resolved', boundRunId: duplicate.id, wayOut: [] });
      expect(c.candidates.map((k) => k.runId).sort()).toEqual([original.id, duplicate.id].sort());
    }
  });

  it('a receipt that could not name every candidate shows the unnamed count, and only the administrator\'s exit is offered', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const original = actions(bench.fake.state).runs.at(-1)!;
    // 20 runs of 16-digit ids do not fit the 256-byte receipt: its `+N` counts the rest.
    for (let i = 0; i < 19; i++) addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: original.displayTitle });
    // The reconciler records the conflict (a worker records it only when the receipt names its own run).
    expect(await reconcileDispatch(bench.reconcileDeps(), d!)).toMatchObject({ outcome: 'run_binding_conflict' });
    const p = await bench.replayValid();
    const recorded = p.dispatch(d!)!.conflict!;
    expect(recorded.unnamed).toBeGreaterThan(0);
    const c = dispatchConflict(p, d!, DOTCOM_HOST)!;
    expect(c).toMatchObject({ status: 'open', unnamed: recorded.unnamed });
    expect(c.candidates.map((k) => k.runId)).toEqual(recorded.runs);
    expect(c.candidates.length + c.unnamed).toBe(20);
    expect(c.wayOut).toEqual([
      expect.stringContaining(`fairway reconcile --dispatch-id ${d!} --resolve-conflict RUN_ID`),
      `The receipt could not name ${recorded.unnamed} candidate run(s), so the terminal exit is closed: only the administrator's resolution is left.`,
    ]);
  });
});
