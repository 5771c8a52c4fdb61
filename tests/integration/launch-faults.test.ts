/**
 * Fault campaign: a dispatcher dies in the middle of `fairway launch --next` (spec 7.8 "A
 * dispatcher crash after reservation must leave a recoverable reservation", 7.18 "Operator
 * accidentally stops a run"). Real `fairway` processes (bin/fairway.js) publish to a real
 * local Git queue; the GitHub stand-in (tests/fake-github, OpenAPI-validated) hangs the
 * second workflow_dispatch POST and the dispatcher is killed with SIGKILL while it waits.
 * The grant reserved three groups: one launched and bound, one started with its POST in
 * flight, one never started. `fairway reconcile --all` must account for each: bind the
 * possible launch without resending, report `launch_unresolved` (exit 3) while GitHub cannot
 * be read, prelaunch-cancel the never-started group once the granting dispatcher run is
 * terminal (its Claim cancelled with trusted backoff), and release the launched ones on
 * their exact terminal evidence; afterwards the Work is granted again.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRun, setRunStatus } from '../fake-github/routes-actions.ts';
import { countOps, createBench, dispatchPosts, nodes, PRINCIPAL, REPOSITORY, TOKEN, type Bench } from '../lifecycle/harness.ts';
import { dispatcherRun, DISPATCHER_WORKFLOW, isolateBenchEnvironment } from '../support/lifecycle-bench.ts';
import { captured } from '../support/spawn.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'fairway.js');
const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';
const WORKFLOW_RUNS = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs';

let bench: Bench;
isolateBenchEnvironment(() => bench);

/** The environment of a step of the dispatcher's (or reconciler's) Actions run `runId`. */
function stepEnv(b: Bench, runId: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('GITHUB_') || k.startsWith('FAIRWAY_') || k === 'GH_TOKEN') delete env[k];
  return Object.assign(env, {
    GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: b.fake.url,
    GITHUB_RUN_ID: runId, GITHUB_RUN_ATTEMPT: '1', GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_REF: `${REPOSITORY}/${DISPATCHER_WORKFLOW}@refs/heads/main`,
  });
}

function argv(b: Bench, args: string[]): string[] {
  return [BIN, '--json', '--dir', b.dir, '--principal', PRINCIPAL, ...args];
}

