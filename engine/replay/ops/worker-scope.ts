/**
 * Worker authority in replay (spec 7.14 "Individual finalization and effects",
 * 7.8 binding; contract `provenance.worker`, `provenance.worker_queue_controls`).
 * Every worker-role commit is checked here, so a hand-written ledger cannot
 * bypass the intent processor:
 *
 * - the actor names an existing dispatch, original attempt 1, and (except for
 *   an activation binding) a handle of that dispatch's original assignment:
 *   `claim_scope_invalid`; a record naming no handle at all is
 *   `claim_scope_required` (the spec's "selector omitted" rows: a durable record
 *   carries its normalized handle, so an omission is never attached later, with
 *   one Claim or several, and settling siblings never makes it unambiguous);
 * - an activation `dispatch` binds only the actor's own dispatch to the
 *   actor's own run, or records that dispatch's run binding conflict naming
 *   the actor's own run among the candidates: `run_binding_conflict`;
 * - every other worker commit comes from the durably bound, unreleased run:
 *   `run_binding_missing`, `run_binding_conflict`, `dispatch_released`;
 * - fresh queue controls (submit, dispatch_next, observe) need that Claim's
 *   own Completion with a still-pending delivery barrier
 *   (`claim_effects_unauthorized`); children stay in the parent's pool and
 *   fairness key, never gain a better priority than the parent's admitted
 *   one and pin no revision but the parent's (`child_entitlement`); a worker's dispatch_next stays in the parent's
 *   pool (`claim_scope_invalid`); a worker's observations, in an observe or
 *   riding in its dispatch_next, read only the parent pool's allowed
 *   repositories (`resource_unauthorized`).
 */
import { fail } from '../../errors.ts';
import type { CommitContext } from '../context.ts';
import type { ClaimRecord, DispatchRecord, WorkRecord } from '../../state/state.ts';
import { ownGet } from '../../schema/record.ts';
import { conflictRunIds, RUN_BINDING_CONFLICT } from './conflict.ts';
import { memberByHandle } from '../finish.ts';

const CONTROLS: ReadonlySet<string> = new Set(['submit', 'dispatch_next', 'observe']);

interface Scope {
  group: DispatchRecord;
  claim: ClaimRecord | null;
}

export function checkWorkerCommit(ctx: CommitContext): void {
  const { commit } = ctx;
  if (commit.actor.role !== 'worker') return;
  const scope = workerScope(ctx);
  if (commit.request.kind === 'dispatch') return checkActivation(ctx, scope.group);
  checkBoundRun(ctx, scope.group);
  if (!CONTROLS.has(commit.request.kind)) return;
  const parent = continuationParent(ctx, scope);
  checkControl(ctx, parent);
}

function at(ctx: CommitContext): { commit: string; line?: number } {
  return ctx.line === undefined ? { commit: ctx.commit.id } : { commit: ctx.commit.id, line: ctx.line };
}

function workerScope(ctx: CommitContext): Scope {
  const { actor, request } = ctx.commit;
  const where = at(ctx);
  if (actor.dispatch_id === undefined) fail('claim_scope_invalid', `a worker's ${request.kind} names no dispatch in its actor scope`, where);
  if (actor.run_id === undefined || actor.run_attempt !== 1) {
    fail('claim_scope_invalid', `a worker's ${request.kind} comes from an original run attempt 1 (actor has ${actor.run_id ?? 'no run'}/${actor.run_attempt ?? '-'})`, where);
  }
  const group = ctx.state.dispatches.get(actor.dispatch_id);
  if (group === undefined) fail('claim_scope_invalid', `worker scope names dispatch ${actor.dispatch_id}, which was never granted`, where);
  if (actor.claim_handle === undefined) {
    if (request.kind === 'dispatch') return { group, claim: null };
    // Spec 7.14 "Several Claims, selector omitted: Reject claim_scope_required, even if only one
    // Claim remains open" (the original assignment decides, not the open Claims); "After
    // normalization, persist the handle": a record without it was never attributed, and replay
    // cannot attach one, so the sole member of a one-Claim group is not filled in either (the
    // reference's worker controls answer claim_scope_required whatever the group's size).
    fail('claim_scope_required', `a worker's ${request.kind} names no claim_handle of dispatch ${group.dispatchId} (its original assignment has ${group.claimIds.length} Claim${group.claimIds.length === 1 ? '' : 's'}): a worker record carries its normalized handle`, where);
  }
  const claim = memberByHandle(ctx.state, group, actor.claim_handle);
  if (claim === undefined) fail('claim_scope_invalid', `dispatch ${group.dispatchId} has no member ${actor.claim_handle}`, where);
  return { group, claim };
}

