/**
 * Cancellation on the wire (issue 10 §3 "ClaimCancellation by a non-worker without trusted
 * backoff", §4 "cancel-claim" and "Cancelling a claimed Work closes its open Claim"):
 *
 * - an administrator cancels claimed Work with `cancel_work` carrying WorkCancellation and
 *   the `claim_id` ownership fence (spec 7.6 operation table), never a ClaimCancellation;
 * - that closes the Claim and frees its logical slot, while the group's native reservation
 *   stays until exact termination or nonlaunch evidence (spec 7.14 "Closing a Claim frees its
 *   logical slot"; operator reference "It does not stop the native worker or free reserved
 *   capacity"): a later grant may take the freed logical slot, a later Release needs no
 *   second cancellation of the Claim;
 * - a ClaimCancellation carries trusted retry backoff (spec 7.4, 7.18).
 *
 * Every ledger is replayed from bytes through the real framing.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { workId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { boundTransition, startMarker } from '../lifecycle/dispatch.ts';
import { groupEvidence } from '../lifecycle/evidence.ts';
import { releaseRequest } from '../lifecycle/release.ts';
import { cancelClaimsRequest } from '../requests/admin.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, operationsRequest, type BuiltRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import { pack } from '../scheduler/pack.ts';
import type { Actor, QueueOperation } from '../schema/index.ts';
import { replayLedger } from './index.ts';

const REPO = 'acme/queue';
const BACKOFF = 30_000;
const admin: Actor = { role: 'administrator', principal: '1001', repository: REPO };
const reconciler: Actor = { role: 'reconciler', principal: '1002', repository: REPO };
const dispatcher: Actor = { role: 'dispatcher', principal: '1003', repository: REPO, workflow: '.github/workflows/dispatch.yml', run_id: '77', run_attempt: 1 };
const GRANT = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A queue of `keys` with the given logical/native limits, admitted at t=1. */
function queue(keys: string[], limits: { logical: number; native: number }): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPO, principal: '1001', logicalLimit: limits.logical, nativeLimit: limits.native });
  w.publish('seed', { role: 'producer', principal: '1001', repository: REPO }, 1, bootstrapRequest(policy, 'e1', keys.map((k) => ({ node_key: k, payload: { k } })), { graphId: 'g', at: 1 }));
  return w;
}

/** Grants one Claim; returns its claim and dispatch ids. */
function grant(w: LedgerWriter, id: string, at: number): { claimId: string; dispatchId: string; workId: string } {
  const { built } = w.dispatchNext(id, dispatcher, at, GRANT);
  const claim = built.plan.claims[0];
  if (claim === undefined) throw new Error(`no grant for ${id}: ${built.plan.stopReason}`);
  return { claimId: claim.claim_id, dispatchId: claim.dispatch_id, workId: claim.work_id };
}

/** The writer's ledger plus one more commit that is NOT validated (the forbidden record under test). */
function withUnchecked(w: LedgerWriter, id: string, actor: Actor, at: number, built: BuiltRequest): Uint8Array {
  const commit = buildCommit(w.state, { id, kind: built.kind, parameters: built.parameters, actor, at, operations: built.operations });
  return bytes(w.text() + canonicalize(commit as unknown as JsonValue) + '\n');
}

