/**
 * Per-Claim finish of an activated worker (spec 7.14): one Completion or
 * ClaimCancellation per original member, each in its own commit, from that member's own
 * scope and the durably bound original attempt. The worker's own job context names the
 * run, but names it only: the run is established independently, as activation establishes
 * it (./run-auth.ts: the queue repository, then the run API against the group's frozen
 * profile), so a public run id in a forged environment finishes nothing. An attempt other
 * than 1 has no authority. Repeating an outcome replays it; a conflicting outcome fails with
 * `request_id_conflict` (the request id is the MCP path's).
 */
import { fail } from '../../engine/errors.ts';
import { finishPlan, type FinishInput } from '../../engine/lifecycle/finish.ts';
import type { Publisher } from '../publisher/publisher.ts';
import type { GitHubApi } from '../github/api.ts';
import type { ActionsRun } from '../github/context.ts';
import { publishTransition, type TransitionOutcome } from '../publisher/requests.ts';
import { debugEvent } from '../debug/log.ts';
import { authenticateRun, refuseForeignRun } from './run-auth.ts';

export async function finishClaim(publisher: Publisher, api: GitHubApi, run: ActionsRun, input: FinishInput, now?: () => number): Promise<TransitionOutcome> {
  if (run.runAttempt !== 1) fail('run_attempt_invalid', `run attempt ${run.runAttempt} cannot finish Claims of the original attempt`);
  const { projection } = await publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'the worker queue does not exist');
  const repository = projection.repository ?? '';
  refuseForeignRun(run, repository);
  const plan = finishPlan(projection, input, run.runId);
  await authenticateRun(api, projection.dispatch(input.dispatch_id)!, repository, run);
  const outcome = await publishTransition(publisher, plan.requestId, plan.actor, plan.build, now === undefined ? {} : { now });
  debugEvent('claims', 'finish', { completed: input.outcome === 'completed', status: outcome.status });
  return outcome;
}
