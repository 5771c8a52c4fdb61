/**
 * Issue 20 §1 "Capacity stays reserved until exact terminal evidence for every candidate run
 * or an operator's explicit reconciliation" (spec 7.8 "Recovery must account for every
 * possible launch and verify exact terminal evidence; merely terminating the discovered
 * subset is not proof that no other run exists"; "Do not provide an administrative
 * force-release shortcut while a run may still execute"). Both exits against the fake GitHub:
 * reconcile releases once every candidate's original attempt is completed; an administrator's
 * `reconcile --resolve-conflict RUN_ID` binds one recorded candidate, and the group is then
 * released on that run's exact terminal evidence only.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchView } from '../../engine/lifecycle/launch-state.ts';
import { resolveConflict } from '../../lib/lifecycle/conflict-exits.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { reconcileDispatch } from '../../lib/lifecycle/reconciler.ts';
import { addRun, findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { runFairway } from '../support/cli.ts';
import { countOps, createBench, dispatchPosts, TOKEN, type Bench } from './harness.ts';
import { activate, benchCli as cli, conflicted, isolateBenchEnvironment, lastRun } from '../support/lifecycle-bench.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('the real entry point: fairway activate from two duplicate runs', () => {
  it('each run\'s fairway activate exits with run_binding_conflict (--json), writes no verified assignment, and fairway evidence names both runs', async () => {
    bench = await createBench();
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
    await launchGroup(bench.launchDeps(), d!);
    const original = lastRun(bench);
    const duplicate = addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: original.displayTitle });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const dir = mkdtempSync(join(bench.dir, 'activate-'));
    const assignment = join(dir, 'assignment.json');
    writeFileSync(assignment, String(original.inputs.work_queue_assignment));
    try {
      for (const run of [original, duplicate]) {
        Object.assign(process.env, { GITHUB_RUN_ID: run.id, GITHUB_RUN_ATTEMPT: '1', GITHUB_REPOSITORY: 'acme/queue', GITHUB_WORKFLOW_REF: 'acme/queue/.github/workflows/worker.lock.yml@refs/heads/main' });
        const out = join(dir, `verified-${run.id}.json`);
        const r = await cli(bench, 'activate', '--assignment', assignment, '--out', out);
        expect(r).toMatchObject({ code: 3, json: { ok: false, error: { code: 'run_binding_conflict' } } });
        expect(existsSync(out)).toBe(false);
      }
    } finally {
      for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];
    }
    const evidence = await cli(bench, 'evidence', '--dispatch-id', d!);
    expect(evidence.json.groups[0]).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', conflict_open: true, run_id: null });
    expect([...evidence.json.groups[0].conflict_run_ids].sort()).toEqual([original.id, duplicate.id].sort());
  });
});

describe('exit 1: exact terminal evidence for every candidate run', () => {
  it('one completed candidate is not enough; once every candidate is completed, reconcile records their terminal evidence and releases once', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    const partial = await reconcileDispatch(bench.reconcileDeps(), d);
    expect(partial).toMatchObject({ outcome: 'run_binding_conflict', state: 'unresolved', open_candidates: [duplicate.id], commits: [] });
    expect(partial.next_action).toContain('--resolve-conflict');
    let p = await bench.replayValid();
    expect(countOps(p, 'Release', d)).toBe(0);
    expect(p.state.outstandingNative.get('default')).toBe(1);

    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'cancelled');
    const done = await reconcileDispatch(bench.reconcileDeps(), d);
    expect(done).toMatchObject({ outcome: 'released', state: 'released', open_candidates: [] });
    p = await bench.replayValid();
    expect(p.dispatch(d)!.released).toBe(true);
    expect(p.dispatch(d)!.conflict).toMatchObject({ terminal: expect.arrayContaining([original.id, duplicate.id]) as unknown as string[] });
    expect(countOps(p, 'Release', d)).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
    // The member Claim never got authority; it is cancelled (retryable), never completed.
    const claim = p.claim(p.dispatch(d)!.claimIds[0]!)!;
    expect(claim.state).toBe('cancelled');
    const view = launchView(p, d);
    expect(view).toMatchObject({ state: 'released', conflict_open: false });
    expect([...view.conflict_terminal_run_ids].sort()).toEqual([original.id, duplicate.id].sort());
    // Release once: a repeat changes nothing.
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'already_released', commits: [] });
    expect(countOps(await bench.replayValid(), 'Release', d)).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(1);
  });

  it('a third possible launch discovered before the release joins the candidates and must be terminal too', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'success');
    const third = addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: original.displayTitle });
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'run_binding_conflict', open_candidates: [third.id] });
    expect(countOps(await bench.replayValid(), 'Release', d)).toBe(0);
    setRunStatus(bench.fake.state, third.id, 'completed', 'failure');
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'released' });
    const p = await bench.replayValid();
    expect([...p.dispatch(d)!.conflict!.runs].sort()).toEqual([original.id, duplicate.id, third.id].sort());
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
  });

  it('a candidate that is unreadable keeps the reservation (evidence_unavailable)', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'success');
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}', kind: 'status', status: 503, body: { message: 'Service Unavailable', documentation_url: 'x' } });
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'evidence_unavailable', state: 'unresolved' });
    expect((await bench.replayValid()).dispatch(d)!.released).toBe(false);
  });
});

describe('exit 2: an administrator binds one candidate (reconcile --resolve-conflict)', () => {
  it('the chosen candidate binds; the other run stays refused; the group is released only on the chosen run\'s exact terminal evidence', async () => {
    bench = await createBench();
    const { d, original, duplicate } = await conflicted(bench);
    const resolution = await resolveConflict(bench.publisher, bench.api, bench.admin, d, original.id, bench.now);
    expect(resolution).toMatchObject({ status: 'resolved', run_id: original.id });
    let p = await bench.replayValid();
    expect(p.dispatch(d)).toMatchObject({ state: 'bound', reason: 'operator_resolved', released: false });
    expect((p.dispatch(d)!.run as { run_id: string }).run_id).toBe(original.id);
    expect(launchView(p, d)).toMatchObject({ conflict_open: false });
    expect([...launchView(p, d).conflict_run_ids].sort()).toEqual([original.id, duplicate.id].sort());
    await expect(activate(bench, duplicate.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
    await expect(activate(bench, original.id)).resolves.toMatchObject({ binding: 'already_bound' });
    // Not a force release: the chosen run is still queued, so the slot is kept.
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'running', state: 'bound' });
    setRunStatus(bench.fake.state, duplicate.id, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'running' });
    setRunStatus(bench.fake.state, original.id, 'completed', 'success');
    expect(await reconcileDispatch(bench.reconcileDeps(), d)).toMatchObject({ outcome: 'released' });
    p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
    // A repeat of the same resolution is idempotent.
    expect(await resolveConflict(bench.publisher, bench.api, bench.admin, d, original.id, bench.now)).toMatchObject({ status: 'already_resolved' });
  });

  it('refuses a run the conflict did not name, a run that does not match the approved launch, a non-administrator, and a group without a conflict', async () => {
    bench = await createBench();
    const { d, original } = await conflicted(bench);
    const foreign = addRun(bench.fake.state, { ...original, inputs: original.inputs, displayTitle: 'worker something else' });
    await expect(resolveConflict(bench.publisher, bench.api, bench.admin, d, foreign.id, bench.now)).rejects.toMatchObject({ code: 'conflict_resolution_invalid' });
    await expect(resolveConflict(bench.publisher, bench.api, bench.reconciler, d, original.id, bench.now)).rejects.toMatchObject({ code: 'role_not_allowed' });
    findRun(bench.fake.state, original.id)!.headSha = '0'.repeat(40);
    await expect(resolveConflict(bench.publisher, bench.api, bench.admin, d, original.id, bench.now)).rejects.toMatchObject({ code: 'run_binding_invalid' });
    const p = await bench.replayValid();
    expect(p.dispatch(d)).toMatchObject({ state: 'unresolved', reason: 'run_binding_conflict', run: null });

    const [other] = await bench.submit('s2', [{ node_key: 'b', payload: { plan: 'b' } }]).then(() => bench.grant('g2'));
    await expect(resolveConflict(bench.publisher, bench.api, bench.admin, other!, original.id, bench.now)).rejects.toMatchObject({ code: 'conflict_resolution_invalid' });
  });

  it('CLI: fairway reconcile --dispatch-id D --resolve-conflict RUN_ID --json answers the resolution and the reconciled state; bad usage is option_invalid', async () => {
    bench = await createBench();
    const { d, original } = await conflicted(bench);
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    expect(await cli(bench, 'reconcile', '--resolve-conflict', original.id)).toMatchObject({ code: 2, json: { error: { code: 'option_invalid' } } });
    expect(await cli(bench, 'reconcile', '--dispatch-id', d, '--resolve-conflict', 'abc')).toMatchObject({ code: 2, json: { error: { code: 'option_invalid' } } });
    const out = await cli(bench, 'reconcile', '--dispatch-id', d, '--resolve-conflict', original.id, '--interval-ms', '0');
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ ok: true, resolution: { dispatch_id: d, run_id: original.id, status: 'resolved' }, reconciled: [{ dispatch_id: d, outcome: 'running', state: 'bound', run_id: original.id }] });
    let help = '';
    await runFairway(['reconcile', '--help'], { out: (s) => (help += s), err: (s) => (help += s) });
    expect(help).toContain('--resolve-conflict');
    expect(help).toContain('Nothing is force-released');
  });
});
