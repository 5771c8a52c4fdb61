/**
 * A recorded run binding conflict and its two exits (spec 7.8 "Multiple matching runs are a
 * binding conflict; reject their still-unverified queue effects and retain the reservation.
 * Recovery must account for every possible launch and verify exact terminal evidence", §8.2
 * "Launch recovery"; docs/launch-recovery.md: "Capacity stays reserved until exact terminal evidence for
 * every candidate run or an operator's explicit reconciliation").
 *
 * - Dispatch(unresolved, run_binding_conflict) names every candidate in its evidence
 *   `receipt` (`run_binding_conflict:<id>,<id>[,+N]`, within the 256-byte Identity bound);
 *   the group keeps the list in its state (`DispatchRecord.conflict`), checkpoints included.
 * - No ordinary binding afterwards (`run_binding_conflict`).
 * - Exit 1, exact terminal evidence: a further Dispatch(unresolved, run_binding_conflict)
 *   whose evidence is one candidate's exact terminal_run evidence records it (a possible
 *   launch discovered later joins the list this way); the Release then needs such evidence
 *   for every candidate (`conflict_evidence_required`); a receipt that could not name every
 *   candidate (`+N`) can only take the operator's exit.
 * - Exit 2, the operator's explicit reconciliation: an administrator's `control` request
 *   binds one named candidate (Dispatch(bound)); the group then follows that run and is
 *   released only on its exact terminal evidence -- never a force release. A resolution
 *   naming no candidate, of a group without a conflict, or of any other shape is
 *   `conflict_resolution_invalid`; from any other role it is an ordinary bind after the
 *   conflict (`run_binding_conflict`).
 */
import { fail } from '../../errors.ts';
import type { Evidence } from '../../schema/index.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import type { DispatchRecord } from '../../state/state.ts';
import { checkEvidenceScope } from './evidence.ts';

/** The reason a recorded run binding conflict carries. */
export const RUN_BINDING_CONFLICT = 'run_binding_conflict';
const PREFIX = `${RUN_BINDING_CONFLICT}:`;

/** The evidence `receipt` naming every conflicting run, within the 256-byte Identity bound. */
export function conflictReceipt(runIds: readonly string[]): string {
  let out = PREFIX;
  for (let i = 0; i < runIds.length; i++) {
    const next = `${out === PREFIX ? '' : ','}${runIds[i]}`;
    const rest = runIds.length - i - 1;
    const tail = rest > 0 ? `,+${rest}` : '';
    if (out.length + next.length + tail.length > 256) return `${out},+${runIds.length - i}`;
    out += next;
  }
  return out;
}

/** The run ids a conflict receipt names (the `+N` overflow marker excluded). */
export function conflictRunIds(receipt: unknown): string[] {
  if (typeof receipt !== 'string' || !receipt.startsWith(PREFIX)) return [];
  return receipt.slice(PREFIX.length).split(',').filter((id) => /^[1-9][0-9]*$/.test(id));
}

/** How many candidates a conflict receipt could not name (its `+N`). */
export function conflictUnnamed(receipt: unknown): number {
  if (typeof receipt !== 'string') return 0;
  const m = /,\+([1-9][0-9]*)$/.exec(receipt);
  return m === null ? 0 : Number(m[1]);
}

export function isConflicted(g: DispatchRecord): boolean {
  return g.state === 'unresolved' && g.reason === RUN_BINDING_CONFLICT;
}

/** Dispatch(unresolved, run_binding_conflict) recording the conflict: the candidates enter the group's state. */
export function recordConflict(ctx: CommitContext, g: DispatchRecord, op: OperationOf<'Dispatch'>): void {
  const runs = conflictRunIds(op.evidence?.receipt);
  const unnamed = conflictUnnamed(op.evidence?.receipt);
  if (runs.length + unnamed < 2) fail('evidence_invalid', `a run binding conflict of ${g.dispatchId} names at least two candidate runs in its evidence receipt`, where(ctx));
  g.conflict = { runs, unnamed, terminal: [] };
}

/** True when `op` records one candidate's exact terminal evidence on a conflicted group. */
export function isCandidateTerminal(g: DispatchRecord, op: OperationOf<'Dispatch'>): boolean {
  return isConflicted(g) && op.state === 'unresolved' && op.evidence?.kind === 'terminal_run';
}

