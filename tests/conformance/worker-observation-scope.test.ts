/**
 * A worker's reads stay inside its Claim's scope wherever they ride (spec 7.14 "A worker-originated
 * control intent still carries its Claim scope"; 7.16 "The compiler's dependency-read allowlist and
 * credential mapping govern cross-repo access", "A cross-repo reference grants neither foreign
 * mutation permissions nor cross-repo worker dispatch rights"). Pool `default` allows only the
 * queue repository; pool `batch` also allows `other/repo`. A completed `default` worker's
 * Observation of an `other/repo` Issue is `resource_unauthorized` in its `observe`
 * (forbidden-ledgers.test.ts) and, here, in the Observations of its `dispatch_next`: recorded, it
 * would become the latest read of a gate `batch` Work waits on. Replayed as bytes.
 */
import { describe, expect, it } from 'vitest';
import { candidateCommitId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { observation } from '../../engine/requests/lifecycle.ts';
import { dispatchNextRequest, operationsRequest } from '../../engine/requests/operations.ts';
import { issue, nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, completedClaim, forgeBuilt } from './forbidden.ts';

const FOREIGN = { ...issue(9), repository: 'other/repo', repository_id: '2' };

function queue() {
  const policy = policyOf({ pools: { batch: {} }, accounting_weights: { a: 1 } });
  ((policy.pools as JsonObject).batch as JsonObject).allowed_repositories = ['owner/repo', 'other/repo'];
  const q = new TestQueue(policy, nodes('p', 2, 'a'));
  q.submit([{ node_key: 'gated', payload: {}, fairness_key: 'a', pool: 'batch', depends_on: [{ kind: 'issue', condition: 'completed', resource: FOREIGN }] }], { graphId: 'batch' });
  return { q, ...completedClaim(q, '7001') };
}

/** The worker's own dispatch_next in its parent's pool (the fair Claim of p-2), with `read` recorded ahead of it. */
function workerGrant(q: TestQueue, worker: ReturnType<typeof queue>['worker'], read: JsonObject): Uint8Array {
  const at = q.tick();
  const id = 'worker-grant';
  const built = dispatchNextRequest(q.state, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 }, { requestId: id, commitId: candidateCommitId(q.state.tip, id) }, at);
  expect(built.operations.map((op) => op.kind)).toEqual(['Claim']);
  return forgeBuilt(q, id, worker, at, { ...built, operations: [read as never, ...built.operations] });
}

const read = (id: string, resource: JsonObject, at: number) => observation({ id, resource, condition: 'completed', satisfied: true, observedAt: at, generation: 'initial' });

describe('a worker\'s dispatch_next records reads only inside its parent pool\'s allowed repositories (spec 7.14, 7.16)', () => {
  it('control: its read of a queue-repository Issue replays, and a reconciler may record the other/repo read batch depends on', () => {
    const { q, worker } = queue();
    expect(byteVerdict(workerGrant(q, worker, read('o-own', issue(9), q.t + 1)))).toBe('accepted');
    expect(byteVerdict(forgeBuilt(q, 'observe', reconciler, q.tick(), operationsRequest('observe', [read('o-foreign', FOREIGN, q.t)])))).toBe('accepted');
  });

  it('its read of the other/repo Issue a batch Work waits on is resource_unauthorized, as in its observe', () => {
    const { q, worker } = queue();
    expect(byteVerdict(workerGrant(q, worker, read('o-foreign', FOREIGN, q.t + 1)))).toBe('resource_unauthorized');
    expect(byteVerdict(forgeBuilt(q, 'worker-observe', worker, q.tick(), operationsRequest('observe', [read('o-foreign', FOREIGN, q.t)])))).toBe('resource_unauthorized');
  });
});
