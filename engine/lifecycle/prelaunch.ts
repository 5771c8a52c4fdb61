/**
 * Recovery of a reserved group that has no start marker (spec 7.8 recovery table "Reserved, no
 * start marker: CAS-commit a start marker and send once, or commit definitive prelaunch
 * cancellation"; 7.18 "Operator accidentally stops a run": "If no start marker exists, checked
 * recovery can resume or definitively cancel prelaunch"), pure.
 *
 * Only a dispatcher naming its own Actions run may commit a start marker (replay's
 * `sender_role_invalid`/`sender_run_missing`), so the reconciler cannot resume the launch
 * itself: its recovery is the prelaunch cancellation, CAS-raced against any start marker. It is
 * taken on request (`--cancel-reserved`) or when GitHub reports terminal the exact dispatcher
 * run attempt whose grant reserved the group: the one process that was going to start it (a
 * `launch --next` that died or failed between its grant and this group's start marker) can no
 * longer do so. A group whose granting dispatcher is still queued/running, or whose grant names
 * no run (a `dispatch-next` grant awaiting `fairway launch --dispatch-id`), keeps its reservation.
 */
import type { Projection } from '../replay/index.ts';
import { workflowFile, type NativeRunFacts } from './run-identity.ts';

/** The exact dispatcher run attempt whose grant reserved a group, as its grant commit names it. */
export interface GrantingRun {
  repository: string;
  workflow: string | null;
  run_id: string;
  run_attempt: number;
}

/** The granting run attempt as GitHub reports it (the reconcile report's `dispatcher_run`). */
export interface GrantingRunView {
  run_id: string;
  run_attempt: number;
  /** The workflow file GitHub reports for the run. */
  workflow: string;
  status: string | null;
  conclusion: string | null;
}

export function grantingRunView(granting: GrantingRun, facts: NativeRunFacts): GrantingRunView {
  return { run_id: granting.run_id, run_attempt: granting.run_attempt, workflow: workflowFile(facts.workflow_path, granting.repository), status: facts.status, conclusion: facts.conclusion };
}

/**
 * The dispatcher run attempt that granted `dispatchId`: the actor of its grant commit, when that
 * actor is a dispatcher naming its Actions run. Null for a grant without a run (published outside
 * Actions, or by a worker's staged intents) and for a grant a checkpoint compacted away.
 */
export function grantingRun(projection: Projection, dispatchId: string): GrantingRun | null {
  const group = projection.dispatch(dispatchId);
  if (group === undefined) return null;
  const actor = projection.commit(group.commitId)?.actor;
  if (actor === undefined || actor.role !== 'dispatcher' || actor.run_id === undefined || actor.run_attempt === undefined) return null;
  return { repository: actor.repository, workflow: actor.workflow ?? null, run_id: actor.run_id, run_attempt: actor.run_attempt };
}

export type ReservedDecision =
  | { action: 'cancel' }
  | { action: 'keep'; next: string };

export const RESERVED_NEXT_ACTION = 'launch it (fairway launch --dispatch-id, from a dispatcher\'s Actions run) or cancel it before any start marker (fairway reconcile --cancel-reserved)';

/**
 * What reconciliation does with a reserved group: cancel prelaunch on request or once the
 * granting dispatcher run attempt is terminal; keep it otherwise. `granter` is GitHub's view of
 * the granting run attempt, or null when there is none or it could not be read (`readError`).
 */
export function decideReserved(input: { cancelReserved: boolean; granting: GrantingRun | null; granter: GrantingRunView | null; readError: string | null }): ReservedDecision {
  if (input.cancelReserved) return { action: 'cancel' };
  const { granting, granter } = input;
  if (granting === null) return { action: 'keep', next: RESERVED_NEXT_ACTION };
  const run = `dispatcher run ${granting.run_id} attempt ${granting.run_attempt}`;
  if (granter === null) return { action: 'keep', next: `${run} that granted it could not be read (${input.readError ?? 'unknown'}): restore GitHub API access, or ${RESERVED_NEXT_ACTION}` };
  // A run of another workflow under that id is not the granting dispatcher: its end proves nothing.
  if (granting.workflow !== null && granter.workflow !== granting.workflow) {
    return { action: 'keep', next: `${run} is a run of ${granter.workflow}, not of the granting ${granting.workflow}; ${RESERVED_NEXT_ACTION}` };
  }
  if (granter.status === 'completed') return { action: 'cancel' };
  return { action: 'keep', next: `${run} that granted it is ${granter.status ?? 'not terminal'} and may still start it; otherwise ${RESERVED_NEXT_ACTION}` };
}
