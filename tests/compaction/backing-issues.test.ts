/**
 * Compaction keeps every backing-Issue promise (spec 7.10: compaction preserves accepted
 * obligations): a checkpointed ledger still holds the projector rules, the pre-existing Issue a
 * Work was admitted with (one Work per Issue still holds), its comment bindings, and the
 * admission-time completion policy that decides closure.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { closesOnResult, issueTarget } from '../../engine/issues/authority.ts';
import { desiredIssue } from '../../engine/issues/desired.ts';
import { issueStatus } from '../../engine/issues/status.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit, Projection, replayLedger } from '../../engine/replay/index.ts';
import { operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { release, result } from '../../engine/requests/lifecycle.ts';
import { policyRequest } from '../../engine/requests/admin.ts';
import { parseQueueCommit } from '../../engine/schema/index.ts';
import { admin, policyOf, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import { byteVerdict, completedClaim } from '../conformance/forbidden.ts';
import { issueIn, OTHER, policyWith, projectorActor, rule, RULE_REF } from '../issues/rules.ts';
import { issueTemplates } from '../../lib/issues/templates.ts';
import { replayBytes } from '../support/bytes.ts';
import { checkpointOf } from '../support/checkpoints.ts';

const granted = issueIn(OTHER, 7);
const who = { principal: projectorActor.principal, workflow: projectorActor.workflow!, ref: RULE_REF };

function compacted(q: TestQueue): string {
  const history = q.w.lines.map((l) => parseQueueCommit(JSON.parse(l)));
  const root = buildCheckpointCommit({ state: q.state, history }, { priorGitSha: 'f'.repeat(40), actor: admin, at: q.tick() });
  return `${canonicalize(root as unknown as JsonValue)}\n`;
}

describe('compaction keeps backing-Issue promises', () => {
  it('projector rules, an admitted backing_issue with its comment binding, and close-on-result survive a checkpoint', () => {
    const q = new TestQueue(policyWith([rule({ completion_policy: 'close-on-result', backing_issues: [granted as never] })]), [{ node_key: 'done', payload: {} }]);
    q.w.publish('submit-b', producer, q.tick(), submitRequest(q.state, [{ node_key: 'b', payload: {}, backing_issue: granted }], { graphId: 'g2', at: q.t }));
    const b = q.workId('b');
    q.w.publish('comment-b', projectorActor, q.tick(), operationsRequest('observe', [{ kind: 'IssueComment', work_id: b, comment_id: '91', projector_ref: RULE_REF }]));
    const { workId } = completedClaim(q, '301');
    q.w.publish('result', reconciler, q.tick(), result(q.state, workId, { outputs: [{ type: 'create_issue' }] as unknown as JsonObject[] }, q.t, 'r1'));

    const text = compacted(q);
    const restored = replayLedger(text);
    expect((restored.state.policy!.policy.projectors as unknown[])).toHaveLength(1);
    expect(restored.work(b)!.definition.backing_issue).toEqual(granted);
    expect(restored.state.issueLinks.get(b)!.map((r) => r.kind)).toEqual(['IssueComment']);
    expect(issueTarget(restored, restored.work(b)!)).toMatchObject({ repository: OTHER, preexisting: true });
    const done = restored.work(workId)!;
    expect(closesOnResult(restored, done, who, issueTarget(restored, done), 'done')).toBe(true);
    expect(closesOnResult(new Projection(q.state), q.state.works.get(workId)!, who, issueTarget(new Projection(q.state), q.state.works.get(workId)!), 'done')).toBe(true);

    // After the checkpoint, the Issue still backs only Work b: another Work naming it is refused.
    const ops = submitRequest(restored.state, [{ node_key: 'c', payload: {}, backing_issue: granted }], { graphId: 'g3', at: q.t + 10 });
    const commit = buildCommit(restored.state, { id: 'submit-c', kind: 'submit', parameters: ops.parameters, actor: producer, at: q.t + 10, operations: ops.operations });
    expect(byteVerdict(new TextEncoder().encode(`${text}${canonicalize(commit as unknown as JsonValue)}\n`))).toBe('issue_link_conflict');
  });
});

describe('compaction keeps the admission-time completion policy of every Policy epoch', () => {
  /**
   * Work `done` admitted under epoch-1 with a verified non-PR Result, then a later Policy epoch.
   * Closure is decided by the rules of the epoch in force at admission, so the answer must be the
   * same on the live ledger, after one checkpoint and after a checkpoint of that checkpoint.
   */
  function closureAcrossEpochs(first: 'keep-open' | 'close-on-result', later: 'keep-open' | 'close-on-result'): boolean[] {
    const policy = policyWith([rule({ completion_policy: first })]);
    const q = new TestQueue(policy, [{ node_key: 'done', payload: {} }]);
    const { workId, dispatchId } = completedClaim(q, '301');
    q.w.publish('result', reconciler, q.tick(), result(q.state, workId, { outputs: [{ type: 'create_issue' }] as unknown as JsonObject[] }, q.t, 'r1'));
    q.w.publish('release', reconciler, q.tick(), release(q.state, dispatchId, q.t));
    q.w.publish('policy-2', admin, q.tick(), policyRequest('epoch-2', policyWith([rule({ completion_policy: later })])));
    const answer = (p: Projection): boolean => {
      const w = p.work(workId)!;
      expect(w.policyEpoch).not.toBe(p.state.policy!.epoch);
      return closesOnResult(p, w, who, issueTarget(p, w), 'done');
    };
    const once = compacted(q);
    const twice = checkpointOf(once, 'e'.repeat(40));
    // Both checkpoints are byte paths: the root's bytes through replay's framing.
    return [answer(new Projection(q.state)), answer(replayBytes(once)), answer(replayBytes(twice))];
  }

  it('a close-on-result rule in force at admission still closes after one and two compactions under a later epoch', () => {
    expect(closureAcrossEpochs('close-on-result', 'close-on-result')).toEqual([true, true, true]);
  });

  it('a later epoch\'s close-on-result rule does not close Work admitted under a keep-open rule, before or after compaction', () => {
    expect(closureAcrossEpochs('keep-open', 'close-on-result')).toEqual([false, false, false]);
  });
});

