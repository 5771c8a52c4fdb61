/**
 * Replay is the judge of projector rules, pre-existing backing Issues and cross-repository
 * bindings (operator reference "Backing Issues": exact pre-existing Issue grants,
 * cross-repository projection and closure require explicit trusted projector rules). Each
 * forbidden ledger is replayed as BYTES through the real framing and answers its own code.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { operationsRequest, submitRequest, workOperations } from '../../engine/requests/operations.ts';
import { policyRequest } from '../../engine/requests/admin.ts';
import { cancelWork } from '../../engine/requests/lifecycle.ts';
import { admin, producer, reconciler, REPOSITORY, TestQueue } from '../acceptance/queue.ts';
import { issueIn, OTHER, policyWith, projectorActor, rule, RULE_REF } from '../issues/rules.ts';
import { byteVerdict, forge } from './forbidden.ts';

const granted = issueIn(OTHER, 7);
const SEED = [{ node_key: 'seed', payload: {} }];
const link = (workId: string, resource: JsonObject, ref = RULE_REF): JsonObject => ({ kind: 'IssueLink', work_id: workId, resource, projector_ref: ref });

/** Submits node `key` naming `backing` on `q` as a forged commit (so only admission can fail). */
function submitBacked(q: TestQueue, key: string, backing: JsonObject): Uint8Array {
  const ops = workOperations(q.state.policy!.policy, [{ node_key: key, payload: {}, backing_issue: backing }], { graphId: 'g2', at: q.t });
  return forge(q, { id: `submit-${key}`, kind: 'submit', actor: producer, at: q.tick(), operations: ops as unknown as JsonObject[] });
}

describe('projector rules in the Policy', () => {
  it('control: a Policy with coherent projector rules (grants, completion policy) installs and replays', () => {
    const q = new TestQueue(policyWith([rule({ completion_policy: 'close-on-result', backing_issues: [granted as never] })]), [{ node_key: 'n', payload: {} }]);
    expect(byteVerdict(new TextEncoder().encode(q.text()))).toBe('accepted');
  });

  it('incoherent rules are policy_invalid: an uninstalled pool, a workflow outside .github/workflows, a grant outside the rule\'s repositories, a pull request grant', () => {
    const bad = [
      rule({ pools: ['nope'] }),
      rule({ workflow: 'queue.yml' }),
      rule({ workflow: '.github/workflows/../x.yml' }),
      rule({ repositories: [REPOSITORY], backing_issues: [granted as never] }),
      rule({ backing_issues: [{ ...granted, kind: 'pull_request' } as never] }),
      rule({ repositories: ['not a repo'] }),
    ];
    for (const r of bad) {
      const q = new TestQueue(policyWith([]), [{ node_key: 'n', payload: {} }]);
      q.w.publish('cancel', admin, q.tick(), cancelWork([q.workId('n')], 'drain'));
      const built = policyRequest('epoch-2', policyWith([r]));
      expect(byteVerdict(forge(q, { id: 'policy-2', kind: 'policy', actor: admin, at: q.tick(), operations: built.operations as unknown as JsonObject[] })), JSON.stringify(r)).toBe('policy_invalid');
    }
  });

  it('a completion policy other than keep-open / close-on-result is schema_invalid', () => {
    const q = new TestQueue(policyWith([]), [{ node_key: 'n', payload: {} }]);
    q.w.publish('cancel', admin, q.tick(), cancelWork([q.workId('n')], 'drain'));
    const built = policyRequest('epoch-2', policyWith([rule({ completion_policy: 'keep-open' })]));
    const bytes = forge(q, { id: 'policy-2', kind: 'policy', actor: admin, at: q.tick(), operations: built.operations as unknown as JsonObject[] });
    const text = new TextDecoder().decode(bytes).replaceAll('"keep-open"', '"close-always"');
    expect(byteVerdict(new TextEncoder().encode(text))).toBe('schema_invalid');
  });
});

