/**
 * Verification of a committed `dispatch_next` (spec 7.6, 7.7): its Claims must
 * be exactly the fair prefix that the one packer computes from the predecessor
 * prefix, after the commit's own preceding Observations, at the commit's
 * decision time. There is no second, approximate check.
 */
import { fail, isProtocolError } from '../errors.ts';
import type { JsonValue } from '../json.ts';
import type { ClockTransition } from '../scheduler/clocks.ts';
import { claimMismatch, packGrant } from '../scheduler/pack.ts';
import type { CommitContext, OperationOf } from './context.ts';
import { applyClaim } from './ops/claim.ts';
import { checkEvidenceBytes } from './ops/limits.ts';
import { applyObservation } from './ops/observation.ts';
import { currentPolicy } from './ops/policy.ts';

export interface DispatchNextParameters {
  pool: string;
  max_claims: number;
  max_dispatches: number;
  max_bytes: number;
}

export function applyGrant(ctx: CommitContext): void {
  const { commit, state } = ctx;
  const at = { commit: commit.id, line: ctx.line };
  const params = commit.request.parameters as DispatchNextParameters;
  const ops = commit.operations;
  const firstClaim = ops.findIndex((op) => op.kind === 'Claim');
  if (firstClaim < 0) fail('grant_empty', 'a dispatch_next commit carries at least one Claim; no-grant outcomes are not written', at);
  ops.forEach((op, index) => {
    const expected = index < firstClaim ? 'Observation' : 'Claim';
    if (op.kind !== expected) fail('grant_shape_invalid', `dispatch_next persists Observations first, then Claims; found ${op.kind} at ${index}`, { ...at, operation: index });
  });
  if (state.controls.grants_paused) fail('grants_paused', 'grants are paused: no new Claims may be committed', at);
  const limit = currentPolicy(ctx).limits.operations ?? 256;
  if (ops.length > limit) fail('resource_limit', `commit has ${ops.length} operations; the limit is ${limit}`, at, { limit: 'operations', max: limit });

  for (let i = 0; i < firstClaim; i++) {
    ctx.index = i;
    const op = ops[i] as OperationOf<'Observation'>;
    // A grant's refreshed Observations are held to `evidence_bytes` like any other (apply.ts
    // `applyOperation`, which a grant's operations do not pass through).
    withLocation(ctx, () => {
      checkEvidenceBytes(ctx, op);
      applyObservation(ctx, op);
    });
  }

  const claims = ops.slice(firstClaim) as OperationOf<'Claim'>[];
  const plan = packGrant(state, {
    requestId: commit.request.id,
    commitId: commit.id,
    pool: params.pool,
    max_claims: params.max_claims,
    max_dispatches: params.max_dispatches,
    max_bytes: params.max_bytes,
    precedingOperations: firstClaim,
  }, commit.at);
  const mismatch = claimMismatch(plan.claims, claims as unknown as JsonValue[]);
  if (mismatch !== null) {
    const { index } = mismatch;
    const expected = plan.claims[index];
    const actual = claims[index];
    fail('claim_not_fair', expected === undefined
      ? `Claim ${index + 1} exceeds the fair prefix, which stops after ${plan.claims.length} Claims (${plan.stopReason})`
      : actual === undefined
        ? `the fair prefix has ${plan.claims.length} Claims but the commit persists ${claims.length}`
        : `Claim ${index + 1} is not the fair selection (${mismatch.field} differs): expected Work ${expected.work_id} in ${expected.dispatch_id}/${expected.handle}, found Work ${actual.work_id} in ${actual.dispatch_id}/${actual.handle}`,
    { ...at, operation: firstClaim + Math.min(index, claims.length - 1) }, { expected: expected ?? null, field: mismatch.field, stop_reason: plan.stopReason });
  }
  // A Claim's key-clock active set is replaced by the next Claim of the same priority class,
  // its class-clock active set by the next Claim with a class step (weighted mode: every one).
  const transitions = plan.transitions;
  const superseded = supersededSteps(transitions);
  let lastClassStep = -1;
  for (let i = 0; i < transitions.length; i++) if (transitions[i]!.classStep !== null) lastClassStep = i;
  for (let i = 0; i < claims.length; i++) {
    ctx.index = firstClaim + i;
    try {
      applyClaim(ctx, claims[i]!, params.pool, transitions[i]!, superseded[i], i < lastClassStep);
    } catch (e) {
      throw located(ctx, e);
    }
  }
}

/** For each transition, whether a later one of the same list moves the same key clock (same pool and priority). */
export function supersededSteps(transitions: readonly ClockTransition[]): boolean[] {
  const out = new Array<boolean>(transitions.length);
  const seen = new Set<string>();
  for (let i = transitions.length - 1; i >= 0; i--) {
    const t = transitions[i]!;
    const clock = `${t.priority} ${t.pool}`;
    out[i] = seen.has(clock);
    seen.add(clock);
  }
  return out;
}

function withLocation(ctx: CommitContext, run: () => void): void {
  try {
    run();
  } catch (e) {
    throw located(ctx, e);
  }
}

/** A protocol error located at the current operation (anything else as it is). */
function located(ctx: CommitContext, e: unknown): unknown {
  return isProtocolError(e) ? e.at({ commit: ctx.commit.id, operation: ctx.index, line: ctx.line }) : e;
}
