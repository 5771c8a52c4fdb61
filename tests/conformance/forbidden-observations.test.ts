/**
 * Spec 7.16 "Mutable resources": new trusted observations supersede earlier gate readiness, and
 * §8.2 "Mutable observations": reopening/invalidation blocks future admission. An Observation
 * read before its gate's latest recorded one cannot become the gate's state again: replay
 * refuses it (`observation_invalid`, engine/replay/ops/observation.ts), and the builders leave a
 * superseded read out of a grant or an `observe` instead of publishing it
 * (engine/lifecycle/observations.ts `currentObservations`). Replayed as bytes.
 */
import { describe, expect, it } from 'vitest';
import { candidateCommitId } from '../../engine/identity/index.ts';
import { dispatchNextWithObservations } from '../../engine/lifecycle/grant.ts';
import { currentObservations } from '../../engine/lifecycle/observations.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { operationsRequest } from '../../engine/requests/operations.ts';
import { dispatcher, issue, issueObservation, nodes, policyOf, reconciler, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, forgeBuilt } from './forbidden.ts';

/** `later` waits on Issue #8 (completed); #8 was read closed at t-500, then reopened at t. */
function reopened() {
  const q = new TestQueue(policyOf(), nodes('first', 1, ''));
  q.submit([{ node_key: 'later', payload: {}, fairness_key: '', depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(8) }] }]);
  const t = q.tick();
  q.observe(issueObservation('o-closed', 8, true, t - 500));
  q.observe(issueObservation('o-reopened', 8, false, t));
  return { q, t };
}

describe('forbidden observations: an older read after a newer one', () => {
  it('a closed read from before the recorded reopen is observation_invalid; the same read after it is accepted', () => {
    const { q, t } = reopened();
    const observe = (id: string, observedAt: number) => byteVerdict(forgeBuilt(q, `observe-${id}`, dispatcher, q.t + 1, operationsRequest('observe', [issueObservation(id, 8, true, observedAt)])));
    expect(observe('o-closed-old', t - 400)).toBe('observation_invalid');
    expect(observe('o-closed-same-time', t)).toBe('accepted');
    expect(observe('o-closed-new', t + 1)).toBe('accepted');
  });

  it('the message names the newer observation it would have superseded', () => {
    const { q, t } = reopened();
    const bytes = forgeBuilt(q, 'observe-old', dispatcher, q.t + 1, operationsRequest('observe', [issueObservation('o-closed-old', 8, true, t - 400)]));
    expect(() => replayLedger(bytes)).toThrow(/before the gate's latest recorded observation o-reopened/);
  });

  it('a grant carrying a superseded read leaves it out, so the reopened gate still blocks the Work', () => {
    const { q, t } = reopened();
    q.grant(); // `first`
    const stale = issueObservation('o-closed-old', 8, true, t - 400);
    expect(currentObservations(q.state, [stale])).toEqual([]);
    const fresh = issueObservation('o-closed-new', 8, true, t + 1);
    expect(currentObservations(q.state, [stale, fresh])).toEqual([fresh]);
    const at = q.tick();
    const id = 'grant-with-stale-read';
    const input = { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 };
    const projection = replayLedger(new TextEncoder().encode(q.text()));
    const built = dispatchNextWithObservations(projection, input, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at, [stale]);
    expect(built.operations.filter((op) => op.kind === 'Observation')).toEqual([]);
    expect(built.operations.filter((op) => op.kind === 'Claim')).toEqual([]);
    const withFresh = dispatchNextWithObservations(projection, input, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at, [stale, fresh]);
    expect(withFresh.operations.map((op) => op.kind)).toEqual(['Observation', 'Claim']);
    expect(byteVerdict(forgeBuilt(q, id, dispatcher, at, withFresh))).toBe('accepted');
  });
});

/** A typed pull request resource identity (the Issue helper's shape). */
function pullRequest(number: number) {
  return { host: 'github.com', kind: 'pull_request', number: String(number), repository: REPOSITORY, repository_id: '1', resource_id: String(200000 + number) };
}

describe('forbidden observations: a ready gate needs a successful read whose facts prove its condition (spec 7.16)', () => {
  // `later` waits on PR #3 (merged) and Issue #8 (completed).
  function gated() {
    const q = new TestQueue(policyOf(), nodes('first', 1, ''));
    q.submit([{ node_key: 'later', payload: {}, fairness_key: '', depends_on: [
      { kind: 'pull_request', condition: 'merged', resource: pullRequest(3) },
      { kind: 'issue', condition: 'completed', resource: issue(8) },
    ] }]);
    return q;
  }
  const merged = (observedAt: number) => ({
    kind: 'Observation', observation_id: 'o-pr', resource: pullRequest(3), condition: 'merged', state: 'ready', observed_at: observedAt,
    credential_generation: 'initial', read_status: 'ok', resource_state: 'closed', merged: true, merge_commit: 'a'.repeat(40),
  });
  const observe = (q: TestQueue, op: object) => byteVerdict(forgeBuilt(q, 'observe-gate', reconciler, q.t + 1, operationsRequest('observe', [op as never])));

  it('control: a merged PR read with its merge commit and a completed Issue read ok replay as ready', () => {
    const q = gated();
    expect(observe(q, merged(q.t))).toBe('accepted');
    expect(observe(q, issueObservation('o-issue', 8, true, q.t))).toBe('accepted');
  });

  it('"PR / merged: merged: true with merge provenance": a ready merged read without merge_commit is observation_invalid', () => {
    const q = gated();
    const { merge_commit: _omitted, ...withoutProvenance } = merged(q.t);
    expect(observe(q, withoutProvenance)).toBe('observation_invalid');
  });

  it('"401/403/404, rate limits, network failures ... never imply closed or merged": a ready read that did not succeed is observation_invalid', () => {
    const q = gated();
    for (const status of ['http_404', 'rate_limited', 'identity_mismatch']) {
      expect(observe(q, { ...issueObservation('o-issue', 8, true, q.t), read_status: status })).toBe('observation_invalid');
      expect(observe(q, { ...merged(q.t), read_status: status })).toBe('observation_invalid');
    }
    // The same failed read recorded as what it is, unknown, replays.
    const { resource_state: _r, state_reason: _s, ...unread } = issueObservation('o-issue', 8, false, q.t);
    expect(observe(q, { ...unread, state: 'unknown', read_status: 'http_404' })).toBe('accepted');
  });
});
