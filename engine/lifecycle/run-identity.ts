/**
 * Native run identity against a group's frozen approved profile (spec 7.8 "Run binding",
 * contract `provenance.native_correlation`): repository, workflow path, immutable head
 * revision, `workflow_dispatch` event, launch principal (actor and triggering actor) and
 * original attempt 1, plus the complete delimited dispatch id in the display title. The
 * title alone is correlation, never authentication.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { DispatchRecord } from '../state/state.ts';

/** Normalized facts of one native run attempt, as read from the run API. */
export interface NativeRunFacts {
  run_id: string;
  run_attempt: number;
  /** `owner/name` of the run's repository. */
  repository: string;
  /** Workflow file path as reported (`.github/workflows/x.yml`, possibly `@ref`-suffixed). */
  workflow_path: string;
  head_sha: string;
  event: string;
  actor_id: string;
  triggering_actor_id: string | null;
  display_title: string;
  status: string | null;
  conclusion: string | null;
}

export type RunMismatch =
  | 'run_repository_mismatch'
  | 'run_workflow_mismatch'
  | 'run_ref_mismatch'
  | 'run_event_mismatch'
  | 'run_principal_mismatch'
  | 'run_attempt_invalid'
  | 'run_title_mismatch';

/** The delimited correlation token a worker's run name carries: `[<dispatch_id>]`. */
export function titleToken(dispatchId: string): string {
  if (/[[\]\s]/.test(dispatchId)) fail('dispatch_id_invalid', `dispatch id ${dispatchId} cannot be delimited in a run title`);
  return `[${dispatchId}]`;
}

/** True when the title names exactly this dispatch id (never a prefix of another id). */
export function titleNames(title: string, dispatchId: string): boolean {
  return title.includes(titleToken(dispatchId));
}

/** `owner/repo/.github/workflows/x.yml@ref` and `.github/workflows/x.yml` name the same file. */
export function workflowFile(path: string, repository: string): string {
  let p = path.replace(/@[^@]*$/, '');
  if (p.toLowerCase().startsWith(`${repository.toLowerCase()}/`)) p = p.slice(repository.length + 1);
  return p;
}

export interface IdentityOptions {
  /** `false` when validating the attempt-1 view of a run that was re-run since. */
  requireFirstAttempt?: boolean;
}

export function runMismatches(group: DispatchRecord, repository: string, run: NativeRunFacts, options: IdentityOptions = {}): RunMismatch[] {
  const profile = group.profile;
  const out: RunMismatch[] = [];
  if (run.repository.toLowerCase() !== repository.toLowerCase()) out.push('run_repository_mismatch');
  if (workflowFile(run.workflow_path, run.repository) !== profile.workflow) out.push('run_workflow_mismatch');
  if (run.head_sha !== profile.ref) out.push('run_ref_mismatch');
  if (run.event !== 'workflow_dispatch') out.push('run_event_mismatch');
  if (run.actor_id !== profile.principal || (run.triggering_actor_id !== null && run.triggering_actor_id !== profile.principal && run.run_attempt === 1)) {
    out.push('run_principal_mismatch');
  }
  if ((options.requireFirstAttempt ?? true) && run.run_attempt !== 1) out.push('run_attempt_invalid');
  if (!titleNames(run.display_title, group.dispatchId)) out.push('run_title_mismatch');
  return out;
}

/** The RunBinding of a validated run: original attempt 1 of a workflow_dispatch run. */
export function runBinding(group: DispatchRecord, repository: string, runId: string): JsonObject {
  return {
    run_id: runId,
    run_attempt: 1,
    repository,
    workflow: String(group.profile.workflow),
    ref: String(group.profile.ref),
    principal: String(group.profile.principal),
    event: 'workflow_dispatch',
  };
}
