/**
 * The lifecycle CLI end to end (`--json` receipts): dispatch-and-launch with gate refresh,
 * evidence, worker activation and finish from the job context, Result from receipts,
 * reconciliation, deployment, observe, and the documented failure shapes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operationsRequest } from '../../engine/requests/operations.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import { findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { writeWorkerWorkflow } from '../support/worker-workflow.ts';
import { benchCli as cli, dispatcherEnv, dispatcherRun, isolateBenchEnvironment, workerEnv } from '../support/lifecycle-bench.ts';
import { runFairway } from '../support/cli.ts';
import { countOps, createBench, dispatchPosts, nodes, PRINCIPAL, REPOSITORY, TOKEN, type Bench } from './harness.ts';

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';
const ATTEMPT = '/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}';

let bench: Bench;
isolateBenchEnvironment(() => bench);

describe('fairway lifecycle commands', () => {
  it('launch --next, evidence, activate, finish, result, reconcile --all, deploy and observe', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    dispatcherEnv();
    const launched = await cli(bench, '--request-id', 'cli-d1', 'launch', '--next', '--max-claims', '1');
    expect(launched.code).toBe(0);
    expect(launched.json.grant).toMatchObject({ granted_claims: 1, replayed: false });
    expect(launched.json.launches).toHaveLength(1);
    const [l] = launched.json.launches;
    expect(l).toMatchObject({ outcome: 'bound', state: 'bound', run_id: '9007199254740993' });
    expect((await bench.replayValid()).dispatch(l.dispatch_id)!.sender).toMatchObject({ role: 'dispatcher', workflow: '.github/workflows/dispatcher.yml', run_id: '4001', run_attempt: 1 });
    // Re-running the same request launches nothing new.
    const again = await cli(bench, '--request-id', 'cli-d1', 'launch', '--next');
    expect(again.json).toMatchObject({ grant: { replayed: true }, launches: [] });

    const evidence = await cli(bench, 'evidence', '--dispatch-id', l.dispatch_id);
    expect(evidence.json.groups[0]).toMatchObject({ state: 'bound', run_id: l.run_id, events: [{ state: 'started' }, { state: 'bound' }] });

    const dir = mkdtempSync(join(bench.dir, 'cli-'));
    const assignmentFile = join(dir, 'assignment.json');
    writeFileSync(assignmentFile, String(findRun(bench.fake.state, l.run_id)!.inputs.work_queue_assignment));
    workerEnv(l.run_id);
    const activated = await cli(bench, 'activate', '--assignment', assignmentFile, '--out', join(dir, 'verified.json'));
    expect(activated.json).toMatchObject({ ok: true, binding: 'already_bound', handles: ['h1'] });
    const finished = await cli(bench, 'finish', '--dispatch-id', l.dispatch_id, '--handle', 'h1', '--outcome', 'completed');
    expect(finished.json).toMatchObject({ ok: true, status: 'committed' });
    const claimId = activated.json.assignment.claims[0].claim_id;
    writeFileSync(join(dir, 'descriptor.json'), JSON.stringify({ summary: 'done', run_id: l.run_id }));
    writeFileSync(join(dir, 'unverified.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: l.dispatch_id, claim_id: claimId, run_id: l.run_id, complete: false, outputs: [] }));
    const refused = await cli(bench, 'result', '--claim-id', claimId, '--descriptor', join(dir, 'descriptor.json'), '--evidence', join(dir, 'unverified.json'));
    expect(refused).toMatchObject({ code: 3, json: { ok: false, error: { code: 'delivery_unverified' } } });
    writeFileSync(join(dir, 'receipts.json'), JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: l.dispatch_id, claim_id: claimId, run_id: l.run_id, complete: true, outputs: [] }));
    const result = await cli(bench, 'result', '--claim-id', claimId, '--descriptor', join(dir, 'descriptor.json'), '--evidence', join(dir, 'receipts.json'));
    expect(result.json).toMatchObject({ ok: true, outcome: 'result', verified: true });

    setRunStatus(bench.fake.state, l.run_id, 'completed', 'success');
    const reconciled = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(reconciled.json.reconciled).toEqual([expect.objectContaining({ dispatch_id: l.dispatch_id, outcome: 'released', state: 'released' })]);

    // deploy reads the store's own repository (here the local ledger repository, --repo) at its default branch tip.
    writeWorkerWorkflow(bench.dir);
    writeFileSync(join(bench.dir, 'v2.txt'), 'v2\n');
    execFileSync('git', ['-C', bench.dir, 'add', '-A'], { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
    execFileSync('git', ['-C', bench.dir, 'commit', '-q', '-m', 'v2'], { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
    const v2 = execFileSync('git', ['-C', bench.dir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
    const deployed = await cli(bench, 'deploy', '--from-config');
    expect(deployed.json.deployments).toEqual([expect.objectContaining({ pool: 'default', worker_profile: 'default', status: 'deployed', to: v2, available: true })]);
    const unchanged = await cli(bench, 'deploy', '--from-config', '--pool', 'default');
    expect(unchanged.json.deployments[0].status).toBe('unchanged');

    const observed = await cli(bench, 'observe');
    expect(observed.json).toMatchObject({ ok: true, candidates: 0, commit_id: null });
    const p = await bench.replayValid();
    expect(countOps(p, 'Result')).toBe(1);
    expect(countOps(p, 'Deployment')).toBe(1);
  });

  it('launch --next launches every group on its own: one refused group is reported failed (its error), the others still launch; exit 3 launch_failed with every group\'s report in error.details', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c'), retry: { max_attempts: 1, backoff_seconds: 1 } });
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    dispatcherEnv();
    // The grant of this dispatcher run committed (three groups, each on its last attempt); before
    // its launches, the middle group's closing began: its member was cancelled for exhaustion.
    const [g1, g2, g3] = await bench.grant('cli-d3', 3, 3);
    let p = await bench.projection();
    const claim = p.claim(p.dispatch(g2!)!.claimIds[0]!)!;
    await bench.publisher.publish({
      requestId: 'exhaust-g2', actor: bench.reconciler, now: bench.now,
      prepare: () => operationsRequest('cancel_work', [{ kind: 'WorkCancellation', work_id: claim.workId, reason: 'attempts_exhausted', claim_id: claim.claimId }]),
    });
    // The dispatcher step retried (same request id): the replayed grant's reserved groups launch.
    const launched = await cli(bench, '--request-id', 'cli-d3', 'launch', '--next', '--max-claims', '3', '--max-dispatches', '3');
    expect(launched.code, JSON.stringify(launched.json)).toBe(3);
    expect(launched.json).toMatchObject({ ok: false, error: { code: 'launch_failed', details: { grant: { replayed: true }, failed: [g2], not_attempted: [] } } });
    expect(launched.json.error.details.launches).toEqual([
      expect.objectContaining({ dispatch_id: g1, outcome: 'bound', state: 'bound', posted: true }),
      expect.objectContaining({ dispatch_id: g2, outcome: 'failed', state: 'reserved', posted: false, commits: [], error: expect.objectContaining({ code: 'group_closing' }) }),
      expect.objectContaining({ dispatch_id: g3, outcome: 'bound', state: 'bound', posted: true }),
    ]);
    expect(dispatchPosts(bench.fake)).toBe(2);
    p = await bench.replayValid();
    expect([g1, g2, g3].map((d) => p.dispatch(d!)!.state)).toEqual(['bound', 'reserved', 'bound']);
    // Without --json: every group's line first, then the failure.
    let out = '';
    let err = '';
    const human = await runFairway(['--dir', bench.dir, '--principal', PRINCIPAL, '--request-id', 'cli-d3', 'launch', '--next', '--max-claims', '3', '--max-dispatches', '3'], { out: (t) => (out += t), err: (t) => (err += t) });
    expect(human).toBe(3);
    expect(out).toContain(`${g2}: failed (reserved) group_closing: `);
    expect(err).toMatch(/^fairway: launch_failed: 1 of 1 dispatch group\(s\) failed to launch/);
    expect(dispatchPosts(bench.fake)).toBe(2);
  });

  it('reconcile --all includes reserved groups: reports the one still held and cancels the one whose dispatcher ended', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const live = dispatcherRun(bench);
    const dead = dispatcherRun(bench);
    const [launched, stranded] = await bench.grant('g1', 2, 2, dead.actor);
    const [waiting] = await bench.grant('g2', 1, 1, live.actor);
    await launchGroup(bench.launchDeps(), launched!);
    setRunStatus(bench.fake.state, dead.runId, 'completed', 'failure');
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const all = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(all.code, JSON.stringify(all.json)).toBe(0);
    const byId = new Map((all.json.reconciled as Array<{ dispatch_id: string }>).map((r) => [r.dispatch_id, r]));
    expect([...byId.keys()].sort()).toEqual([launched, stranded, waiting].sort());
    expect(byId.get(launched!)).toMatchObject({ outcome: 'running' });
    expect(byId.get(stranded!)).toMatchObject({ outcome: 'released', dispatcher_run: { run_id: dead.runId, status: 'completed', conclusion: 'failure' } });
    expect(byId.get(waiting!)).toMatchObject({ outcome: 'reserved', dispatcher_run: { run_id: live.runId, status: 'in_progress' } });
    const p = await bench.replayValid();
    expect(countOps(p, 'Release')).toBe(1);
    expect(p.state.outstandingNative.get('default')).toBe(2);
  });

  it('reconcile that leaves a launch unresolved exits 3 (launch_unresolved), its reports in error.details; unreadable evidence is evidence_unavailable; a pass that resolves exits 0', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const [d] = await bench.grant('g1');
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' }); // the run exists, its answer is lost
    expect(await launchGroup(bench.launchDeps(), d!)).toMatchObject({ outcome: 'uncertain' });
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 401, body: { message: 'Bad credentials', documentation_url: 'x' }, times: 2 });
    const json = await cli(bench, 'reconcile', '--all', '--max-polls', '1', '--interval-ms', '0');
    expect(json.code).toBe(3);
    expect(json.json).toMatchObject({
      ok: false,
      error: {
        code: 'launch_unresolved',
        details: {
          unresolved: [{ dispatch_id: d, outcome: 'launch_unresolved', last_error: 'unauthorized', next_action: expect.stringMatching(/capacity is retained/) }],
          reconciled: [expect.objectContaining({ dispatch_id: d, outcome: 'launch_unresolved', state: 'unresolved' })],
          deliveries: [],
        },
      },
    });
    let out = '';
    let err = '';
    const human = await runFairway(['--dir', bench.dir, '--principal', PRINCIPAL, 'reconcile', '--dispatch-id', d!, '--max-polls', '1', '--interval-ms', '0'], { out: (t) => (out += t), err: (t) => (err += t) });
    expect(human).toBe(3);
    expect(out).toContain(`${d}: launch_unresolved (unresolved) last error unauthorized`);
    expect(err).toMatch(/^fairway: launch_unresolved: 1 dispatch group\(s\) left unresolved/);
    expect((await bench.replayValid()).state.outstandingNative.get('default')).toBe(1);
    // Runs readable again: the run binds and is running, a resolved pass.
    const bound = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(bound).toMatchObject({ code: 0, json: { ok: true, reconciled: [{ dispatch_id: d, outcome: 'running', state: 'bound' }] } });
    // Its terminal state cannot be read: not a success either.
    bench.fake.inject({ method: 'GET', path: ATTEMPT, kind: 'status', status: 401, body: { message: 'Bad credentials', documentation_url: 'x' } });
    const blind = await cli(bench, 'reconcile', '--all', '--interval-ms', '0');
    expect(blind).toMatchObject({ code: 3, json: { ok: false, error: { code: 'evidence_unavailable', details: { unresolved: [{ dispatch_id: d, outcome: 'evidence_unavailable' }] } } } });
    setRunStatus(bench.fake.state, bound.json.reconciled[0].run_id, 'completed', 'success');
    expect(await cli(bench, 'reconcile', '--all', '--interval-ms', '0')).toMatchObject({ code: 0, json: { ok: true, reconciled: [{ outcome: 'released' }] } });
  });

  it('usage and protocol failures keep the documented shapes', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    expect(await cli(bench, 'launch')).toMatchObject({ code: 2, json: { ok: false, error: { code: 'option_invalid' } } });
    expect(await cli(bench, 'reconcile')).toMatchObject({ code: 2, json: { error: { code: 'option_invalid' } } });
    dispatcherEnv();
    expect(await cli(bench, 'launch', '--dispatch-id', 'd_nope')).toMatchObject({ code: 3, json: { error: { code: 'unknown_dispatch' } } });
    for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];
    expect(await cli(bench, 'activate', '--assignment', '/nonexistent')).toMatchObject({ code: 2, json: { error: { code: 'context_missing' } } });
    workerEnv('9007199254740993', 2);
    const dir = mkdtempSync(join(bench.dir, 'cli-'));
    writeFileSync(join(dir, 'a.json'), '{"dispatch_id":"x"}');
    expect(await cli(bench, 'activate', '--assignment', join(dir, 'a.json'))).toMatchObject({ code: 3, json: { error: { code: 'assignment_invalid' } } });
    expect(await cli(bench, 'evidence', '--work-id', 'nope')).toMatchObject({ code: 3, json: { error: { code: 'unknown_work' } } });
  });

  it('launch outside a GitHub Actions run refuses with sender_run_missing and writes nothing: a start marker selects one authenticated sender run (spec 7.8)', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const before = (await bench.replayValid()).state.tip;
    const next = await cli(bench, '--request-id', 'laptop-1', 'launch', '--next');
    expect(next).toMatchObject({ code: 2, json: { ok: false, error: { code: 'sender_run_missing' } } });
    expect(next.json.error.message).toContain('GITHUB_RUN_ID');
    // A run id without the workflow is not a sender run either.
    Object.assign(process.env, { GITHUB_RUN_ID: '4001', GITHUB_REPOSITORY: REPOSITORY });
    expect(await cli(bench, '--request-id', 'laptop-2', 'launch', '--next')).toMatchObject({ code: 2, json: { error: { code: 'sender_run_missing' } } });
    const p = await bench.replayValid();
    expect(p.state.tip).toBe(before); // no grant, no marker
    expect(p.state.dispatches.size).toBe(0);
  });
});
