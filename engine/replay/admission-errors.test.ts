/**
 * Work admission errors name graph ids, node keys and JSON paths, and replay
 * still rejects a second admission of an admitted work_id (issue 10 §5). Each
 * forbidden ledger is a valid ledger plus one hand-built commit (fingerprint
 * and id recomputed by buildCommit), replayed as bytes.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError, type ProtocolError } from '../errors.ts';
import { workId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, submitRequest, workOperations } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor, QueueOperation } from '../schema/index.ts';
import { replayLedger } from './index.ts';

const REPOSITORY = 'acme/app';
const producer: Actor = { role: 'producer', principal: '1001', repository: REPOSITORY };
const T0 = 1_767_225_600_000;

function seeded(): LedgerWriter {
  const w = new LedgerWriter();
  const policy = defaultPolicy({ repository: REPOSITORY, principal: '1001' });
  w.publish('boot', producer, T0, bootstrapRequest(policy, 'e1', [
    { node_key: 'inspect', payload: { step: 'inspect' } },
  ], { graphId: 'sdk-migration', at: T0 }));
  w.publish('other', producer, T0 + 1, submitRequest(w.state, [{ node_key: 'lint', payload: {} }], { graphId: 'platform', at: T0 + 1 }));
  return w;
}

/** The writer's ledger plus one unvalidated submit commit of `works`, replayed as bytes. */
function rejection(w: LedgerWriter, works: JsonObject[]): ProtocolError {
  const commit = buildCommit(w.state, {
    id: 'forbidden', kind: 'submit', parameters: { nodes: works }, actor: producer, at: T0 + 10, operations: works as unknown as QueueOperation[],
  });
  const text = `${w.text()}${canonicalize(commit as unknown as JsonValue)}\n`;
  try {
    replayLedger(new TextEncoder().encode(text));
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
  throw new Error('the forbidden ledger was accepted');
}

function work(w: LedgerWriter, graphId: string, nodeKey: string, depends: JsonObject[] = []): JsonObject {
  const [op] = workOperations(w.state.policy!.policy, [{ node_key: nodeKey, payload: { step: nodeKey } }], { graphId, at: T0 + 10 });
  return { ...(op as unknown as JsonObject), depends_on: depends };
}

describe('replay: Work admission errors name graph, node keys and paths', () => {
  it('rejects a commit that re-admits an already-admitted work_id, even with an identical definition (duplicate_work)', () => {
    const w = seeded();
    const admitted = w.state.works.get(workId('sdk-migration', 'inspect'))!.definition;
    const e = rejection(w, [structuredClone(admitted)]);
    expect(e.code).toBe('duplicate_work');
    expect(e.message).toContain('node inspect in graph sdk-migration is already admitted');
    expect(e.path).toBe('operations.0.node_key');
    expect(e.details).toMatchObject({ graph_id: 'sdk-migration', node_key: 'inspect', admitted_commit: w.state.works.get(workId('sdk-migration', 'inspect'))!.admittedCommit });
  });

  it('rejects one commit that admits the same node key twice, saying so (duplicate_work)', () => {
    const w = seeded();
    const e = rejection(w, [work(w, 'sdk-migration', 'review'), work(w, 'sdk-migration', 'review')]);
    expect(e.code).toBe('duplicate_work');
    expect(e.message).toBe('duplicate node key review in graph sdk-migration: operations 0 and 1 of one commit admit the same Work');
    expect(e.path).toBe('operations.1.node_key');
  });

  it('rejects a Work edge to a node that is not in the graph, naming the node key, graph and edge path (dependency_missing)', () => {
    const w = seeded();
    const missing = workId('sdk-migration', 'ghost');
    const e = rejection(w, [work(w, 'sdk-migration', 'review', [{ kind: 'work', work_id: missing }])]);
    expect(e.code).toBe('dependency_missing');
    expect(e.message).toContain(`review -> Work ${missing} (not in graph sdk-migration`);
    expect(e.path).toBe('operations.0.depends_on.0');
  });

  it('rejects a Work edge into another graph, naming both graph/node keys (dependency_foreign_graph)', () => {
    const w = seeded();
    const e = rejection(w, [work(w, 'sdk-migration', 'review', [{ kind: 'work', work_id: workId('platform', 'lint') }])]);
    expect(e.code).toBe('dependency_foreign_graph');
    expect(e.message).toBe('review -> platform/lint (not in graph sdk-migration)');
    expect(e.path).toBe('operations.0.depends_on.0');
  });

  it('rejects a self edge as node -> node (dependency_self)', () => {
    const w = seeded();
    const e = rejection(w, [work(w, 'sdk-migration', 'review', [{ kind: 'work', work_id: workId('sdk-migration', 'review') }])]);
    expect(e.code).toBe('dependency_self');
    expect(e.message).toContain('review -> review');
  });

  it('names the node when its fairness key is unknown (unknown_fairness_key)', () => {
    const w = seeded();
    const e = rejection(w, [{ ...work(w, 'sdk-migration', 'review'), fairness_key: 'nobody' }]);
    expect(e.code).toBe('unknown_fairness_key');
    expect(e.message).toContain('node review in graph sdk-migration');
    expect(e.path).toBe('operations.0.fairness_key');
  });
});
