/**
 * The fold's per-operation measurements that a worker thread may take ahead (engine/replay/
 * measures.ts): Work ids, the largest evidence record and the largest Result descriptor of a
 * record. Each forbidden ledger here is judged both ways (`byteVerdict` / `refusalBothWays`:
 * replay alone, and with every record verified and measured ahead), and must fail with the same
 * code at the same operation: a measure taken ahead only ever lets the fold skip a check that
 * passes.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../engine/codec/index.ts';
import { workId } from '../../engine/identity/index.ts';
import type { JsonObject } from '../../engine/json.ts';
import { observation, result } from '../../engine/requests/lifecycle.ts';
import { submitRequest } from '../../engine/requests/operations.ts';
import { issue, nodes, policyOf, producer, reconciler, TestQueue } from '../acceptance/queue.ts';
import { refusalBothWays } from '../support/verified-replay.ts';
import { byteVerdict, completedClaim, forge } from './forbidden.ts';

function queue(limits: Record<string, number> = {}): TestQueue {
  const policy = policyOf({ accounting_weights: { a: 1 } });
  Object.assign(policy.limits as JsonObject, limits);
  return new TestQueue(policy, nodes('p', 1, 'a'));
}

const utf8 = (v: JsonObject): number => new TextEncoder().encode(canonicalize(v)).length;

/** Set `obj[field]` to a run of `x` so that `measured()` is exactly `target` canonical bytes. */
function padTo(obj: JsonObject, field: string, target: number, measured: () => number): void {
  obj[field] = 'x';
  obj[field] = 'x'.repeat(1 + target - measured());
}

describe('Work ids (spec 7.2: work_id = SHA256(canonical({graph_id,node_key})))', () => {
  function submitWithIds(edit: (ops: JsonObject[]) => void): Uint8Array {
    const q = queue();
    const ops = submitRequest(q.state, nodes('x', 3, 'a'), { graphId: 'gx', at: q.tick() }).operations as unknown as JsonObject[];
    edit(ops);
    return forge(q, { id: 'submit-x', kind: 'submit', actor: producer, at: q.t, operations: ops });
  }

  it('a submit whose Work ids are all derived replays', () => {
    expect(byteVerdict(submitWithIds(() => {}))).toBe('accepted');
  });

  it('a Work whose work_id is another node\'s id is work_id_mismatch, at that operation', () => {
    const e = refusalBothWays(submitWithIds((ops) => {
      ops[1]!.work_id = workId('gx', 'elsewhere');
    }));
    expect([e.code, e.operation, e.path]).toEqual(['work_id_mismatch', 1, 'operations.1.work_id']);
  });

  it('of two mismatched Work ids, the first is named', () => {
    const e = refusalBothWays(submitWithIds((ops) => {
      ops[2]!.work_id = workId('gx', 'z');
      ops[1]!.work_id = workId('gx', 'y');
    }));
    expect([e.code, e.operation]).toEqual(['work_id_mismatch', 1]);
  });
});

describe('the largest measure of a record against the limit in force (spec 7.17)', () => {
  const LIMIT = 400;

  function twoObservations(sizes: [number, number]): Uint8Array {
    const q = queue({ evidence_bytes: LIMIT });
    const at = q.tick();
    const ops = sizes.map((size, i) => {
      const op = observation({ id: `o-${i}`, resource: issue(7 + i), condition: 'completed', satisfied: false, observedAt: at, generation: 'initial' });
      padTo(op, 'observation_id', size, () => utf8(op));
      return op;
    });
    return forge(q, { id: 'observe', kind: 'observe', actor: reconciler, at, operations: ops });
  }

  it('two Observations of at most evidence_bytes replay', () => {
    expect(byteVerdict(twoObservations([LIMIT - 50, LIMIT]))).toBe('accepted');
  });

  it('the Observation one byte over evidence_bytes is named, first or second', () => {
    for (const [sizes, operation] of [[[LIMIT - 50, LIMIT + 1], 1], [[LIMIT + 1, LIMIT - 50], 0], [[LIMIT + 2, LIMIT + 1], 0]] as const) {
      const e = refusalBothWays(twoObservations([...sizes]));
      expect([e.code, e.details?.limit, e.operation]).toEqual(['resource_limit', 'evidence_bytes', operation]);
    }
  });

  it('a Result descriptor of exactly result_bytes replays; one byte more is resource_limit', () => {
    const RESULT = 600;
    const build = (size: number): Uint8Array => {
      const q = queue({ result_bytes: RESULT });
      const { workId: id } = completedClaim(q, '202');
      const descriptor: JsonObject = { summary: 'x' };
      padTo(descriptor, 'summary', size, () => utf8(descriptor));
      const op = structuredClone(result(q.state, id, descriptor, q.tick(), 'r').operations[0]) as unknown as JsonObject;
      return forge(q, { id: 'result', kind: 'result', actor: reconciler, at: q.t, operations: [op] });
    };
    expect(byteVerdict(build(RESULT))).toBe('accepted');
    const e = refusalBothWays(build(RESULT + 1));
    expect([e.code, e.details?.limit, e.operation]).toEqual(['resource_limit', 'result_bytes', 0]);
  });
});
