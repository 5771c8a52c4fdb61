/**
 * The submit builder's resubmission rules (spec 7.15, contract duplicate_node):
 * exact existing nodes consume no operation, an all-existing submission is the
 * existing record (`already_admitted`) only for an entitled submitter, and a
 * differing node is `inconsistent_resubmission` with both digests.
 */
import { describe, expect, it } from 'vitest';
import { isProtocolError } from '../errors.ts';
import { workId } from '../identity/index.ts';
import type { JsonObject } from '../json.ts';
import type { Actor } from '../schema/index.ts';
import { bootstrapRequest, definitionDigest, submitOrExisting, submitRequest, type SubmitNode } from './operations.ts';
import { defaultPolicy, LedgerWriter } from './writer.ts';

const REPOSITORY = 'acme/app';
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const stranger: Actor = { role: 'producer', principal: '2002', repository: REPOSITORY };
const reconciler: Actor = { role: 'reconciler', principal: '1001', repository: REPOSITORY };
const T0 = 1_767_225_600_000;
const graph: SubmitNode[] = [{ node_key: 'inspect', payload: { a: 1 } }, { node_key: 'review', payload: { b: 2 }, depends_on: [{ kind: 'work', node_key: 'inspect' }] }];

function queue(producers: JsonObject = {}): LedgerWriter {
  const w = new LedgerWriter();
  const policy = { ...defaultPolicy({ repository: REPOSITORY, principal: '1001' }), producers };
  w.publish('boot', producer, T0, bootstrapRequest(policy, 'e1', graph, { graphId: 'sdk', at: T0 }));
  return w;
}

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

describe('submit builder: resubmission', () => {
  it('an all-existing exact resubmission at a later time is already_admitted with the existing ids and commit', () => {
    const w = queue();
    const r = submitOrExisting(w.state, graph, { graphId: 'sdk', at: T0 + 5000, actor: producer });
    expect('noWrite' in r && r.noWrite).toEqual({
      code: 'already_admitted', message: expect.stringContaining('already admitted'),
      detail: { work_ids: [workId('sdk', 'inspect'), workId('sdk', 'review')], commits: [w.state.works.get(workId('sdk', 'inspect'))!.admittedCommit] },
    });
  });

  it('a mixed submission builds only the new nodes, and the commit replays', () => {
    const w = queue();
    const built = submitRequest(w.state, [...graph, { node_key: 'ship', payload: {}, depends_on: [{ kind: 'work', node_key: 'review' }] }], { graphId: 'sdk', at: T0 + 1 });
    expect(built.existing).toEqual([workId('sdk', 'inspect'), workId('sdk', 'review')]);
    expect(built.operations.map((o) => (o as unknown as { node_key: string }).node_key)).toEqual(['ship']);
    expect(() => w.publish('more', producer, T0 + 1, built)).not.toThrow();
    expect(w.state.works.get(workId('sdk', 'ship'))?.state).toBe('available');
  });

  it('a node with another definition is inconsistent_resubmission carrying both digests', () => {
    const w = queue();
    let error: unknown;
    try {
      submitRequest(w.state, [{ node_key: 'inspect', payload: { a: 2 } }], { graphId: 'sdk', at: T0 + 1 });
    } catch (e) {
      error = e;
    }
    expect(isProtocolError(error) && error.code).toBe('inconsistent_resubmission');
    const details = (error as { details: Record<string, string> }).details;
    expect(details.admitted_digest).toBe(definitionDigest(w.state.works.get(workId('sdk', 'inspect'))!.definition));
    expect(details.submitted_digest).not.toBe(details.admitted_digest);
  });

  it('an idempotent answer still requires current producer entitlement (producer_not_authorized) and a submitting role (role_not_allowed)', () => {
    const w = queue({ 1001: { pools: ['default'], priorities: [3], fairness_keys: [''] } });
    expect(codeOf(() => submitOrExisting(w.state, graph, { graphId: 'sdk', at: T0 + 1, actor: producer }))).toBe('accepted');
    expect(codeOf(() => submitOrExisting(w.state, graph, { graphId: 'sdk', at: T0 + 1, actor: stranger }))).toBe('producer_not_authorized');
    expect(codeOf(() => submitOrExisting(w.state, graph, { graphId: 'sdk', at: T0 + 1, actor: reconciler }))).toBe('role_not_allowed');
  });
});
