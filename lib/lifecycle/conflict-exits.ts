/**
 * The two exits of a recorded run binding conflict (spec 7.8 "Recovery must account for every
 * possible launch and verify exact terminal evidence; merely terminating the discovered subset
 * is not proof that no other run exists"; "Do not provide an administrative force-release
 * shortcut while a run may still execute"; replay rules in engine/replay/ops/conflict.ts).
 *
 * - `settleConflict` (reconcile): re-discovers every possible launch (the recorded candidates
 *   and fresh paged discovery). Only when each one's original attempt is completed does it
 *   record their exact terminal evidence and release the group once; otherwise the
 *   reservation stays.
 * - `resolveConflict` (operator): an administrator binds one recorded candidate whose native
 *   identity still matches the approved launch; the group then follows that run and is
 *   released only on its exact terminal evidence, like any bound group.
 */
import { fail } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';
import { candidateTerminalRequest, conflictRecorded, resolutionRequest } from '../../engine/lifecycle/dispatch.ts';
import { groupEvidence } from '../../engine/lifecycle/evidence.ts';
import { conflictTerminalRequestId, resolveRequestId } from '../../engine/lifecycle/ids.ts';
import { possibleLaunches, type Candidate } from '../../engine/lifecycle/reconcile.ts';
import { runMismatches } from '../../engine/lifecycle/run-identity.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { readStatusOf, type GitHubApi } from '../github/api.ts';
import { launchCandidates } from '../github/candidates.ts';
import { closeGroup } from './closing.ts';
import { coordsOf, getFirstAttempt } from '../github/runs.ts';
import { publishTransition } from '../publisher/requests.ts';

export interface ConflictSettlement {
  outcome: 'released' | 'already_released' | 'run_binding_conflict' | 'evidence_unavailable';
  candidates: Candidate[];
  /** Candidates without exact terminal evidence yet (an unnamed `+N` counted as `N unnamed`). */
  open: string[];
  last_error: string | null;
  commits: string[];
}

function terminal(c: Candidate): boolean {
  return c.run.status === 'completed' && c.run.conclusion !== null;
}

export async function settleConflict(publisher: Publisher, api: GitHubApi, reconciler: PublishingActor, dispatchId: string, now?: () => number): Promise<ConflictSettlement> {
  const out: ConflictSettlement = { outcome: 'run_binding_conflict', candidates: [], open: [], last_error: null, commits: [] };
  const { projection } = await publisher.cache.load();
  const group = projection?.dispatch(dispatchId);
  if (projection === null || group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  if (!conflictRecorded(group)) fail('internal_error', `dispatch ${dispatchId} records no run binding conflict`);
  // A checkpoint written before conflicts kept their candidates cannot list them: only the operator's exit remains.
  if (group.conflict === null) return { ...out, open: ['candidates not recorded'] };
  try {
    out.candidates = await launchCandidates(api, projection, dispatchId, { reported: group.conflict.runs });
  } catch (e) {
    out.last_error = readStatusOf(e);
    return { ...out, outcome: 'evidence_unavailable' };
  }
  const possible = possibleLaunches(out.candidates);
  out.open = possible.filter((c) => !terminal(c)).map((c) => c.run.run_id);
  if (group.conflict.unnamed > 0) out.open.push(`${group.conflict.unnamed} unnamed`);
  if (out.open.length > 0) return out;

  const ids = possible.map((c) => c.run.run_id);
  const opts = now === undefined ? {} : { now };
  const recorded = await publishTransition(publisher, conflictTerminalRequestId(dispatchId, ids), reconciler, (s, at) => candidateTerminalRequest(s, dispatchId, possible.map((c) => groupEvidence(s, dispatchId, {
    kind: 'terminal_run', source: 'github_api', checkedAt: at, runId: c.run.run_id, conclusion: c.run.conclusion!, completed: true,
  }))), { tolerate: ['nothing_to_record'], ...opts });
  if (recorded.status === 'committed') out.commits.push(recorded.commitId);
  const last = possible.at(-1)!;
  const closed = await closeGroup(publisher, reconciler, dispatchId, { kind: 'terminal_run', source: 'github_api', runId: last.run.run_id, conclusion: last.run.conclusion!, completed: true }, 'run_terminal', now);
  for (const c of [closed.exhaustion, closed.release]) if (c !== null && c.status === 'committed') out.commits.push(c.commitId);
  return { ...out, outcome: closed.release.status === 'committed' ? 'released' : 'already_released' };
}

export interface Resolution {
  dispatch_id: string;
  run_id: string;
  status: 'resolved' | 'already_resolved';
  commit_id: string;
}

/** An administrator binds recorded candidate `runId` after checking its native identity. */
export async function resolveConflict(publisher: Publisher, api: GitHubApi, administrator: PublishingActor, dispatchId: string, runId: string, now?: () => number): Promise<Resolution> {
  if (administrator.role !== 'administrator') fail('role_not_allowed', 'resolving a run binding conflict is an administrator\'s explicit reconciliation');
  const { projection } = await publisher.cache.load();
  const group = projection?.dispatch(dispatchId);
  if (projection === null || group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const repository = projection.repository ?? '';
  const resolved = projection.request(resolveRequestId(dispatchId, runId));
  if (resolved !== undefined) return { dispatch_id: dispatchId, run_id: runId, status: 'already_resolved', commit_id: resolved.commitId };
  // Clear errors before any GitHub read: the builder checks these again inside the CAS.
  resolutionRequest(projection, dispatchId, runId, { run_id: runId });
  const run = await getFirstAttempt(api, coordsOf(repository), runId);
  const mismatches = runMismatches(group, repository, run);
  if (mismatches.length > 0) fail('run_binding_invalid', `run ${runId} does not match the approved launch: ${mismatches.join(', ')}`, {}, { mismatches });
  const t = await publishTransition(publisher, resolveRequestId(dispatchId, runId), administrator, (s, at) => resolutionRequest(s, dispatchId, runId,
    groupEvidence(s, dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: at, runId }) as JsonObject), now === undefined ? {} : { now });
  if (t.status === 'skipped') fail(t.code, t.message);
  return { dispatch_id: dispatchId, run_id: runId, status: t.status === 'committed' ? 'resolved' : 'already_resolved', commit_id: t.commitId };
}
