/**
 * Reading what decides a reserved group's recovery (engine/lifecycle/prelaunch.ts): the exact
 * dispatcher run attempt its grant names, as GitHub reports it now. An explicit
 * `--cancel-reserved` and a grant that names no run need no GitHub call.
 */
import { decideReserved, grantingRun, grantingRunView, type GrantingRunView, type ReservedDecision } from '../../engine/lifecycle/prelaunch.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { readStatusOf, type GitHubApi } from '../github/api.ts';
import { coordsOf, getAttempt } from '../github/runs.ts';

export interface ReservedRecovery {
  decision: ReservedDecision;
  /** The granting dispatcher run attempt as read, or null (none named, not read, or unreadable). */
  dispatcherRun: GrantingRunView | null;
  readError: string | null;
}

export async function reservedRecovery(api: GitHubApi, projection: Projection, dispatchId: string, cancelReserved: boolean): Promise<ReservedRecovery> {
  const granting = cancelReserved ? null : grantingRun(projection, dispatchId);
  let dispatcherRun: GrantingRunView | null = null;
  let readError: string | null = null;
  if (granting !== null) {
    try {
      dispatcherRun = grantingRunView(granting, await getAttempt(api, coordsOf(granting.repository), granting.run_id, granting.run_attempt));
    } catch (e) {
      readError = readStatusOf(e);
    }
  }
  return { decision: decideReserved({ cancelReserved, granting, granter: dispatcherRun, readError }), dispatcherRun, readError };
}
