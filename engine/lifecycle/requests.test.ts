/**
 * Every lifecycle builder's output is accepted by replay (the in-memory LedgerWriter
 * validates each candidate by applying it), and refused transitions fail with stable codes.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { workId } from '../identity/index.ts';
import { workerRoute } from '../replay/ops/deployment.ts';
import { bootstrapRequest, operationsRequest } from '../requests/operations.ts';
import { defaultPolicy, GENERATED_WORKER_REF, LedgerWriter } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { deploymentPlan } from './deploy.ts';
import { boundTransition, rejectedTransition, startMarker, uncertainTransition, unresolvedTransition } from './dispatch.ts';
import { groupEvidence } from './evidence.ts';
import { finishPlan } from './finish.ts';
import { cancelClaims, exhaustionRequest, releaseRequest } from './release.ts';
import { replacementRequest } from './replacement.ts';
import { replayBytes } from '../../tests/support/bytes.ts';

const REPO = 'acme/queue';
const actor = (role: Actor['role']): Actor => (role === 'dispatcher'
  // A start marker's sender names its own Actions run (spec 7.8).
  ? { role, principal: '1', repository: REPO, workflow: '.github/workflows/dispatcher.yml', run_id: '4001', run_attempt: 1 }
  : { role, principal: '1', repository: REPO });

function queue(keys: string[], maxAttempts = 3): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPO, principal: '1', maxClaims: 4 });
  ((policy.pools as Record<string, { retry: { max_attempts: number } }>).default!).retry.max_attempts = maxAttempts;
  w.publish('seed', actor('producer'), 1, bootstrapRequest(policy, 'e1', keys.map((k) => ({ node_key: k, payload: {} })), { graphId: 'g', at: 1 }));
  return w;
}

function code(run: () => unknown): string | undefined {
  try {
    run();
  } catch (e) {
    return isProtocolError(e) ? e.code : String(e);
  }
  return undefined;
}

describe('lifecycle request generation is validated by replay', () => {
  it('start, uncertain, unresolved, bound, finish, release; and the refused transitions', () => {
    const w = queue(['a', 'b']);
    const grant = w.dispatchNext('r1', actor('dispatcher'), 2, { pool: 'default', max_claims: 2, max_dispatches: 1, max_bytes: 49152 });
    const d = grant.built.plan.groups[0]!.dispatch_id;
    const dispatcher = actor('dispatcher');
    expect(code(() => boundTransition(w.state, d, '5', groupEvidence(w.state, d, { kind: 'reconciliation', source: 'github_api', checkedAt: 3, runId: '5' })))).toBe('launch_marker_missing');
    w.publish('s', dispatcher, 3, startMarker(w.state, d, dispatcher));
    expect(code(() => startMarker(w.state, d, dispatcher))).toBe('launch_already_started');
    w.publish('u', dispatcher, 4, uncertainTransition(w.state, d, 'dispatch_timeout'));
    w.publish('x', actor('reconciler'), 5, unresolvedTransition(w.state, d, 'launch_unresolved', groupEvidence(w.state, d, { kind: 'reconciliation', source: 'github_api', checkedAt: 5, attempts: 5 })));
    w.publish('b', actor('reconciler'), 6, boundTransition(w.state, d, '9007199254740993', groupEvidence(w.state, d, { kind: 'reconciliation', source: 'github_api', checkedAt: 6, runId: '9007199254740993' })));
    expect(code(() => boundTransition(w.state, d, '7', groupEvidence(w.state, d, { kind: 'reconciliation', source: 'github_api', checkedAt: 6, runId: '7' })))).toBe('run_binding_conflict');
    const fin = finishPlan(w.state, { dispatch_id: d, claim_handle: 'h1', outcome: 'completed' }, '9007199254740993');
    w.publish(fin.requestId, fin.actor, 7, fin.build(w.state, 7));
    expect(code(() => finishPlan(w.state, { dispatch_id: d, claim_handle: 'h2', outcome: 'completed' }, '8'))).toBe('run_binding_conflict');
    const evidence = groupEvidence(w.state, d, { kind: 'terminal_run', source: 'github_api', checkedAt: 8, runId: '9007199254740993', conclusion: 'failure', completed: true });
    w.publish('rel', actor('reconciler'), 8, releaseRequest(w.state, d, evidence, 'run_terminal', 8));
    expect(code(() => releaseRequest(w.state, d, evidence, 'run_terminal', 9))).toBe('already_released');
    const p = replayBytes(w.text());
    expect(p.claim(grant.built.plan.claims[1]!.claim_id)).toMatchObject({ state: 'cancelled', retryNotBefore: 8 + 30_000 });
    expect(p.state.outstandingNative.get('default') ?? 0).toBe(0);
  });

  it('rejection, exhaustion and reconciler cancel_claim: the cancel_claim and the release each carry the attempt exhaustion of their members', () => {
    const w = queue(['a', 'b'], 1);
    const grant = w.dispatchNext('r1', actor('dispatcher'), 2, { pool: 'default', max_claims: 2, max_dispatches: 1, max_bytes: 49152 });
    const d = grant.built.plan.groups[0]!.dispatch_id;
    const [c1, c2] = grant.built.plan.claims;
    // The last attempt of a's Work: the cancel_claim cancels the Work in the same commit (spec 7.4).
    const cc = cancelClaims(w.state, [c1!.claim_id], 'obsolete', 3);
    expect(cc.operations).toMatchObject([
      { kind: 'ClaimCancellation', work_id: workId('g', 'a'), claim_id: c1!.claim_id, reason: 'obsolete' },
      { kind: 'WorkCancellation', work_id: workId('g', 'a'), reason: 'attempts_exhausted' },
    ]);
    w.publish('cc', actor('reconciler'), 3, cc);
    expect(w.state.works.get(workId('g', 'a'))!.state).toBe('cancelled');
    w.publish('s', actor('dispatcher'), 4, startMarker(w.state, d, actor('dispatcher')));
    w.publish('rj', actor('dispatcher'), 5, rejectedTransition(w.state, d, 'dispatch_rejected_422', groupEvidence(w.state, d, { kind: 'nonlaunch', source: 'github_api', checkedAt: 5 })));
    // An unreleased group's exhaustion is no separate request: it rides in the release.
    expect(code(() => exhaustionRequest(w.state, d))).toBe('release_pending');
    const release = releaseRequest(w.state, d, groupEvidence(w.state, d, { kind: 'nonlaunch', source: 'github_api', checkedAt: 7 }), 'launch_rejected', 7);
    expect(release.operations).toMatchObject([
      { kind: 'WorkCancellation', work_id: workId('g', 'b'), reason: 'attempts_exhausted', claim_id: c2!.claim_id },
      { kind: 'Release', dispatch_id: d },
    ]);
    expect(release.operations).toHaveLength(2);
    w.publish('rel', actor('reconciler'), 7, release);
    const p = replayBytes(w.text());
    expect(p.work(workId('g', 'a'))!.state).toBe('cancelled');
    expect(p.work(workId('g', 'b'))!.state).toBe('cancelled');
    expect(exhaustionRequest(w.state, d)).toBeNull();
  });

  it('a release leaving a last-attempt Work available (a hand-written close without its exhaustion step) is refused: retry_exhausted', () => {
    const lastAttempt = () => {
      const w = queue(['a'], 1);
      const grant = w.dispatchNext('r1', actor('dispatcher'), 2, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
      const d = grant.built.plan.groups[0]!.dispatch_id;
      return { w, d, c1: grant.built.plan.claims[0]!, evidence: groupEvidence(w.state, d, { kind: 'prelaunch', source: 'trusted_publisher', checkedAt: 3 }) };
    };
    const bare = lastAttempt();
    expect(code(() => bare.w.publish('rel', actor('reconciler'), 3, operationsRequest('release', [
      { kind: 'ClaimCancellation', work_id: workId('g', 'a'), claim_id: bare.c1.claim_id, reason: 'prelaunch_cancelled', retry_not_before: 3 + 30_000 },
      { kind: 'Release', dispatch_id: bare.d, evidence: bare.evidence },
    ])))).toBe('retry_exhausted');
    // The trusted close carries it: nothing is left for a separate exhaustion step.
    const { w, d, evidence } = lastAttempt();
    w.publish('rel', actor('reconciler'), 3, releaseRequest(w.state, d, evidence, 'prelaunch_cancelled', 3));
    expect(replayBytes(w.text()).work(workId('g', 'a'))!.state).toBe('cancelled');
    expect(exhaustionRequest(w.state, d)).toBeNull();
  });

  it('deployment and replacement admission', () => {
    const w = queue(['a']);
    const plan = deploymentPlan(w.state, { pool: 'default', workerProfile: 'default', ref: 'b'.repeat(40), available: true, reason: 'worker_deployed' });
    expect(plan.changed).toBe(true);
    if (plan.changed) w.publish('dep', actor('administrator'), 2, plan.request);
    expect(deploymentPlan(w.state, { pool: 'default', workerProfile: 'default', ref: 'b'.repeat(40), available: true, reason: 'x' }).changed).toBe(false);
    expect(code(() => replacementRequest(w.state, { failedWorkId: workId('g', 'a'), node_key: 'a2', payload: {}, disposition: 'inspection', evidence: 'e' }, 3))).toBe('replacement_invalid');
    // Issue 16: the Deployment moves the route; the installed Policy (authority) is never rewritten.
    const replayed = replayBytes(w.text()).state;
    expect(workerRoute(replayed, 'default', 'default')!.currentRef).toBe('b'.repeat(40));
    expect(replayed.policy!.policy.pools).toMatchObject({ default: { profiles: { default: { ref: GENERATED_WORKER_REF } } } });
  });
});
