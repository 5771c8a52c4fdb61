/**
 * Normalized lifecycle evidence (contract `provenance.evidence`: "normalized authenticated
 * API/activation/receipt verifier output; source strings do not authenticate"). The
 * repository, workflow, ref and principal always come from the group's frozen profile and
 * the queue repository, never from the caller, so evidence cannot be re-targeted.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Evidence } from '../schema/index.ts';
import { stateOf, type QueueSource } from '../state/source.ts';

export interface EvidenceFacts {
  kind: Evidence['kind'];
  source: Evidence['source'];
  /** Trusted time of the check (ms). */
  checkedAt: number;
  /** The exact native run (always original attempt 1). */
  runId?: string;
  conclusion?: string;
  /** `completed` when the run's original attempt is terminal. */
  completed?: boolean;
  attempts?: number;
  effects?: Evidence['effects'];
  receipt?: string;
}

export function groupEvidence(source: QueueSource, dispatchId: string, facts: EvidenceFacts): JsonObject {
  const state = stateOf(source);
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  const evidence: JsonObject = {
    kind: facts.kind,
    source: facts.source,
    repository: state.repository ?? '',
    workflow: String(group.profile.workflow),
    ref: String(group.profile.ref),
    principal: String(group.profile.principal),
    checked_at: facts.checkedAt,
  };
  if (facts.attempts !== undefined) evidence.attempts = Math.max(1, Math.min(4096, facts.attempts));
  if (facts.effects !== undefined) evidence.effects = facts.effects;
  if (facts.receipt !== undefined) evidence.receipt = facts.receipt;
  if (facts.conclusion !== undefined) evidence.conclusion = facts.conclusion;
  if (facts.completed === true) evidence.status = 'completed';
  if (facts.runId !== undefined) {
    evidence.run_id = facts.runId;
    evidence.run_attempt = 1;
  }
  return evidence;
}
