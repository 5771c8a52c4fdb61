/**
 * `fairway finish` establishes the worker's run independently, as `activate` does (operator
 * reference: "Worker finish is a Claim-scoped MCP intent, not an operator command that can
 * impersonate a worker ... trusted run evidence must be established independently"). The bound
 * run id is public (`fairway evidence` prints it), so a job context that merely names it -- from
 * another repository, for another workflow, or claiming attempt 1 of a run that was re-run --
 * finishes nothing: `run_binding_invalid`, and the queue branch does not move. Every case runs
 * the real CLI entry point on a real local Git queue with the GitHub stand-in, and ends with the
 * genuine worker context finishing the same member, so each refusal is the context's doing.
 */
import { describe, expect, it } from 'vitest';
import { benchCli as cli, isolateBenchEnvironment, workerEnv } from '../support/lifecycle-bench.ts';
import { countOps, createBench, launchAndActivate, REPOSITORY, TOKEN, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

async function boundWorker(): Promise<{ d: string; run: string; tip: string }> {
  bench = await createBench();
  Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
  const [d] = await bench.grant('g1');
  const run = await launchAndActivate(bench, d!);
  return { d: d!, run, tip: (await bench.replayValid()).state.tip! };
}

function clearJob(): void {
  for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];
}

async function expectUnchanged(tip: string): Promise<void> {
  const p = await bench.replayValid();
  expect(p.state.tip).toBe(tip);
  expect(countOps(p, 'Completion')).toBe(0);
}

/** The genuine worker's own context still finishes the member (the refusal was the forged context's). */
async function genuineFinish(d: string, run: string): Promise<void> {
  clearJob();
  workerEnv(run);
  const ok = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
  expect(ok.json, JSON.stringify(ok.json)).toMatchObject({ ok: true, status: 'committed' });
  expect(countOps(await bench.replayValid(), 'Completion')).toBe(1);
}

describe('fairway finish authenticates the run it finishes for', () => {
  it('finish-auth: a forged job context naming the public bound run from another repository (no workflow ref) is run_binding_invalid and writes nothing', async () => {
    const { d, run, tip } = await boundWorker();
    clearJob();
    Object.assign(process.env, { GITHUB_RUN_ID: run, GITHUB_RUN_ATTEMPT: '1', GITHUB_REPOSITORY: 'mallory/elsewhere' });
    const forged = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
    expect(forged, JSON.stringify(forged.json)).toMatchObject({ code: 3, json: { ok: false, error: { code: 'run_binding_invalid' } } });
    expect(forged.json.error.message).toContain('mallory/elsewhere');
    await expectUnchanged(tip);
    await genuineFinish(d, run);
  });

  it('finish-auth: a job context claiming attempt 1 of a bound run that was re-run is refused by the run API (run_attempt_invalid)', async () => {
    const { d, run, tip } = await boundWorker();
    const rerun = await fetch(`${bench.fake.url}/repos/${REPOSITORY}/actions/runs/${run}/rerun`, { method: 'POST', headers: { authorization: `token ${TOKEN}` } });
    expect(rerun.status).toBe(201);
    // The context claims attempt 1, but GitHub shows attempt 2.
    clearJob();
    Object.assign(process.env, { GITHUB_RUN_ID: run, GITHUB_RUN_ATTEMPT: '1', GITHUB_REPOSITORY: REPOSITORY });
    const forged = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
    expect(forged, JSON.stringify(forged.json)).toMatchObject({ code: 3, json: { ok: false, error: { code: 'run_binding_invalid', details: { mismatches: ['run_attempt_invalid'] } } } });
    await expectUnchanged(tip);
  });

  it('finish-auth: a job context of another workflow (GITHUB_WORKFLOW_REF) is run_binding_invalid (run_workflow_mismatch), for activate-style authentication', async () => {
    const { d, run, tip } = await boundWorker();
    clearJob();
    Object.assign(process.env, { GITHUB_RUN_ID: run, GITHUB_REPOSITORY: REPOSITORY, GITHUB_RUN_ATTEMPT: '1', GITHUB_WORKFLOW_REF: `${REPOSITORY}/.github/workflows/other.yml@refs/heads/main` });
    const forged = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
    expect(forged, JSON.stringify(forged.json)).toMatchObject({ code: 3, json: { ok: false, error: { code: 'run_binding_invalid', details: { mismatches: ['run_workflow_mismatch'] } } } });
    await expectUnchanged(tip);
    await genuineFinish(d, run);
  });

  it('finish-auth: when the run API does not confirm the run (404), finish fails closed and writes nothing', async () => {
    const { d, run, tip } = await boundWorker();
    clearJob();
    workerEnv(run);
    bench.fake.inject({ method: 'GET', path: '/repos/{owner}/{repo}/actions/runs/{run_id}', kind: 'status', status: 404, body: { message: 'Not Found' } });
    const unknown = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
    expect(unknown.code, JSON.stringify(unknown.json)).toBe(3);
    expect(unknown.json.ok).toBe(false);
    await expectUnchanged(tip);
    await genuineFinish(d, run);
  });
});

describe('fairway finish --dispatch-id takes a unique id prefix (README "Ids")', () => {
  it('finish-prefix: a unique 8+ character prefix of the dispatch id finishes the member; a shorter one is id_prefix_short and writes nothing', async () => {
    const { d, run, tip } = await boundWorker();
    clearJob();
    workerEnv(run);
    const short = await cli(bench, 'finish', '--dispatch-id', d.slice(0, 5), '--handle', 'h1', '--outcome', 'completed');
    expect(short, JSON.stringify(short.json)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'id_prefix_short' } } });
    await expectUnchanged(tip);
    const prefix = d.slice(0, 8);
    expect(prefix).not.toBe(d);
    const ok = await cli(bench, 'finish', '--dispatch-id', prefix, '--handle', 'h1', '--outcome', 'completed');
    expect(ok, JSON.stringify(ok.json)).toMatchObject({ code: 0, json: { ok: true, status: 'committed' } });
    expect(countOps(await bench.replayValid(), 'Completion')).toBe(1);
    // The full id replays the same finish.
    const again = await cli(bench, 'finish', '--dispatch-id', d, '--handle', 'h1', '--outcome', 'completed');
    expect(again.json).toMatchObject({ ok: true, status: 'replayed' });
  });
});
