/**
 * Reading what decides a reserved group's recovery (engine/lifecycle/prelaunch.ts): the exact
 * dispatcher run attempt its grant names, as GitHub reports it now. An explicit
 * `--cancel-reserved` and a grant that names no run need no GitHub call.
 *
 * One `launch --next` can reserve up to 256 groups, all granted by the same dispatcher run
 * attempt: a reconciliation pass reads that attempt once (`GrantingRunReads`, keyed by
 * repository, run id and attempt), not once a group. A failed read is kept for the pass too,
 * as the failure it was (its read status), never as a view of the run: every group that run
 * granted is then kept reserved this pass, as a fresh failing read would keep it. The client
 * has already spent its bounded retries on it (spec 7.8 "Reuse bounded backoff for safe
 * reads"); asking again for each of 256 groups would multiply the requests against an outage
 * or a rate limit, and could cancel some of one dispatcher's groups while keeping the others in
 * the same pass. The next pass reads it anew.
 */
import { decideReserved, grantingRun, grantingRunView, type GrantingRun, type GrantingRunView, type ReservedDecision } from '../../engine/lifecycle/prelaunch.ts';
import type { NativeRunFacts } from '../../engine/lifecycle/run-identity.ts';
import type { Projection } from '../../engine/replay/index.ts';
import { readStatusOf, type GitHubApi } from '../github/api.ts';
import { coordsOf, getAttempt } from '../github/runs.ts';

export interface ReservedRecovery {
  decision: ReservedDecision;
  /** The granting dispatcher run attempt as read, or null (none named, not read, or unreadable). */
  dispatcherRun: GrantingRunView | null;
  readError: string | null;
}

/** One read of a granting run attempt: GitHub's facts, or the read status of the failure. */
type GrantingRead = { facts: NativeRunFacts } | { readError: string };

/** A pass's reads of granting dispatcher run attempts (reconcile-batch.ts makes one per pass). */
export type GrantingRunReads = Map<string, Promise<GrantingRead>>;

export function grantingRunReads(): GrantingRunReads {
  return new Map();
}

function readGranting(api: GitHubApi, granting: GrantingRun, reads: GrantingRunReads | undefined): Promise<GrantingRead> {
  const read = (): Promise<GrantingRead> => getAttempt(api, coordsOf(granting.repository), granting.run_id, granting.run_attempt)
    .then((facts) => ({ facts }), (e: unknown) => ({ readError: readStatusOf(e) }));
  if (reads === undefined) return read();
  const key = `${granting.repository}\u0000${granting.run_id}\u0000${granting.run_attempt}`;
  let pending = reads.get(key);
  if (pending === undefined) {
    pending = read();
    reads.set(key, pending);
  }
  return pending;
}

export async function reservedRecovery(api: GitHubApi, projection: Projection, dispatchId: string, cancelReserved: boolean, reads?: GrantingRunReads): Promise<ReservedRecovery> {
  const granting = cancelReserved ? null : grantingRun(projection, dispatchId);
  let dispatcherRun: GrantingRunView | null = null;
  let readError: string | null = null;
  if (granting !== null) {
    const read = await readGranting(api, granting, reads);
    if ('facts' in read) dispatcherRun = grantingRunView(granting, read.facts);
    else readError = read.readError;
  }
  return { decision: decideReserved({ cancelReserved, granting, granter: dispatcherRun, readError }), dispatcherRun, readError };
}
