/**
 * Shared steps of the spec §7.18 end-to-end recovery tests (tests/lifecycle/recovery-*.test.ts):
 * every queue action is the real `fairway` CLI entry point (`--json --dir`) on the bench's real
 * local Git queue, with the GitHub stand-in behind FAIRWAY_GITHUB_API_URL, from the GitHub
 * Actions job context the step would run in (dispatcher, worker or reconciler).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRun } from '../fake-github/routes-actions.ts';
import { PRINCIPAL, TOKEN, type Bench } from '../lifecycle/harness.ts';
import { runFairway } from './cli.ts';
import { dispatcherEnv, workerEnv } from './lifecycle-bench.ts';

export interface Step {
  code: number;
  json: any;
  out: string;
  err: string;
}

/** `fairway --json --dir <bench> --principal <bench principal> ...args` (in-process, the real entry point). */
export async function fw(b: Bench, ...args: string[]): Promise<Step> {
  Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: b.fake.url });
  let out = '';
  let err = '';
  const code = await runFairway(['--json', '--dir', b.dir, '--principal', PRINCIPAL, ...args], { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, json: out === '' ? null : JSON.parse(out), out, err };
}

/** The same command's human output (no --json). */
export async function human(b: Bench, ...args: string[]): Promise<Step> {
  Object.assign(process.env, { GH_TOKEN: TOKEN, FAIRWAY_GITHUB_API_URL: b.fake.url });
  let out = '';
  let err = '';
  const code = await runFairway(['--dir', b.dir, '--principal', PRINCIPAL, ...args], { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
  return { code, json: null, out, err };
}

/** The dispatcher's step: `launch --next` under stable request id `id`. */
export async function launchNext(b: Bench, id: string, claims = 1, dispatches = 1, ...more: string[]): Promise<Step> {
  dispatcherEnv();
  return fw(b, '--request-id', id, 'launch', '--next', '--max-claims', String(claims), '--max-dispatches', String(dispatches), ...more);
}

/** The worker's steps in run `runId`: `activate` with the input that run received; returns the verified assignment. */
export async function activateRun(b: Bench, runId: string, attempt = 1): Promise<Step & { file: string }> {
  const dir = mkdtempSync(join(b.dir, 'worker-'));
  const file = join(dir, 'assignment.json');
  writeFileSync(file, String(findRun(b.fake.state, runId)!.inputs.work_queue_assignment));
  workerEnv(runId, attempt);
  return { ...(await fw(b, 'activate', '--assignment', file)), file };
}

/** A worker's `finish` of member `handle` from its own run. */
export async function finishMember(b: Bench, runId: string, d: string, handle: string, outcome: 'completed' | 'cancelled'): Promise<Step> {
  workerEnv(runId);
  return fw(b, 'finish', '--dispatch-id', d, '--handle', handle, '--outcome', outcome);
}

/** The trusted safe-output step's receipts of Claim `claimId`, written as `<dir>/<claim_id>.json` for `reconcile --receipts`. */
export function writeReceipts(dir: string, d: string, claimId: string, runId: string, outputs: Array<{ type: string; status: string; ref?: string }> = [], complete = true): string {
  const file = join(dir, `${claimId}.json`);
  writeFileSync(file, JSON.stringify({ schema: 'fairway.delivery/1', dispatch_id: d, claim_id: claimId, run_id: runId, complete, outputs }));
  return file;
}

/** A step outside any Actions job (an operator's or reconciler's shell). */
export function noJob(): void {
  for (const k of ['GITHUB_RUN_ID', 'GITHUB_RUN_ATTEMPT', 'GITHUB_REPOSITORY', 'GITHUB_WORKFLOW_REF']) delete process.env[k];
}
