/**
 * The GitHub Actions job context (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, GITHUB_REPOSITORY,
 * GITHUB_WORKFLOW_REF) is parsed strictly by every lifecycle command: a variable set to
 * something GitHub never writes is `context_invalid` naming that variable, an empty one is an
 * absent one (`context_missing`, or `sender_run_missing` for launch), and both are usage errors
 * (exit 2) that change nothing. Real CLI entry point, real local Git queue, GitHub stand-in.
 */
import { describe, expect, it } from 'vitest';
import { benchCli as cli, dispatcherEnv, isolateBenchEnvironment, workerEnv } from '../support/lifecycle-bench.ts';
import { createBench, launchAndActivate, TOKEN, type Bench } from './harness.ts';

let bench: Bench;
isolateBenchEnvironment(() => bench);

const JOB = ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF'];

async function tip(): Promise<string> {
  return (await bench.replayValid()).state.tip!;
}

/** Runs `args` with the job context `set` (after `base()`), restoring nothing: each case sets its own. */
async function withContext(base: () => void, set: Record<string, string>, ...args: string[]) {
  for (const k of JOB) delete process.env[k];
  base();
  Object.assign(process.env, set);
  return cli(bench, ...args);
}

describe('job context parsing', () => {
  it('job-context: launch refuses a malformed or empty GITHUB_* variable as a usage error (exit 2) naming it, and grants nothing', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const before = await tip();
    const invalid: Array<[Record<string, string>, string]> = [
      [{ GITHUB_RUN_ATTEMPT: '0x1' }, 'GITHUB_RUN_ATTEMPT'],
      [{ GITHUB_RUN_ATTEMPT: ' 1 ' }, 'GITHUB_RUN_ATTEMPT'],
      [{ GITHUB_RUN_ATTEMPT: '1e0' }, 'GITHUB_RUN_ATTEMPT'],
      [{ GITHUB_RUN_ATTEMPT: '0' }, 'GITHUB_RUN_ATTEMPT'],
      [{ GITHUB_RUN_ID: 'abc' }, 'GITHUB_RUN_ID'],
      [{ GITHUB_WORKFLOW_REF: 'garbage' }, 'GITHUB_WORKFLOW_REF'],
      [{ GITHUB_REPOSITORY: 'not-a-repository' }, 'GITHUB_REPOSITORY'],
    ];
    for (const [set, variable] of invalid) {
      const r = await withContext(dispatcherEnv, set, '--request-id', `ctx-${variable}`, 'launch', '--next');
      expect(r, `${JSON.stringify(set)}: ${JSON.stringify(r.json)}`).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_invalid', details: { variable } } } });
      expect(r.json.error.message).toContain(variable);
    }
    // Empty is absent: the missing list names it.
    const empty = await withContext(dispatcherEnv, { GITHUB_REPOSITORY: '' }, '--request-id', 'ctx-empty', 'launch', '--next');
    expect(empty, JSON.stringify(empty.json)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'sender_run_missing', details: { missing: ['GITHUB_REPOSITORY'] } } } });
    const emptyRef = await withContext(dispatcherEnv, { GITHUB_WORKFLOW_REF: '' }, '--request-id', 'ctx-empty-ref', 'launch', '--next');
    expect(emptyRef, JSON.stringify(emptyRef.json)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'sender_run_missing', details: { missing: ['GITHUB_WORKFLOW_REF'] } } } });
    expect(await tip()).toBe(before);
    expect((await bench.replayValid()).state.dispatches.size).toBe(0);
    // Control: the well-formed context launches.
    const ok = await withContext(dispatcherEnv, { GITHUB_RUN_ATTEMPT: '1' }, '--request-id', 'ctx-ok', 'launch', '--next');
    expect(ok.json, JSON.stringify(ok.json)).toMatchObject({ ok: true, launches: [{ outcome: 'bound' }] });
  });

  it('job-context: finish and activate take an empty GITHUB_REPOSITORY as context_missing and a hex attempt as context_invalid, both exit 2, and write nothing', async () => {
    bench = await createBench();
    Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: bench.fake.url });
    const [d] = await bench.grant('g1');
    const run = await launchAndActivate(bench, d!);
    const before = await tip();
    const worker = () => workerEnv(run);
    const finish = ['finish', '--dispatch-id', d!, '--handle', 'h1', '--outcome', 'completed'];
    expect(await withContext(worker, { GITHUB_REPOSITORY: '' }, ...finish)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_missing' } } });
    expect(await withContext(worker, { GITHUB_RUN_ATTEMPT: '0x1' }, ...finish)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_invalid', details: { variable: 'GITHUB_RUN_ATTEMPT' } } } });
    expect(await withContext(worker, { GITHUB_WORKFLOW_REF: 'garbage' }, ...finish)).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_invalid', details: { variable: 'GITHUB_WORKFLOW_REF' } } } });
    expect(await withContext(worker, { GITHUB_REPOSITORY: '' }, 'activate', '--assignment', '/nonexistent')).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_missing' } } });
    expect(await withContext(worker, { GITHUB_RUN_ATTEMPT: ' 1 ' }, 'activate', '--assignment', '/nonexistent')).toMatchObject({ code: 2, json: { ok: false, error: { code: 'context_invalid', details: { variable: 'GITHUB_RUN_ATTEMPT' } } } });
    expect(await tip()).toBe(before);
    // Control: the well-formed context finishes.
    expect((await withContext(worker, {}, ...finish)).json).toMatchObject({ ok: true, status: 'committed' });
  });
});
