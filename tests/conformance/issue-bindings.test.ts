/**
 * Replay is the judge of backing-Issue bindings (operator reference "Backing Issues": one
 * Work per Issue, links and comment handles cannot be rebound; agent execution holds no
 * projector credential). Each forged ledger is replayed as BYTES through the real framing.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { operationsRequest, submitRequest } from '../../engine/requests/operations.ts';
import { nodes, policyOf, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, completedClaim, forge, grantOne, workerOf } from './forbidden.ts';

const REF = 'c'.repeat(40);
const issue = (n: number): JsonObject => ({ kind: 'issue', host: 'github.com', repository: 'owner/repo', repository_id: '1', resource_id: String(5000 + n), number: String(n) });
const link = (workId: string, n: number): JsonObject => ({ kind: 'IssueLink', work_id: workId, resource: issue(n), projector_ref: REF });
const comment = (workId: string, id: string, claimId?: string): JsonObject => ({ kind: 'IssueComment', work_id: workId, comment_id: id, projector_ref: REF, ...(claimId === undefined ? {} : { claim_id: claimId }) });

function queue(): { q: TestQueue; a: string; b: string } {
  const q = new TestQueue(policyOf(), nodes('p', 2, ''));
  return { q, a: q.workId('p-1'), b: q.workId('p-2') };
}

describe('backing-Issue bindings on replay', () => {
  it('control: a reconciler observe binding an Issue and comment handles replays', () => {
    const { q, a } = queue();
    const g = grantOne(q);
    expect(byteVerdict(forge(q, { id: 'bind', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(a, 1), comment(a, '71'), comment(a, '72', g.claimId)] }))).toBe('accepted');
  });

  it('a worker cannot publish bindings in an observe (projector_not_authorized)', () => {
    const { q, a } = queue();
    // After Completion the worker's own observe is authorized; the bindings inside it are not.
    const g = completedClaim(q, '77');
    expect(byteVerdict(forge(q, { id: 'bind', kind: 'observe', actor: workerOf(g.dispatchId, '77'), at: q.tick(), operations: [link(a, 1)] }))).toBe('projector_not_authorized');
  });

  it('a submit binds an Issue only for the Work it admits: another Work (another tenant\'s, from a producer or a worker\'s follow-up submit) is projector_not_authorized', () => {
    const { q, a } = queue();
    const at = q.tick();
    const built = submitRequest(q.state, [{ node_key: 'fresh', payload: {} }], { graphId: 'g2', at });
    const fresh = (built.operations[0] as unknown as { work_id: string }).work_id;
    const ops = built.operations as unknown as JsonObject[];
    // Control: the hook beside admission binds the Work this submit admits.
    expect(byteVerdict(forge(q, { id: 'own', kind: 'submit', actor: producer, at, operations: [...ops, link(fresh, 3)], parameters: built.parameters as JsonObject }))).toBe('accepted');
    expect(byteVerdict(forge(q, { id: 'other', kind: 'submit', actor: producer, at, operations: [...ops, link(a, 3)], parameters: built.parameters as JsonObject }))).toBe('projector_not_authorized');
    // A worker's follow-up submit after its Claim completed: its child may be bound, another Work may not.
    const g = completedClaim(q, '91');
    const worker = workerOf(g.dispatchId, '91');
    const at2 = q.tick();
    const child = submitRequest(q.state, [{ node_key: 'child', payload: {} }], { graphId: 'g3', at: at2 });
    const childOps = child.operations as unknown as JsonObject[];
    const foreign = g.workId === a ? q.workId('p-2') : a;
    expect(byteVerdict(forge(q, { id: 'worker-foreign', kind: 'submit', actor: worker, at: at2, operations: [...childOps, link(foreign, 4)], parameters: child.parameters as JsonObject }))).toBe('projector_not_authorized');
  });

  it('bindings ride only in the request kinds that carry them (operation_not_allowed in dispatch)', () => {
    const { q, a } = queue();
    expect(byteVerdict(forge(q, { id: 'bind', kind: 'dispatch', actor: reconciler, at: q.tick(), operations: [link(a, 1)] }))).toBe('operation_not_allowed');
  });

  it('a link cannot be rebound (issue_link_immutable) and one Issue backs one Work (issue_link_conflict)', () => {
    const { q, a, b } = queue();
    q.w.publish('bind-a', reconciler, q.tick(), operationsRequest('observe', [link(a, 1)]));
    expect(byteVerdict(forge(q, { id: 'rebind', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(a, 2)] }))).toBe('issue_link_immutable');
    expect(byteVerdict(forge(q, { id: 'steal', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(b, 1)] }))).toBe('issue_link_conflict');
  });

  it('a comment handle is recorded once in the queue (issue_comment_duplicate, also for another Work) and names a Claim of its own Work (claim_scope_invalid)', () => {
    const { q, a, b } = queue();
    const g = grantOne(q);
    q.w.publish('links', reconciler, q.tick(), operationsRequest('observe', [link(a, 1), link(b, 2)]));
    q.w.publish('c1', reconciler, q.tick(), operationsRequest('observe', [comment(a, '71')]));
    expect(byteVerdict(forge(q, { id: 'c2', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(a, '71')] }))).toBe('issue_comment_duplicate');
    // Another Work's Issue: the handle is still the one recorded for a.
    expect(byteVerdict(forge(q, { id: 'c2b', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(b, '71')] }))).toBe('issue_comment_duplicate');
    expect(byteVerdict(forge(q, { id: 'c2c', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(b, '74')] }))).toBe('accepted');
    const foreign = g.workId === a ? b : a;
    expect(byteVerdict(forge(q, { id: 'c3', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(foreign, '73', g.claimId)] }))).toBe('claim_scope_invalid');
  });

  it('a comment on a Work with no backing Issue (no IssueLink, no backing_issue) is issue_link_invalid; after its link it is accepted', () => {
    const { q, a } = queue();
    expect(byteVerdict(forge(q, { id: 'c1', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(a, '71')] }))).toBe('issue_link_invalid');
    expect(byteVerdict(forge(q, { id: 'c1', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(a, 1), comment(a, '71')] }))).toBe('accepted');
  });

  it('a summary or Claim comment handle cannot be rebound to another comment (issue_comment_immutable)', () => {
    const { q, a } = queue();
    const g = grantOne(q);
    const links = g.workId === a ? [link(a, 1)] : [link(a, 1), link(g.workId, 2)];
    q.w.publish('c1', reconciler, q.tick(), operationsRequest('observe', [...links, comment(a, '71'), comment(g.workId, '81', g.claimId)]));
    expect(byteVerdict(forge(q, { id: 'c2', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(a, '72')] }))).toBe('issue_comment_immutable');
    expect(byteVerdict(forge(q, { id: 'c3', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(g.workId, '82', g.claimId)] }))).toBe('issue_comment_immutable');
  });
});
