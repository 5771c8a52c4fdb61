/**
 * The worker's run, established independently of its own job context (spec 7.8 "Run binding",
 * operator reference: "trusted run evidence must be established independently"). GITHUB_RUN_ID
 * is public (evidence prints it), so a job context naming the bound run proves nothing by
 * itself: the run must belong to the queue repository and the run API must show that exact run
 * matching the group's frozen profile (repository, workflow, revision, event, principal,
 * original attempt, title). Both `activate` and `finish` authenticate through here.
 */
import { fail } from '../../engine/errors.ts';
import { runMismatches, type NativeRunFacts } from '../../engine/lifecycle/run-identity.ts';
import type { DispatchRecord } from '../../engine/state/state.ts';
import type { GitHubApi } from '../github/api.ts';
import type { ActionsRun } from '../github/context.ts';
import { coordsOf, getRun } from '../github/runs.ts';

/** A job context of another repository names no run of this queue: `run_binding_invalid`, before any read. */
export function refuseForeignRun(run: ActionsRun, repository: string): void {
  if (run.repository.toLowerCase() !== repository.toLowerCase()) fail('run_binding_invalid', `this run belongs to ${run.repository}, not the queue repository ${repository}`);
}

/**
 * Authenticates `run` as a launch of `group` through the run API; any mismatch is
 * `run_binding_invalid` with the mismatches in its details. Returns the native run.
 */
export async function authenticateRun(api: GitHubApi, group: DispatchRecord, repository: string, run: ActionsRun): Promise<NativeRunFacts> {
  refuseForeignRun(run, repository);
  const native = await getRun(api, coordsOf(repository), run.runId);
  const mismatches: string[] = runMismatches(group, repository, native);
  if (native.run_id !== run.runId) mismatches.push('run_repository_mismatch');
  // The job context's own workflow (GITHUB_WORKFLOW_REF), when given, names the same file.
  if (run.workflow !== null && run.workflow !== String(group.profile.workflow) && !mismatches.includes('run_workflow_mismatch')) mismatches.push('run_workflow_mismatch');
  if (mismatches.length > 0) fail('run_binding_invalid', `run ${run.runId} does not match the approved launch: ${mismatches.join(', ')}`, {}, { mismatches });
  return native;
}
