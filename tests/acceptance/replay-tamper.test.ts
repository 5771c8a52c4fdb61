/**
 * Issue 3 §5 "Replay re-derives every Claim": tampered grants must be
 * rejected. Each ledger is built honestly with the request builders (and
 * accepted unedited as the control), then one dispatch_next commit is edited
 * and its fingerprint re-sealed so only the Claim rule can fail. Complements
 * engine/replay/rejections.test.ts, which edits the reference fixture.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError, type ProtocolError } from '../../engine/errors.ts';
import type { JsonObject } from '../../engine/json.ts';

import { eligibility } from '../../engine/scheduler/eligibility.ts';
import { issue, issueObservation, ledgerOf, nodes, policyOf, seal, TestQueue, verdict, type Commit } from './queue.ts';
import { replayBytes } from '../support/bytes.ts';

function rejection(text: string): ProtocolError {
  try {
    replayBytes(text);
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
  throw new Error('the tampered ledger was accepted');
}

/** Two keys, groups of up to two Claims, a 4-Claim / 2-dispatch grant as the last commit. */
function twoGroupGrant(): { q: TestQueue; commits: Commit[]; grant: Commit } {
  const q = new TestQueue(policyOf({ accounting_weights: { a: 1, b: 1 } }, { profile: { max_claims: 2 } }), [...nodes('a', 3, 'a'), ...nodes('b', 3, 'b')]);
  const plan = q.grant({ max_claims: 4, max_dispatches: 2 });
  expect(q.keys(plan)).toEqual(['a-1', 'b-1', 'a-2', 'b-2']);
  const commits = q.commits();
  return { q, commits, grant: commits[commits.length - 1]! };
}

const claims = (c: Commit) => c.operations as Array<JsonObject & { work_id: string; claim_id: string; dispatch_id: string; handle: string }>;

describe('replay re-derives every Claim: tampered grants are rejected', () => {
  it('control: the honest two-group grant replays', () => {
    const { commits, grant } = twoGroupGrant();
    expect(verdict(ledgerOf(commits))).toBe('accepted');
    expect(claims(grant).map((c) => [c.handle, c.dispatch_id.slice(-2)])).toEqual([['h1', '_1'], ['h1', '_2'], ['h2', '_1'], ['h2', '_2']]);
  });

  it('a Claim for a different Work (an available Work that is not the fair winner)', () => {
    const { q, commits, grant } = twoGroupGrant();
    claims(grant)[0]!.work_id = q.workId('a-3');
    const e = rejection(ledgerOf(commits));
    expect(e.code).toBe('claim_not_fair');
    expect(e.operation).toBe(0);
  });

  it('reordered Claims (the same Claims, another order)', () => {
    const { commits, grant } = twoGroupGrant();
    const ops = grant.operations;
    [ops[0], ops[1]] = [ops[1]!, ops[0]!];
    expect(rejection(ledgerOf(commits)).code).toBe('claim_not_fair');
  });

  it('regrouped Claims: a member moved into another dispatch group', () => {
    const { commits, grant } = twoGroupGrant();
    const c = claims(grant);
    c[1]!.dispatch_id = c[0]!.dispatch_id; // b-1 into a's group (no share_keys, and the group would hold 3 > max_claims 2)
    c[1]!.handle = 'h2';
    c[2]!.handle = 'h3';
    expect(rejection(ledgerOf(commits)).code).toBe('claim_not_fair');
  });

  it('regrouped Claims: a member split out into a group of its own', () => {
    const { commits, grant } = twoGroupGrant();
    const c = claims(grant);
    c[2]!.dispatch_id = c[0]!.dispatch_id.replace(/_1$/, '_3');
    c[2]!.handle = 'h1';
    expect(rejection(ledgerOf(commits)).code).toBe('claim_not_fair');
  });

  it('a Claim beyond the claim budget (max_claims)', () => {
    const { q, commits, grant } = twoGroupGrant();
    const c = claims(grant);
    const digest = c[0]!.claim_id.split('_')[1];
    grant.operations.push({ kind: 'Claim', work_id: q.workId('a-3'), claim_id: `c_${digest}_5`, dispatch_id: `d_${digest}_3`, handle: 'h1', observations: [] });
    const e = rejection(ledgerOf(commits));
    expect(e.code).toBe('claim_not_fair');
    expect(e.details?.stop_reason).toBe('claim_budget_reached');
  });

  it('a Claim beyond the dispatch budget (max_dispatches), with max_claims raised and re-sealed', () => {
    const { q, commits, grant } = twoGroupGrant();
    (grant.request.parameters as JsonObject).max_claims = 5;
    seal(grant);
    const c = claims(grant);
    const digest = c[0]!.claim_id.split('_')[1];
    grant.operations.push({ kind: 'Claim', work_id: q.workId('a-3'), claim_id: `c_${digest}_5`, dispatch_id: `d_${digest}_3`, handle: 'h1', observations: [] });
    const e = rejection(ledgerOf(commits));
    expect(e.code).toBe('claim_not_fair');
    expect(e.details?.stop_reason).toBe('dispatch_budget_blocked');
  });

  it('a Claim while grants are paused', () => {
    const policy = policyOf();
    const honest = new TestQueue(policy, nodes('a', 2, ''));
    honest.grant();
    const [genesis, grant] = honest.commits();
    expect(verdict(ledgerOf([genesis!, grant!]))).toBe('accepted');

    const paused = new TestQueue(policy, nodes('a', 2, ''));
    paused.control('grants_paused', true);
    expect(paused.grant().stopReason).toBe('grants_paused'); // the honest packer grants nothing
    const [, pause] = paused.commits();
    const forged = { ...grant!, previous: pause!.id, at: pause!.at + 1000 };
    expect(rejection(ledgerOf([genesis!, pause!, forged])).code).toBe('grants_paused');
  });

  it('a Claim for a Work whose Issue gate observation is stale at the commit\'s decision time', () => {
    const q = new TestQueue(policyOf(), [{ node_key: 'gated', payload: {}, depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(7) }] }]);
    q.observe(issueObservation('o1', 7, true, q.t));
    const observedAt = q.t;
    const plan = q.grant({}, observedAt + 1000);
    expect(plan.claims.map((c) => c.observations)).toEqual([['o1']]);
    const commits = q.commits();
    expect(verdict(ledgerOf(commits))).toBe('accepted');

    const grant = commits[commits.length - 1]!;
    grant.at = observedAt + 60_001; // max_observation_age_ms is 60,000
    const e = rejection(ledgerOf(commits));
    expect(e.code).toBe('claim_not_fair');
    expect(e.details?.stop_reason).toBe('no_eligible_work');
    const prefix = replayBytes(ledgerOf(commits.slice(0, -1))).state;
    const why = eligibility(prefix, prefix.works.get(q.workId('gated'))!, grant.at);
    expect(why.eligible === false && why.reason).toBe('observation_stale');
  });
});