/** Trusted activation may publish only its own validated binding (7.8). */
function checkActivation(ctx: CommitContext, group: DispatchRecord): void {
  const { actor } = ctx.commit;
  ctx.commit.operations.forEach((op, operation) => {
    const where = { ...at(ctx), operation };
    if (op.kind !== 'Dispatch' || op.dispatch_id !== group.dispatchId) {
      fail('run_binding_conflict', `a worker's dispatch request only binds its own dispatch ${group.dispatchId}`, where);
    }
    // The one other thing an activation may record: that it found its group's run binding
    // conflict (spec 7.8) -- a record that removes authority from every run, its own included.
    if (op.state !== 'bound') {
      const named = conflictRunIds(op.evidence?.receipt);
      const conflict = op.reason === RUN_BINDING_CONFLICT && (op.state === 'uncertain' || (op.state === 'unresolved' && named.includes(actor.run_id ?? '')));
      if (!conflict) fail('run_binding_conflict', `a worker's dispatch request only binds its own dispatch ${group.dispatchId} or records a conflict naming its own run`, where);
      return;
    }
    const run = op.run;
    if (run !== undefined && (run.run_id !== actor.run_id || run.principal !== actor.principal || run.workflow !== actor.workflow || run.repository !== actor.repository)) {
      fail('run_binding_conflict', `the activation context (run ${actor.run_id}) does not match the run ${run.run_id} it binds`, where);
    }
  });
}

function checkBoundRun(ctx: CommitContext, group: DispatchRecord): void {
  const { actor, request } = ctx.commit;
  const where = at(ctx);
  const run = group.run as { run_id: string; principal: string; workflow: string } | null;
  if (group.state !== 'bound' || run === null) {
    fail('run_binding_missing', `dispatch ${group.dispatchId} has no durable run binding (${group.state}); a worker's ${request.kind} needs one`, where);
  }
  if (group.released) fail('dispatch_released', `dispatch ${group.dispatchId} was released: its run's authority ended`, where);
  if (run.run_id !== actor.run_id || run.principal !== actor.principal || run.workflow !== actor.workflow) {
    fail('run_binding_conflict', `the worker actor (run ${actor.run_id}) is not dispatch ${group.dispatchId}'s bound run ${run.run_id}`, where);
  }
}

/** Fresh controls need this Claim's own Completion and a pending delivery barrier (7.14). */
function continuationParent(ctx: CommitContext, scope: Scope): WorkRecord {
  const claim = scope.claim!;
  const work = ctx.state.works.get(claim.workId)!;
  const where = at(ctx);
  if (claim.state !== 'completed' || work.state !== 'completed' || work.currentClaim !== claim.claimId) {
    fail('claim_effects_unauthorized', `Claim ${claim.handle} of dispatch ${scope.group.dispatchId} is ${claim.state}: only its own Completion authorizes a worker's ${ctx.commit.request.kind}`, where);
  }
  if (work.barrier !== 'pending') {
    fail('claim_effects_unauthorized', `Work ${work.workId} delivery is ${work.barrier}: its Result or DeliveryFailure closed fresh worker controls`, where);
  }
  return work;
}

function checkControl(ctx: CommitContext, parent: WorkRecord): void {
  const { commit } = ctx;
  if (commit.request.kind === 'dispatch_next') {
    const pool = (commit.request.parameters as { pool: string }).pool;
    if (pool !== parent.pool) fail('claim_scope_invalid', `a worker's dispatch_next stays in its parent's pool ${parent.pool}, not ${pool}`, at(ctx));
  }
  // Every operation of the control, a dispatch_next's refreshed Observations included: the
  // worker's reads stay inside its parent pool wherever they ride.
  commit.operations.forEach((op, operation) => {
    const where = { ...at(ctx), operation };
    if (op.kind === 'Work') {
      const differs = op.pool !== parent.pool ? `pool ${op.pool} (parent: ${parent.pool})`
        : op.fairness_key !== parent.fairnessKey ? `fairness key ${JSON.stringify(op.fairness_key)} (parent: ${JSON.stringify(parent.fairnessKey)})`
          : op.priority < parent.priority ? `priority ${op.priority}, more urgent than the parent's ${parent.priority}`
            // Spec 7.10: "caller-local proposal metadata MUST NOT select a revision": a child runs
            // its route's revision, or its parent's pin, never one the agent names.
            : op.execution_ref !== undefined && op.execution_ref !== parent.executionRef ? `execution_ref ${op.execution_ref} (the parent is ${parent.executionRef === null ? 'unpinned' : `pinned to ${parent.executionRef}`})`
              : null;
      if (differs !== null) fail('child_entitlement', `worker child ${op.node_key} must inherit its parent's pool, fairness key, priority and pin; it has ${differs}`, where);
    } else if (op.kind === 'Observation') {
      const pools = ctx.state.policy!.policy.pools;
      const allowed = ownGet(pools, parent.pool)?.allowed_repositories ?? [];
      if (!allowed.includes(op.resource.repository)) {
        fail('resource_unauthorized', `a worker observes only its parent pool's allowed repositories, not ${op.resource.repository}`, where);
      }
    }
  });
}
