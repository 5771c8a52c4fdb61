/**
 * Admission-time fit (spec 7.17, issue 11 §3): a Work that cannot fit a valid one-Claim
 * assignment (payload plus one bounded Result reference per Work predecessor) is rejected at
 * admission with `assignment_limit`, instead of being admitted and blocking its pool forever.
 * Ledgers are replayed from bytes; the limit under test is rewritten in the genesis Policy with
 * the same digit count, so every record keeps its bytes and only this rule decides.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, submitRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor, QueueOperation } from '../schema/index.ts';
import { worstAssignmentBytes } from './assignment-fit.ts';
import { replayLedger } from './index.ts';

const REPO = 'acme/queue';
const producer: Actor = { role: 'producer', principal: '1001', repository: REPO };
const encoder = new TextEncoder();

function codeOf(input: Uint8Array): string {
  try {
    replayLedger(input);
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

function policy(): JsonObject {
  const p = defaultPolicy({ repository: REPO, principal: '1001' });
  p.producers = { '1001': { pools: ['default'], priorities: [1, 2, 3, 4, 5], fairness_keys: [''] } };
  return p;
}

function withAssignmentBytes(text: string, value: number): Uint8Array {
  const lines = text.split('\n');
  const genesis = JSON.parse(lines[0]!) as JsonObject & { operations: JsonObject[] };
  const limits = (genesis.operations[0]!.policy as JsonObject).limits as JsonObject;
  expect(String(value).length).toBe(String(limits.assignment_bytes).length);
  limits.assignment_bytes = value;
  lines[0] = canonicalize(genesis as unknown as JsonValue);
  return encoder.encode(lines.join('\n'));
}

/** Bootstrap with `roots` root Works, then (unvalidated) one submit of a child naming the first `parents` of them. */
function childLedger(roots: number, parents: number, payload: JsonObject): { text: string; child: QueueOperation } {
  const w = new LedgerWriter();
  const nodes = Array.from({ length: roots }, (_, i) => ({ node_key: `r${i}`, payload: { r: i } }));
  w.publish('seed', producer, 1, bootstrapRequest(policy(), 'e1', nodes, { graphId: 'g', at: 1 }));
  const depends = Array.from({ length: parents }, (_, i) => ({ kind: 'work' as const, node_key: `r${i}` }));
  const built = submitRequest(w.state, [{ node_key: 'child', payload, depends_on: depends }] as never, { graphId: 'g', at: 2 });
  const commit = buildCommit(w.state, { id: 's1', actor: producer, at: 2, ...built });
  return { text: `${w.text()}${canonicalize(commit as unknown as JsonValue)}\n`, child: built.operations[0]! };
}

describe('admission-time fit (assignment_limit, spec 7.17)', () => {
  const payload = { p: 'y'.repeat(15000) };
  const { text, child } = childLedger(2, 2, payload);
  const worst = worstAssignmentBytes(child as never, 'e1', 4096);

  it('the worst case counts the payload and a full result_bytes descriptor per Work predecessor', () => {
    const none = worstAssignmentBytes({ ...(child as object), depends_on: [] } as never, 'e1', 4096);
    expect(worst - none).toBeGreaterThan(2 * 4096);
    expect(none).toBeGreaterThan(canonicalize(payload).length);
  });

  it('admits a Work whose worst-case one-Claim assignment is exactly assignment_bytes, or one byte under', () => {
    expect(codeOf(withAssignmentBytes(text, worst))).toBe('accepted');
    expect(codeOf(withAssignmentBytes(text, worst + 1))).toBe('accepted');
  });

  it('rejects a Work whose worst-case one-Claim assignment is one byte over assignment_bytes (assignment_limit)', () => {
    try {
      replayLedger(withAssignmentBytes(text, worst - 1));
      expect.unreachable('a Work that cannot be assigned was admitted');
    } catch (e) {
      if (!isProtocolError(e)) throw e;
      expect(e.code).toBe('assignment_limit');
      expect(e.details).toMatchObject({ limit: 'assignment_bytes', bytes: worst, max: worst - 1, node_key: 'child' });
    }
  });

  it('with the default 48 KiB assignment limit admits a Work with 10 Result parents and rejects 11', () => {
    expect(codeOf(encoder.encode(childLedger(11, 10, { t: 1 }).text))).toBe('accepted');
    expect(codeOf(encoder.encode(childLedger(11, 11, { t: 1 }).text))).toBe('assignment_limit');
  });
});