describe('compaction keeps the delivery outcome a backing Issue projects', () => {
  /**
   * A verified pull-request delivery projects `needs-review`, other verified delivery `done`
   * (operator reference "Backing Issues"). The checkpoint keeps the Result operation
   * (`terminal_barriers`), so the desired Issue (status, summary and per-Claim comment texts) is
   * the same on the live ledger, after one checkpoint and after a checkpoint of that checkpoint:
   * compaction alone never relabels an Issue or rewrites its comments.
   */
  it.each([['create_pull_request', 'needs-review'], ['create_issue', 'done']] as const)('a verified %s Result projects %s before and after one and two compactions', (type, status) => {
    const q = new TestQueue(policyOf(), [{ node_key: 'n', payload: {} }]);
    const { workId } = completedClaim(q, '301');
    q.w.publish('result', reconciler, q.tick(), result(q.state, workId, { outputs: [{ type }] as unknown as JsonObject[] }, q.t, 'r1'));
    const once = compacted(q);
    const ledgers = [q.text(), once, checkpointOf(once, 'e'.repeat(40))].map((text) => replayBytes(text));
    const ctx = { prefix: 'work', host: 'github.com', runUrl: null, ledgerVersion: null, templates: issueTemplates() };
    const desired = ledgers.map((p) => desiredIssue(p, p.work(workId)!, ctx));
    expect(ledgers.map((p) => issueStatus(p, p.work(workId)!))).toEqual([status, status, status]);
    expect(desired.map((d) => d.statusKnown)).toEqual([true, true, true]);
    expect(desired[1]).toEqual(desired[0]);
    expect(desired[2]).toEqual(desired[0]);
  });
});