describe('pre-existing backing Issues at admission', () => {
  it('control: a Work naming an Issue an installed rule grants exactly is admitted, in the other repository', () => {
    const q = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })]), SEED);
    expect(byteVerdict(submitBacked(q, 'b', granted))).toBe('accepted');
  });

  it('without an exact grant: resource_unauthorized (no rule, a different Issue granted, another pool\'s grant)', () => {
    for (const rules of [[], [rule({ backing_issues: [issueIn(OTHER, 8) as never] })], [rule({ repositories: [REPOSITORY], backing_issues: [issueIn(REPOSITORY, 7) as never] })]]) {
      const q = new TestQueue(policyWith(rules), SEED);
      expect(byteVerdict(submitBacked(q, 'b', granted))).toBe('resource_unauthorized');
    }
    // The same Issue spelled with another number (renumbered, not the granted identity) is not the grant either.
    const q = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })]), SEED);
    expect(byteVerdict(submitBacked(q, 'b', { ...granted, number: '9' }))).toBe('resource_unauthorized');
  });

  it('a pull request, or an Issue outside the pool\'s allowed repositories, is resource_unauthorized even when granted', () => {
    const pr = { ...granted, kind: 'pull_request' };
    const q1 = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })]), SEED);
    expect(byteVerdict(submitBacked(q1, 'b', pr))).toBe('resource_unauthorized');
    const q2 = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })], [REPOSITORY]), SEED);
    expect(byteVerdict(submitBacked(q2, 'b', granted))).toBe('resource_unauthorized');
  });

  it('one Work per Issue: a second Work naming it, or a link of another Work to it, is issue_link_conflict; its own Work cannot be linked elsewhere (issue_link_immutable)', () => {
    const q = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })]), [{ node_key: 'plain', payload: {} }]);
    q.w.publish('submit-b', producer, q.tick(), submitRequest(q.state, [{ node_key: 'b', payload: {}, backing_issue: granted }], { graphId: 'g2', at: q.t }));
    expect(byteVerdict(submitBacked(q, 'c', granted))).toBe('issue_link_conflict');
    expect(byteVerdict(forge(q, { id: 'steal', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(q.workId('plain'), granted)] }))).toBe('issue_link_conflict');
    expect(byteVerdict(forge(q, { id: 'relink', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(q.workId('b'), issueIn(OTHER, 8))] }))).toBe('issue_link_immutable');
  });
});

describe('cross-repository bindings need current target authority', () => {
  it('a link to an Issue in another allowed repository replays only for the run a rule names (principal, workflow, projector_ref)', () => {
    const q = new TestQueue(policyWith([rule()]), [{ node_key: 'n', payload: {} }]);
    const w = q.workId('n');
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(w, issueIn(OTHER, 3))] }))).toBe('accepted');
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(w, issueIn(OTHER, 3))] }))).toBe('projector_not_authorized');
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(w, issueIn(OTHER, 3), 'b'.repeat(40))] }))).toBe('projector_not_authorized');
    // The queue repository's own Issue needs no rule (AW-managed hooks project their own Work there).
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: reconciler, at: q.tick(), operations: [link(w, issueIn(REPOSITORY, 3))] }))).toBe('accepted');
  });

  it('a link outside the pool\'s allowed repositories is resource_unauthorized; a pull request is issue_link_invalid', () => {
    const q = new TestQueue(policyWith([rule()], [REPOSITORY]), [{ node_key: 'n', payload: {} }]);
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(q.workId('n'), issueIn(OTHER, 3))] }))).toBe('resource_unauthorized');
    expect(byteVerdict(forge(q, { id: 'x', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [link(q.workId('n'), { ...issueIn(REPOSITORY, 3), kind: 'pull_request' })] }))).toBe('issue_link_invalid');
  });

  it('a comment on a pre-existing Issue needs the exact grant for the publishing run (projector_not_authorized otherwise)', () => {
    const q = new TestQueue(policyWith([rule({ backing_issues: [granted as never] })]), SEED);
    q.w.publish('submit-b', producer, q.tick(), submitRequest(q.state, [{ node_key: 'b', payload: {}, backing_issue: granted }], { graphId: 'g2', at: q.t }));
    const comment = (ref: string): JsonObject => ({ kind: 'IssueComment', work_id: q.workId('b'), comment_id: '91', projector_ref: ref });
    expect(byteVerdict(forge(q, { id: 'c', kind: 'observe', actor: projectorActor, at: q.tick(), operations: [comment(RULE_REF)] }))).toBe('accepted');
    expect(byteVerdict(forge(q, { id: 'c', kind: 'observe', actor: reconciler, at: q.tick(), operations: [comment(RULE_REF)] }))).toBe('projector_not_authorized');
    q.w.publish('unused', projectorActor, q.tick(), operationsRequest('observe', [comment(RULE_REF)]));
    expect(q.state.issueLinks.get(q.workId('b'))!.map((r) => r.kind)).toEqual(['IssueComment']);
  });
});
