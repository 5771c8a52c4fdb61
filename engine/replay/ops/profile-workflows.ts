/**
 * The workflow a Policy worker profile names. The spec is silent and the reference's JSON Schema
 * only asks for an identity, but the reference's replay (gh-aw `validatePolicy`) refuses a profile
 * whose workflow is not under `.github/workflows/`, not a compiled `.lock.yml`, or contains `..`
 * as `policy_invalid`. Replay checks the same here, with two deliberate differences (named by
 * tests/conformance/profile-workflow.test.ts):
 * - any `.yml`/`.yaml`, not only `.lock.yml`: Fairway runs uncompiled workers (README "Worker routes");
 * - directly under `.github/workflows/`: launch dispatches only the file name
 *   (`POST .../actions/workflows/{file}/dispatches`) while deploy verifies the full path, so a
 *   deeper path would have them disagree (and GitHub runs no workflow from a subdirectory).
 * The one rule for every path that installs a Policy: replay (`policyIncoherence`) and the request
 * builders (`policyRequest`, `bootstrapRequest`), so the CLI, console and MCP bootstrap refuse alike.
 */
import { fail } from '../../errors.ts';

const DIRECTLY_UNDER_WORKFLOWS = /^\.github\/workflows\/[^/\\]+\.ya?ml$/;

/** Whether `workflow` names a workflow file directly under .github/workflows/ (.yml/.yaml, no `..`). */
export function isProfileWorkflow(workflow: string): boolean {
  return DIRECTLY_UNDER_WORKFLOWS.test(workflow) && !workflow.includes('..');
}

export interface PolicyWorkflowProblem {
  /** The field, e.g. `pools.default.profiles.default.workflow`. */
  path: string;
  message: string;
}

/**
 * The first profile of `policy` whose workflow breaks the rule (null: none). Reads any JSON
 * (a builder may get an unvalidated Policy): shapes other than pools → profiles → string
 * workflow are the schema's to refuse.
 */
export function policyWorkflowProblem(policy: unknown): PolicyWorkflowProblem | null {
  const pools = (policy as { pools?: unknown } | null)?.pools;
  if (pools === null || typeof pools !== 'object') return null;
  for (const [pool, entry] of Object.entries(pools)) {
    const profiles = (entry as { profiles?: unknown } | null)?.profiles;
    if (profiles === null || typeof profiles !== 'object') continue;
    for (const [name, profile] of Object.entries(profiles)) {
      const workflow = (profile as { workflow?: unknown } | null)?.workflow;
      if (typeof workflow !== 'string' || isProfileWorkflow(workflow)) continue;
      const path = `pools.${pool}.profiles.${name}.workflow`;
      return { path, message: `${path} ${JSON.stringify(workflow)} must name a workflow file directly under .github/workflows/ ending in .yml or .yaml` };
    }
  }
  return null;
}

/** A builder's refusal of what replay would refuse: `policy_invalid` naming the field, before anything is published. */
export function refuseProfileWorkflows(policy: unknown): void {
  const problem = policyWorkflowProblem(policy);
  if (problem !== null) fail('policy_invalid', problem.message, { path: problem.path });
}