/** One `fairway` process run to its end. */
async function fairway(b: Bench, runId: string, ...args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  const r = await captured(process.execPath, argv(b, args), stepEnv(b, runId));
  return { code: r.code, json: r.stdout === '' ? null : JSON.parse(r.stdout), stderr: r.stderr };
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('fault campaign: the dispatcher dies mid-launch', () => {
  it('SIGKILL while the second of three POSTs hangs: reconcile --all binds the possible launch without resending, reports launch_unresolved (exit 3) while its runs cannot be read, prelaunch-cancels the never-started group once its dispatcher run is terminal, releases each group once; the Work is granted again after backoff', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c'), retry: { max_attempts: 3, backoff_seconds: 1 } });
    const first = dispatcherRun(bench).runId;
    // The second POST reaches GitHub (its run is created) but its answer never comes back.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'hang', process: true, after: 1 });
    const child = spawn(process.execPath, argv(bench, ['--request-id', `dispatch-${first}-1`, 'launch', '--next', '--max-claims', '3', '--max-dispatches', '3']), { env: stepEnv(bench, first), stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    await until('the second dispatch POST', () => dispatchPosts(bench.fake) === 2);
    child.kill('SIGKILL');
    await exited;

    let p = await bench.replayValid();
    const groups = [...p.dispatches()].map((d) => d.dispatchId);
    expect(groups).toHaveLength(3);
    const [g1, g2, g3] = groups as [string, string, string];
    expect([g1, g2, g3].map((d) => p.dispatch(d)!.state)).toEqual(['bound', 'started', 'reserved']);
    expect(p.state.outstandingNative.get('default')).toBe(3);
    const run1 = (p.dispatch(g1)!.run as { run_id: string }).run_id;

    // The killed dispatcher's Actions job ends; the reconciler's token cannot list runs in its first pass.
    setRunStatus(bench.fake.state, first, 'completed', 'cancelled');
    bench.fake.inject({ method: 'GET', path: WORKFLOW_RUNS, kind: 'status', status: 401, body: { message: 'Bad credentials', documentation_url: 'x' } });
    const blocked = await fairway(bench, '5001', 'reconcile', '--all', '--max-polls', '1', '--interval-ms', '0');
    expect(blocked.code, blocked.stderr).toBe(3);
    expect(blocked.json).toMatchObject({ ok: false, error: { code: 'launch_unresolved' } });
    const firstPass = new Map((blocked.json.error.details.reconciled as Array<{ dispatch_id: string }>).map((r) => [r.dispatch_id, r]));
    expect(firstPass.get(g1)).toMatchObject({ outcome: 'running', run_id: run1 });
    expect(firstPass.get(g2)).toMatchObject({ outcome: 'launch_unresolved', state: 'unresolved', last_error: 'unauthorized' });
    expect(firstPass.get(g3)).toMatchObject({ outcome: 'released', state: 'released', dispatcher_run: { run_id: first, run_attempt: 1, status: 'completed' } });
    expect(blocked.json.error.details.unresolved).toEqual([expect.objectContaining({ dispatch_id: g2, outcome: 'launch_unresolved' })]);
    p = await bench.replayValid();
    expect(p.state.outstandingNative.get('default')).toBe(2);
    const c3 = p.claim(p.dispatch(g3)!.claimIds[0]!)!;
    expect(c3.state).toBe('cancelled');
    expect(p.work(c3.workId)).toMatchObject({ state: 'available', attempts: 1 });

    // Runs readable again: the possible launch binds to the run its lost POST created.
    const second = await fairway(bench, '5002', 'reconcile', '--all', '--interval-ms', '0');
    expect(second.code, JSON.stringify(second.json)).toBe(0);
    const run2 = [...(await bench.projection()).dispatches()].find((d) => d.dispatchId === g2)!.run as { run_id: string };
    expect(second.json.reconciled).toEqual([
      expect.objectContaining({ dispatch_id: g1, outcome: 'running' }),
      expect.objectContaining({ dispatch_id: g2, outcome: 'running', state: 'bound', run_id: run2.run_id }),
    ]);

    // The workers end without finishing: exact terminal evidence releases each group once.
    setRunStatus(bench.fake.state, run1, 'completed', 'success');
    setRunStatus(bench.fake.state, run2.run_id, 'completed', 'failure');
    const third = await fairway(bench, '5003', 'reconcile', '--all', '--interval-ms', '0');
    expect(third.code, JSON.stringify(third.json)).toBe(0);
    expect(third.json.reconciled.map((r: { outcome: string }) => r.outcome)).toEqual(['released', 'released']);
    p = await bench.replayValid();
    for (const d of [g1, g2, g3]) expect(countOps(p, 'Release', d)).toBe(1);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
    expect(dispatchPosts(bench.fake)).toBe(2); // the lost POST was never resent, the unstarted group never sent
    expect(findRun(bench.fake.state, run2.run_id)).toBeDefined();
    const works = [...p.works()];
    expect(works.map((w) => [w.state, w.attempts])).toEqual([['available', 1], ['available', 1], ['available', 1]]);

    // After the trusted backoff a new dispatcher run grants and launches all three again.
    await until('the retry backoff', () => works.every((w) => Date.now() > Number(w.retryNotBefore ?? 0)), 10_000);
    const next = dispatcherRun(bench).runId;
    const again = await fairway(bench, next, '--request-id', `dispatch-${next}-1`, 'launch', '--next', '--max-claims', '3', '--max-dispatches', '3');
    expect(again.code, JSON.stringify(again.json)).toBe(0);
    expect(again.json.launches.map((l: { outcome: string }) => l.outcome)).toEqual(['bound', 'bound', 'bound']);
    p = await bench.replayValid();
    expect([...p.works()].map((w) => [w.state, w.attempts])).toEqual([['claimed', 2], ['claimed', 2], ['claimed', 2]]);
  }, 180_000);

  it('a launch that fails midway (its POST times out and the ledger refuses the uncertain record: store_locked, exit 3): reconcile --all keeps the possible launch as launch_unresolved (exit 3, never resent or released) and prelaunch-cancels the never-started group', async () => {
    bench = await createBench({ nodes: nodes('a', 'b', 'c') });
    const { runId } = dispatcherRun(bench);
    // The second POST never reaches a handler and never answers: whether it launched is unknown.
    bench.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'hang', after: 1 });
    const lock = join(bench.dir, '.git', 'refs', 'heads', 'work-queue.lock');
    const launching = fairway(bench, runId, '--request-id', `dispatch-${runId}-1`, 'launch', '--next', '--max-claims', '3', '--max-dispatches', '3', '--timeout-ms', '2000');
    await until('the second dispatch POST', () => dispatchPosts(bench.fake) === 2);
    writeFileSync(lock, ''); // a stale ref lock: the queue cannot be written any more
    const failed = await launching;
    rmSync(lock);
    expect(failed.code, failed.stderr).toBe(3);
    expect(failed.json).toMatchObject({ ok: false, error: { code: 'store_locked' } });
    setRunStatus(bench.fake.state, runId, 'completed', 'failure');

    let p = await bench.replayValid();
    const [g1, g2, g3] = [...p.dispatches()].map((d) => d.dispatchId) as [string, string, string];
    expect([g1, g2, g3].map((d) => p.dispatch(d)!.state)).toEqual(['bound', 'started', 'reserved']);
    // The queue could not be written: the batch stopped there (no further start marker or POST),
    // and still reported every group: the launched one, the one whose POST may have launched,
    // and the one never attempted (with the grant, for the Issue projection and for reconcile).
    expect(failed.json.error.details).toMatchObject({ grant: { granted_claims: 3 }, failed: [g2], not_attempted: [g3] });
    expect(failed.json.error.details.launches).toEqual([
      expect.objectContaining({ dispatch_id: g1, outcome: 'bound', state: 'bound', posted: true }),
      expect.objectContaining({ dispatch_id: g2, outcome: 'failed', state: 'started', posted: true, error: expect.objectContaining({ code: 'store_locked' }) }),
      expect.objectContaining({ dispatch_id: g3, outcome: 'not_attempted', state: 'reserved', posted: false }),
    ]);
    const r = await fairway(bench, '5001', 'reconcile', '--all', '--max-polls', '2', '--interval-ms', '0');
    expect(r.code, r.stderr).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'launch_unresolved', details: { unresolved: [{ dispatch_id: g2, outcome: 'launch_unresolved' }] } });
    expect(r.json.error.details.reconciled.map((x: { dispatch_id: string; outcome: string }) => [x.dispatch_id, x.outcome])).toEqual([[g1, 'running'], [g2, 'launch_unresolved'], [g3, 'released']]);
    p = await bench.replayValid();
    expect(p.dispatch(g2)).toMatchObject({ state: 'unresolved', released: false });
    expect(p.state.outstandingNative.get('default')).toBe(2);
    expect(countOps(p, 'Release')).toBe(1);
    expect(dispatchPosts(bench.fake)).toBe(2);
  }, 120_000);
});
