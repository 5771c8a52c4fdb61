/**
 * Compaction keeps every backing-Issue promise (spec 7.10: compaction preserves accepted
 * obligations): a checkpointed ledger still holds the projector rules, the pre-existing Issue a
 * Work was admitted with (one Work per Issue still holds), its comment bindings, and the
 * admission-time completion policy that decides closure.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { closesOnResult, issueTarget } from '../../engine/issues/authority.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit, Projection, replayLedger } from '../../engine/replay/index.ts';
import { operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { result } from '../../engine/requests/lifecycle.ts';
import { parseQueueCommit } from '../../engine/schema/index.ts';
import { admin, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import { byteVerdict, completedClaim } from '../conformance/forbidden.ts';
import { issueIn, OTHER, policyWith, projectorActor, rule, RULE_REF } from '../issues/rules.ts';

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