function codeOf(input: Uint8Array): string {
  try {
    replayLedger(input);
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

function ops(...operations: JsonObject[]): BuiltRequest {
  return { kind: 'cancel_work', parameters: { operations }, operations: operations as unknown as QueueOperation[] };
}

describe('cancel-claim is an administrator cancel_work with the claim_id fence (spec 7.6)', () => {
  it('cancelClaimsRequest writes exactly one fenced WorkCancellation per Claim and no ClaimCancellation', () => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    const built = cancelClaimsRequest(w.state, [g.claimId], 'operator_cancelled');
    expect(built.kind).toBe('cancel_work');
    expect(built.operations).toEqual([{ kind: 'WorkCancellation', work_id: g.workId, reason: 'operator_cancelled', claim_id: g.claimId }]);
    expect(built.parameters).toEqual({ operations: built.operations });
  });

  it('accepts grant, fenced cancel_work, a grant into the freed logical slot while the native reservation is held, and a later Release without a ClaimCancellation', () => {
    const w = queue(['a', 'b'], { logical: 1, native: 2 });
    const first = grant(w, 'grant-1', 2);
    // The single logical slot is taken: nothing more can be granted.
    expect(pack(w.state, { ...GRANT, requestId: 'probe', commitId: 'probe' }, 3).stopReason).toBe('capacity_blocked');
    const cancel = w.publish('cancel-1', admin, 3, cancelClaimsRequest(w.state, [first.claimId], 'operator_cancelled'));
    const second = grant(w, 'grant-2', 4);
    expect(second.workId).toBe(workId('g', 'b'));
    expect(w.state.outstandingNative.get('default')).toBe(2);
    // Release of the first (never started) group with definitive prelaunch evidence: one Release, nothing else.
    const release = releaseRequest(w.state, first.dispatchId, groupEvidence(w.state, first.dispatchId, { kind: 'prelaunch', source: 'trusted_publisher', checkedAt: 5 }), 'operator_cancelled', 5);
    expect(release.operations.map((o) => o.kind)).toEqual(['Release']);
    w.publish('release-1', reconciler, 5, release);

    const p = replayLedger(bytes(w.text()));
    expect(p.claim(first.claimId)).toMatchObject({ state: 'cancelled', terminalCommitId: cancel.id, cancelReason: 'operator_cancelled' });
    expect(p.work(first.workId)).toMatchObject({ state: 'cancelled', cancellationCommit: cancel.id, cancellationClaim: first.claimId, attempts: 1 });
    expect(p.claim(second.claimId)!.state).toBe('open');
    expect(p.state.outstandingClaims.get('default')).toBe(1);
    expect(p.state.outstandingNative.get('default')).toBe(1);
    expect(p.dispatch(first.dispatchId)!.released).toBe(true);
  });

  it('accepts a bound group whose Claim was cancelled: the exact terminal-run Release needs no second cancellation', () => {
    const w = queue(['a'], { logical: 1, native: 1 });
    const g = grant(w, 'grant-1', 2);
    w.publish('start', dispatcher, 3, startMarker(w.state, g.dispatchId, dispatcher));
    w.publish('bind', reconciler, 4, boundTransition(w.state, g.dispatchId, '501', groupEvidence(w.state, g.dispatchId, { kind: 'reconciliation', source: 'github_api', checkedAt: 4, runId: '501' })));
    w.publish('cancel-1', admin, 5, cancelClaimsRequest(w.state, [g.claimId], 'operator_cancelled'));
    // Cancelling does not free the native reservation.
    expect(w.state.outstandingNative.get('default')).toBe(1);
    const evidence = groupEvidence(w.state, g.dispatchId, { kind: 'terminal_run', source: 'github_api', checkedAt: 6, runId: '501', conclusion: 'cancelled', completed: true });
    const release = releaseRequest(w.state, g.dispatchId, evidence, 'run_terminal', 6);
    expect(release.operations.map((o) => o.kind)).toEqual(['Release']);
    w.publish('release-1', reconciler, 6, release);
    const p = replayLedger(bytes(w.text()));
    expect(p.dispatch(g.dispatchId)!.released).toBe(true);
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
  });

  it('rejects a grant into the freed logical slot while the only native reservation is still held (claim_not_fair, native_capacity_blocked)', () => {
    const w = queue(['a', 'b'], { logical: 1, native: 1 });
    const first = grant(w, 'grant-1', 2);
    w.publish('cancel-1', admin, 3, cancelClaimsRequest(w.state, [first.claimId], 'operator_cancelled'));
    const plan = pack(w.state, { ...GRANT, requestId: 'grant-2', commitId: 'x' }, 4);
    expect(plan.claims).toHaveLength(0);
    expect(plan.stopReason).toBe('native_capacity_blocked');
    // A hand-written grant of b anyway: its Claim is not the fair prefix.
    const b = workId('g', 'b');
    const forged = { kind: 'dispatch_next', parameters: { ...GRANT }, operations: [{ kind: 'Claim', work_id: b, claim_id: 'c_forged_1', dispatch_id: 'd_forged_1', handle: 'h1', observations: [] }] as unknown as QueueOperation[] };
    expect(codeOf(withUnchecked(w, 'grant-2', dispatcher, 4, forged))).toBe('claim_not_fair');
  });

  it('rejects the old Fairway cancel-claim shape: an administrator ClaimCancellation inside cancel_work (operation_not_allowed)', () => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    const old = ops(
      { kind: 'ClaimCancellation', work_id: g.workId, claim_id: g.claimId, reason: 'operator_cancelled', retry_not_before: 3 },
      { kind: 'WorkCancellation', work_id: g.workId, reason: 'operator_cancelled' },
    );
    expect(codeOf(withUnchecked(w, 'cancel-1', admin, 3, old))).toBe('operation_not_allowed');
  });

  it('rejects a WorkCancellation whose claim_id fence names a Claim that no longer owns the Work (claim_scope_invalid)', () => {
    const w = queue(['a'], { logical: 1, native: 4 });
    const first = grant(w, 'grant-1', 2);
    w.publish('cc', reconciler, 3, operationsRequest('cancel_claim', [{ kind: 'ClaimCancellation', work_id: first.workId, claim_id: first.claimId, reason: 'obsolete', retry_not_before: 3 + BACKOFF }]));
    const second = grant(w, 'grant-2', 4 + BACKOFF);
    expect(second.workId).toBe(first.workId);
    const stale = ops({ kind: 'WorkCancellation', work_id: first.workId, reason: 'operator_cancelled', claim_id: first.claimId });
    expect(codeOf(withUnchecked(w, 'cancel-1', admin, 5 + BACKOFF, stale))).toBe('claim_scope_invalid');
    // The fence on the current owner is accepted.
    w.publish('cancel-2', admin, 5 + BACKOFF, cancelClaimsRequest(w.state, [second.claimId], 'operator_cancelled'));
    expect(replayLedger(bytes(w.text())).claim(second.claimId)!.state).toBe('cancelled');
  });

  it('rejects a WorkCancellation fence on available Work (claim_scope_invalid)', () => {
    const w = queue(['a', 'b'], { logical: 1, native: 4 });
    const g = grant(w, 'grant-1', 2);
    const b = workId('g', 'b');
    expect(codeOf(withUnchecked(w, 'cancel-1', admin, 3, ops({ kind: 'WorkCancellation', work_id: b, reason: 'operator_cancelled', claim_id: g.claimId })))).toBe('claim_scope_invalid');
  });

  it('rejects a Release that cancels a Claim its Work cancellation already closed (claim_terminal)', () => {
    const w = queue(['a'], { logical: 1, native: 1 });
    const g = grant(w, 'grant-1', 2);
    w.publish('cancel-1', admin, 3, cancelClaimsRequest(w.state, [g.claimId], 'operator_cancelled'));
    const evidence = groupEvidence(w.state, g.dispatchId, { kind: 'prelaunch', source: 'trusted_publisher', checkedAt: 4 });
    const again = operationsRequest('release', [
      { kind: 'ClaimCancellation', work_id: g.workId, claim_id: g.claimId, reason: 'released', retry_not_before: 4 + BACKOFF },
      { kind: 'Release', dispatch_id: g.dispatchId, evidence },
    ]);
    expect(codeOf(withUnchecked(w, 'release-1', reconciler, 4, again))).toBe('claim_terminal');
  });
});

