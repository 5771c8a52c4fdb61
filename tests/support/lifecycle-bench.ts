/**
 * Shared set-up of the tests that drive a lifecycle bench (tests/lifecycle/harness.ts: a real
 * local Git queue and the GitHub stand-in): the real CLI entry point on the bench, the GitHub
 * Actions job a step runs in, a process environment kept clean around every test, and the
 * lost-launch / duplicate-run scenario the run-binding tests start from.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { activateWorker } from '../../lib/lifecycle/activation.ts';
import { launchGroup } from '../../lib/lifecycle/launcher.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { actions, addRun, findRun, setRunStatus, type FakeAttempt, type FakeRun, type FakeWorkflow } from '../fake-github/routes-actions.ts';
import { DEFAULT_USER } from '../fake-github/routes-issues.ts';
import { PRINCIPAL, REPOSITORY, type Bench } from '../lifecycle/harness.ts';
import { runFairway } from './cli.ts';

const JOB_VARIABLES = ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF'];

/**
 * Registers the hooks of a bench test file: no ambient GitHub, Fairway or token variable from
 * the developer's shell, no job context left over from the previous test, `current()`'s bench
 * closed after each test, and the environment restored after the file.
 */
export function isolateBenchEnvironment(current: () => Bench | undefined): void {
  const saved = { ...process.env };
  beforeAll(() => {
    for (const k of Object.keys(process.env)) if (k.startsWith('GITHUB_') || k.startsWith('FAIRWAY_') || k === 'GH_TOKEN') delete process.env[k];
  });
  afterEach(async () => {
    for (const k of JOB_VARIABLES) delete process.env[k];
    await current()?.close();
  });
  afterAll(() => {
    process.env = saved;
  });
}

/** `fairway --json --repo <bench> --principal <bench principal> ...args` through the real entry point. */
export async function benchCli(b: Bench, ...args: string[]): Promise<{ code: number; json: any; err: string }> {
  let out = '';
  let err = '';
  const code = await runFairway(['--json', '--repo', b.dir, '--principal', PRINCIPAL, ...args], { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, json: out === '' ? null : JSON.parse(out), err };
}

/** The GitHub Actions job context of run `runId` of `workflow` in the bench's repository. */
export function jobEnv(runId: string, workflow: string, attempt = 1): void {
  Object.assign(process.env, { GITHUB_RUN_ID: runId, GITHUB_RUN_ATTEMPT: String(attempt), GITHUB_REPOSITORY: REPOSITORY, GITHUB_WORKFLOW_REF: `${REPOSITORY}/${workflow}@refs/heads/main` });
}

/** The dispatcher's own Actions job: its run is the start marker's one sender (spec 7.8). */
export function dispatcherEnv(runId = '4001'): void {
  jobEnv(runId, '.github/workflows/dispatcher.yml');
}

/** A worker run's job context. */
export function workerEnv(runId: string, attempt = 1): void {
  jobEnv(runId, '.github/workflows/worker.lock.yml', attempt);
}

export const DISPATCHER_WORKFLOW = '.github/workflows/dispatcher.yml';

/**
 * A run of the dispatcher workflow in the stand-in (the Actions job a grant or launch step runs
 * in), with `status`, and the dispatcher actor naming it (what its grant commits record).
 */
export function dispatcherRun(b: Bench, status: FakeAttempt['status'] = 'in_progress'): { runId: string; actor: Actor } {
  const workflow: FakeWorkflow = { ...b.workflow, id: 1, path: DISPATCHER_WORKFLOW, name: 'dispatcher' };
  const run = addRun(b.fake.state, { repo: b.repo, workflow, headBranch: 'main', headSha: b.ref, event: 'schedule', actor: DEFAULT_USER, displayTitle: 'dispatcher', inputs: {} });
  setRunStatus(b.fake.state, run.id, status);
  return { runId: run.id, actor: { ...b.dispatcher, workflow: DISPATCHER_WORKFLOW, run_id: run.id, run_attempt: 1 } };
}

/** The newest run of the stand-in. */
export function lastRun(b: Bench): FakeRun {
  return actions(b.fake.state).runs.at(-1)!;
}

/** Someone re-dispatched by hand: same principal, same title, same workflow and inputs. */
export function duplicateOf(b: Bench, run: FakeRun): FakeRun {
  return addRun(b.fake.state, { ...run, inputs: run.inputs, displayTitle: run.displayTitle });
}

/** The worker activation of run `runId` with the assignment that run received. */
export function activate(b: Bench, runId: string) {
  const assignment = JSON.parse(String(findRun(b.fake.state, runId)!.inputs.work_queue_assignment)) as unknown;
  return activateWorker({ publisher: b.publisher, api: b.api, run: b.jobContext(runId), assignment, now: b.now });
}

const DISPATCHES = '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches';

/** Grants `g1` and launches it with the dispatch POST's response lost: the run exists, the launch is uncertain. */
export async function lostLaunch(b: Bench): Promise<{ d: string; original: FakeRun; outcome: string }> {
  const [d] = await b.grant('g1');
  b.fake.inject({ method: 'POST', path: DISPATCHES, kind: 'drop-after' });
  const launch = await launchGroup(b.launchDeps(), d!);
  return { d: d!, original: lastRun(b), outcome: launch.outcome };
}

/** A lost launch plus a duplicate run carrying its dispatch id; the first activation records the run binding conflict. */
export async function conflicted(b: Bench): Promise<{ d: string; original: FakeRun; duplicate: FakeRun }> {
  const { d, original } = await lostLaunch(b);
  const duplicate = duplicateOf(b, original);
  await expect(activate(b, original.id)).rejects.toMatchObject({ code: 'run_binding_conflict' });
  return { d, original, duplicate };
}
