/**
 * Policy epochs (spec 7.1, 7.10: quiescence) and operational Controls (7.10). Worker
 * Deployments are in deployment.ts.
 */
import { fail } from '../../errors.ts';
import { createFairnessState } from '../../state/fairness.ts';
import { configuredPool } from '../../scheduler/policy-view.ts';
import type { PoolPolicy, QueuePolicy } from '../../schema/policy.ts';
import { where, type CommitContext, type OperationOf } from '../context.ts';
import { ceilingViolation } from '../ledger-budget.ts';
import { policyWorkflowProblem } from './profile-workflows.ts';
import { projectorIncoherence } from './projector-rules.ts';
import { QUIESCENCE_NOUNS, quiescenceBlockers } from '../quiescence.ts';

export function currentPolicy(ctx: CommitContext): QueuePolicy {
  const policy = ctx.state.policy;
  if (policy === null) fail('policy_missing', 'no Policy is installed', where(ctx));
  return policy.policy;
}

/** The commit's pool settings, through the one pool lookup (scheduler/policy-view.ts). */
export function poolPolicy(ctx: CommitContext, pool: string): PoolPolicy {
  const policy = currentPolicy(ctx);
  // The configured pool directly (every operation asks): the lookup and its location are built only for the error.
  if (Object.hasOwn(policy.pools, pool)) return policy.pools[pool]!;
  return configuredPool(policy, pool, { at: () => where(ctx) });
}

/** Spec 7.10: no nonterminal Work, outstanding reservation or pending delivery barrier (the first blocker). */
export function quiescenceBlocker(ctx: CommitContext): string | null {
  const first = quiescenceBlockers(ctx.state)[0];
  return first === undefined ? null : `pool ${first.pool} has ${first.count} ${QUIESCENCE_NOUNS[first.what]}`;
}

export function applyPolicy(ctx: CommitContext, op: OperationOf<'Policy'>): void {
  const { state, commit } = ctx;
  const at = where(ctx);
  if (ctx.index !== 0) fail('policy_position', 'a Policy operation must be the first operation of its commit', at);
  if (commit.policy_epoch !== op.epoch) {
    fail('policy_epoch_mismatch', `commit policy_epoch ${commit.policy_epoch} does not bind the installed epoch ${op.epoch}`, at);
  }
  if (ctx.ordinal === 0) {
    if (commit.request.kind !== 'policy' && commit.request.kind !== 'submit') {
      fail('genesis_invalid', `a genesis Policy arrives with a policy or bootstrap submit request, not ${commit.request.kind}`, at);
    }
  } else {
    if (commit.request.kind !== 'policy') fail('policy_not_authorized', 'only the genesis bootstrap submit may install Policy with Work', at);
    if (state.policyHistory.some((p) => p.epoch === op.epoch)) fail('policy_epoch_reused', `policy epoch ${op.epoch} was already installed`, at);
    const blocker = quiescenceBlocker(ctx);
    if (blocker !== null) fail('policy_not_quiescent', `cannot install epoch ${op.epoch}: ${blocker}`, at);
  }
  const policy = op.policy;
  checkPolicyCoherence(ctx, policy);
  const record = { epoch: op.epoch, policy, commitId: commit.id, ordinal: ctx.ordinal };
  state.policy = record;
  state.policyHistory.push(record);
  // A new economic epoch explicitly initializes its clocks (7.10) and gate write budgets.
  state.fairness = createFairnessState(policy, op.epoch);
  state.observationWrites.clear();
  state.deployments.clear();
}

function checkPolicyCoherence(ctx: CommitContext, policy: QueuePolicy): void {
  const problem = policyIncoherence(policy);
  if (problem !== null) fail('policy_invalid', problem, where(ctx));
}

/** What makes a schema-valid Policy unusable (null: coherent). Also checked on a checkpoint's restored Policy. */
export function policyIncoherence(policy: QueuePolicy): string | null {
  const raised = ceilingViolation(policy.limits);
  if (raised !== null) return `limits.${raised.field} ${raised.value} raises the implementation ceiling ${raised.ceiling} (spec 7.17: a Policy may lower a limit, never raise it)`;
  const weights = policy.accounting_weights;
  if (weights[''] !== 1) return 'the default fairness key "" must keep weight 1';
  if (Object.keys(weights).length > 1024) return 'at most 1024 fairness keys may be registered';
  for (const [name, pool] of Object.entries(policy.pools)) {
    if (!Object.hasOwn(pool.profiles, pool.default_profile)) {
      return `pool ${name}'s default_profile ${String(pool.default_profile)} is not one of its profiles`;
    }
  }
  const workflow = policyWorkflowProblem(policy);
  if (workflow !== null) return workflow.message;
  return policy.projectors === undefined ? null : projectorIncoherence(policy);
}

export function applyControl(ctx: CommitContext, op: OperationOf<'Control'>): void {
  const at = where(ctx);
  if (ctx.commit.actor.role !== 'administrator') fail('role_not_allowed', 'Controls require an administrator', at);
  const { controls } = ctx.state;
  if (op.control === 'credential_generation') {
    if (typeof op.value !== 'string') fail('control_invalid', 'credential_generation takes an opaque identity string', at);
    // Spec 7.16: after a cutover, observations need a fresh authorized read. Returning to an
    // earlier generation would make the observations read under it valid again.
    const first = ctx.state.seenGenerations.get(op.value);
    if (op.value !== controls.credential_generation && first !== undefined) {
      fail('credential_generation_reused', `credential generation ${JSON.stringify(op.value)} was already used${first === null ? ' (the initial one)' : ` (set by ${first})`}: a cutover names a new generation`, at);
    }
    if (first === undefined) ctx.state.seenGenerations.set(op.value, ctx.commit.id);
    controls.credential_generation = op.value;
  } else {
    if (typeof op.value !== 'boolean') fail('control_invalid', `${op.control} takes a boolean`, at);
    controls[op.control] = op.value;
  }
}