describe('ClaimCancellation by a non-worker carries trusted retry backoff (spec 7.4, 7.18)', () => {
  const cancelClaim = (workIdValue: string, claimId: string, rnb: number): BuiltRequest =>
    operationsRequest('cancel_claim', [{ kind: 'ClaimCancellation', work_id: workIdValue, claim_id: claimId, reason: 'obsolete', retry_not_before: rnb }]);
  /** A granted Claim and its group's release on prelaunch evidence checked at `checkedAt`, cancelling the Claim with retry boundary `rnb`. */
  const prelaunchRelease = (checkedAt: number): { w: LedgerWriter; release: (rnb: number) => BuiltRequest } => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    const evidence = groupEvidence(w.state, g.dispatchId, { kind: 'prelaunch', source: 'trusted_publisher', checkedAt });
    return {
      w,
      release: (rnb) => operationsRequest('release', [
        { kind: 'ClaimCancellation', work_id: g.workId, claim_id: g.claimId, reason: 'released', retry_not_before: rnb },
        { kind: 'Release', dispatch_id: g.dispatchId, evidence },
      ]),
    };
  };

  it('rejects a reconciler ClaimCancellation whose retry_not_before equals the commit time (retry_invalid)', () => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    expect(codeOf(withUnchecked(w, 'cc', reconciler, 10, cancelClaim(g.workId, g.claimId, 10)))).toBe('retry_invalid');
  });

  it('rejects a reconciler ClaimCancellation one millisecond short of at + backoff_ms (retry_invalid)', () => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    expect(codeOf(withUnchecked(w, 'cc', reconciler, 10, cancelClaim(g.workId, g.claimId, 10 + BACKOFF - 1)))).toBe('retry_invalid');
  });

  it('accepts a reconciler ClaimCancellation at exactly at + backoff_ms, and the Work is not re-granted before it', () => {
    const w = queue(['a'], { logical: 1, native: 4 });
    const g = grant(w, 'grant-1', 2);
    w.publish('cc', reconciler, 10, cancelClaim(g.workId, g.claimId, 10 + BACKOFF));
    expect(pack(w.state, { ...GRANT, requestId: 'early', commitId: 'x' }, 10 + BACKOFF - 1).claims).toHaveLength(0);
    expect(grant(w, 'grant-2', 10 + BACKOFF).workId).toBe(g.workId);
    expect(codeOf(bytes(w.text()))).toBe('accepted');
  });

  it('rejects a reconciler ClaimCancellation one millisecond past at + backoff_ms: the backoff is bounded (retry_invalid)', () => {
    const w = queue(['a'], { logical: 1, native: 2 });
    const g = grant(w, 'grant-1', 2);
    expect(codeOf(withUnchecked(w, 'cc', reconciler, 10, cancelClaim(g.workId, g.claimId, 10 + BACKOFF + 1)))).toBe('retry_invalid');
    // A retry boundary years away would hold the Work out of every later grant.
    expect(codeOf(withUnchecked(w, 'cc', reconciler, 10, cancelClaim(g.workId, g.claimId, 10 + 365 * 86_400_000)))).toBe('retry_invalid');
  });

  it('bounds a release request\'s ClaimCancellation by the commit time plus backoff_ms, not by its evidence (retry_invalid past it)', () => {
    const { w, release } = prelaunchRelease(5);
    expect(codeOf(withUnchecked(w, 'rel', reconciler, 9, release(9 + BACKOFF)))).toBe('accepted');
    expect(codeOf(withUnchecked(w, 'rel', reconciler, 9, release(9 + BACKOFF + 1)))).toBe('retry_invalid');
  });

  it('anchors a release request\'s ClaimCancellation at its Release evidence checked_at; earlier than that plus backoff_ms is retry_invalid', () => {
    const { w, release } = prelaunchRelease(5);
    expect(codeOf(withUnchecked(w, 'rel', reconciler, 9, release(5 + BACKOFF)))).toBe('accepted');
    expect(codeOf(withUnchecked(w, 'rel', reconciler, 9, release(5 + BACKOFF - 1)))).toBe('retry_invalid');
  });
});