function checkTerminal(ctx: CommitContext, g: DispatchRecord, evidence: Evidence, what: string): string {
  checkEvidenceScope(ctx, g, evidence);
  const problem = evidence.source !== 'github_api' ? `terminal evidence comes from ${evidence.source}, not the GitHub API`
    : evidence.run_id === undefined ? 'evidence names no run'
      : evidence.run_attempt !== 1 ? `evidence names attempt ${evidence.run_attempt ?? '(none)'}, not the original attempt 1`
        : evidence.status !== 'completed' || evidence.conclusion === undefined ? `run ${evidence.run_id} is not reported completed with a conclusion`
          : null;
  if (problem !== null) fail('conflict_evidence_required', `${what} needs exact terminal evidence of a candidate run: ${problem}`, where(ctx));
  return evidence.run_id!;
}

/** Records one candidate's exact terminal evidence (a later-discovered possible launch joins the candidates). */
export function recordCandidateTerminal(ctx: CommitContext, g: DispatchRecord, op: OperationOf<'Dispatch'>): void {
  if (op.reason !== RUN_BINDING_CONFLICT) fail('dispatch_transition_invalid', `terminal evidence of a candidate of ${g.dispatchId} keeps the reason ${RUN_BINDING_CONFLICT}`, where(ctx));
  const conflict = g.conflict!;
  const runId = checkTerminal(ctx, g, op.evidence!, `recording a candidate of ${g.dispatchId}`);
  if (conflict.terminal.includes(runId)) fail('dispatch_transition_invalid', `terminal evidence of run ${runId} of ${g.dispatchId} is already recorded`, where(ctx));
  // A run the list does not hold is a possible launch discovered later. It does not settle the
  // receipt's unnamed `+N` (it may be another run): such a conflict needs the operator's exit.
  g.conflict = { runs: conflict.runs.includes(runId) ? conflict.runs : [...conflict.runs, runId], unnamed: conflict.unnamed, terminal: [...conflict.terminal, runId] };
}

/** The Release of a conflicted, unbound group: exact terminal evidence for every candidate. */
export function checkConflictRelease(ctx: CommitContext, g: DispatchRecord, evidence: Evidence): void {
  const conflict = g.conflict!;
  if (evidence.kind !== 'terminal_run') {
    fail('conflict_evidence_required', `dispatch ${g.dispatchId} recorded a run binding conflict: it is released only on exact terminal evidence of every candidate run, not ${evidence.kind} evidence`, where(ctx));
  }
  const runId = checkTerminal(ctx, g, evidence, `releasing ${g.dispatchId}`);
  const open = conflict.runs.filter((id) => !conflict.terminal.includes(id));
  if (!conflict.runs.includes(runId) || open.length > 0 || conflict.unnamed > 0) {
    const missing = [...open, ...(conflict.unnamed > 0 ? [`${conflict.unnamed} unnamed`] : [])];
    fail('conflict_evidence_required', `releasing ${g.dispatchId} needs recorded exact terminal evidence of every candidate run; missing: ${missing.join(', ') || `run ${runId} is no candidate`}`, where(ctx), { missing });
  }
}

/** An administrator's resolution: binds one named candidate of a recorded conflict (`control` requests only). */
export function checkResolution(ctx: CommitContext, g: DispatchRecord, op: OperationOf<'Dispatch'>): void {
  const at = where(ctx);
  if (!isConflicted(g)) fail('conflict_resolution_invalid', `dispatch ${g.dispatchId} records no run binding conflict to resolve (${g.state})`, at);
  if (op.state !== 'bound' || op.run === undefined) fail('conflict_resolution_invalid', `an operator's resolution of ${g.dispatchId} binds one candidate run (Dispatch bound), not ${op.state}`, at);
  if (!g.conflict!.runs.includes(op.run.run_id)) {
    fail('conflict_resolution_invalid', `run ${op.run.run_id} is not a candidate of ${g.dispatchId}'s conflict (${g.conflict!.runs.join(', ')})`, at);
  }
}

/** Only an administrator's `control` request may resolve; Dispatch in a control is only a resolution. */
export function isResolution(ctx: CommitContext): boolean {
  return ctx.commit.request.kind === 'control' && ctx.commit.actor.role === 'administrator';
}
