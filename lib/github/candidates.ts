/**
 * Every possible launch of one unbound dispatch group (spec 7.8 "Run binding and bounded
 * reconciliation"): the runs the ledger's evidence named (a POST response, a recorded
 * conflict) read in their original-attempt view, plus the paged discovery of runs whose
 * title carries the exact delimited dispatch id. One module for all three binding paths --
 * reconcile, the worker's activation and the launcher's own binding -- so none of them can
 * bind while a second possible launch is visible (§8.2 "Launch recovery").
 */
import { dispatchHistory } from '../../engine/lifecycle/history.ts';
import type { Candidate } from '../../engine/lifecycle/reconcile.ts';
import { runMismatches, type NativeRunFacts } from '../../engine/lifecycle/run-identity.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { GitHubApi } from './api.ts';
import { coordsOf, discoverRuns, getFirstAttempt } from './runs.ts';

export interface CandidateOptions {
  /** Runs to count as response-named besides those the ledger recorded (e.g. the launcher's fresh response). */
  reported?: readonly string[];
  /** Runs already read (e.g. the activating worker's own run): added when discovery does not list them yet. */
  known?: readonly NativeRunFacts[];
}

/** The group's candidates now; a failed read throws (the caller keeps the reservation). */
export async function launchCandidates(api: GitHubApi, projection: Projection, dispatchId: string, options: CandidateOptions = {}): Promise<Candidate[]> {
  const group = projection.dispatch(dispatchId)!;
  const repository = projection.repository ?? '';
  const where = coordsOf(repository);
  const candidates: Candidate[] = [];
  const add = (run: NativeRunFacts, reported: boolean): void => {
    if (candidates.some((c) => c.run.run_id === run.run_id)) return;
    candidates.push({ run, reported, mismatches: runMismatches(group, repository, run, { requireFirstAttempt: false }) });
  };
  const reported = [...new Set([...dispatchHistory(projection, dispatchId).reportedRunIds, ...(options.reported ?? [])])];
  for (const id of reported) add(await getFirstAttempt(api, where, id), true);
  for (const run of await discoverRuns(api, where, dispatchId, { workflow: String(group.profile.workflow) })) add(run, false);
  for (const run of options.known ?? []) add(run, false);
  return candidates;
}