describe('a producer cancels only Work inside its own entitlement (reference: "producer cannot cancel another accounting scope")', () => {
  function entitled(): LedgerWriter {
    const w = new LedgerWriter();
    const policy = defaultPolicy({ repository: REPO, principal: '1001' });
    policy.producers = {
      '2001': { pools: ['default'], priorities: [3], fairness_keys: [''] },
      '2002': { pools: ['default'], priorities: [1], fairness_keys: [''] },
    };
    w.publish('seed', { role: 'producer', principal: '2001', repository: REPO }, 1, bootstrapRequest(policy, 'e1', [{ node_key: 'a', payload: {} }], { graphId: 'g', at: 1 }));
    return w;
  }
  const cancelA = ops({ kind: 'WorkCancellation', work_id: workId('g', 'a'), reason: 'producer_cancelled' });

  it('rejects a producer cancelling Work of a priority it may not submit (producer_not_authorized)', () => {
    const w = entitled();
    expect(codeOf(withUnchecked(w, 'cancel-1', { role: 'producer', principal: '2002', repository: REPO }, 3, cancelA))).toBe('producer_not_authorized');
    expect(codeOf(withUnchecked(w, 'cancel-1', { role: 'producer', principal: '2003', repository: REPO }, 3, cancelA))).toBe('producer_not_authorized');
  });

  it('accepts the entitled producer\'s cancellation, and an administrator\'s', () => {
    const w = entitled();
    expect(codeOf(withUnchecked(w, 'cancel-1', { role: 'producer', principal: '2001', repository: REPO }, 3, cancelA))).toBe('accepted');
    expect(codeOf(withUnchecked(w, 'cancel-1', admin, 3, cancelA))).toBe('accepted');
  });
});
