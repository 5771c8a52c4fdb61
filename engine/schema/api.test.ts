/** Behaviour of the exported API that does not depend on the shared reference data. */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ProtocolError } from '../errors.ts';
import {
  CheckpointParametersSchema,
  DispatchNextParametersSchema,
  FairnessKeySchema,
  FinishParametersSchema,
  OperationKindSchema,
  OperationsParametersSchema,
  QueueCommitSchema,
  QueueRequestSchema,
  RequestKind,
  RequestKindSchema,
  RequestParametersSchema,
  SubmitParametersSchema,
  TimestampSchema,
  WireObjectSchema,
  isWireValue,
  parametersSchemaFor,
  parseQueueCommit,
  type QueueCommit,
  type QueueOperation,
} from './index.ts';

const FP = 'a'.repeat(64);
const control = { kind: 'Control', control: 'grants_paused', value: true, reason: 'drain' } as const;
const commit = {
  version: 3,
  id: 'q1',
  previous: 'q0',
  request: { id: 'r1', kind: 'control', parameters: { operations: [control] }, fingerprint: FP },
  actor: { role: 'administrator', principal: '1001', repository: 'owner/repo' },
  policy_epoch: 'e1',
  at: 10,
  operations: [control],
};

describe('parseQueueCommit', () => {
  it('returns an equal value and narrows operations by kind', () => {
    const parsed: QueueCommit = parseQueueCommit(commit);
    expect(parsed).toEqual(commit);
    const operation: QueueOperation = parsed.operations[0]!;
    if (operation.kind === 'Control') expectTypeOf(operation.value).toEqualTypeOf<string | boolean>();
    expect(parseQueueCommit({ ...commit, previous: null, trace: { trace_id: 't', span_id: 's', publisher_attempt: 2 } }).trace?.publisher_attempt).toBe(2);
  });

  it('throws a ProtocolError with the first issue path and the commit id; a bad reason code is reason_invalid (reference contract)', () => {
    const bad = { ...commit, operations: [{ ...control }, { ...control, reason: 'not ok' }] };
    const error = (() => {
      try {
        parseQueueCommit(bad);
      } catch (e) {
        return e as ProtocolError;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe('reason_invalid');
    expect(error.path).toBe('operations.1.reason');
    expect(error.commit).toBe('q1');
    expect(error.message).toContain('operations.1.reason');
  });

  it('reports the root for non-objects and leaves commit unset when there is no string id', () => {
    for (const value of [null, 'x', 3, [], undefined]) {
      expect(() => parseQueueCommit(value)).toThrow(ProtocolError);
      try {
        parseQueueCommit(value);
      } catch (e) {
        expect((e as ProtocolError).path).toBe('');
        expect((e as ProtocolError).commit).toBeUndefined();
      }
    }
  });

  it('rejects unknown top-level keys with an "Unrecognized key" message', () => {
    expect(() => parseQueueCommit({ ...commit, extra: true })).toThrow(/Unrecognized key/);
  });
});

describe('request kinds and parameters', () => {
  it('RequestKind has the twelve v3 kinds plus checkpoint', () => {
    expect(RequestKindSchema.options).toHaveLength(13);
    expect(RequestKind.dispatch_next).toBe('dispatch_next');
    expect(RequestKind.checkpoint).toBe('checkpoint');
  });

  it('parametersSchemaFor maps every kind to its contract shape', () => {
    expect(parametersSchemaFor('submit')).toBe(SubmitParametersSchema);
    expect(parametersSchemaFor('dispatch_next')).toBe(DispatchNextParametersSchema);
    expect(parametersSchemaFor('finish')).toBe(FinishParametersSchema);
    expect(parametersSchemaFor('checkpoint')).toBe(CheckpointParametersSchema);
    const operationsKinds = RequestKindSchema.options.filter((k) => !['submit', 'dispatch_next', 'finish', 'checkpoint'].includes(k));
    expect(operationsKinds).toHaveLength(9);
    for (const kind of operationsKinds) expect(parametersSchemaFor(kind)).toBe(OperationsParametersSchema);
    expectTypeOf(parametersSchemaFor('finish')).toEqualTypeOf<typeof FinishParametersSchema>();
  });

  it('QueueRequest binds parameters to kind, while RequestParameters alone is the JSON Schema anyOf', () => {
    const finish = { dispatch_id: 'd', claim_handle: 'h1', outcome: 'completed' };
    expect(RequestParametersSchema.safeParse(finish).success).toBe(true);
    expect(QueueRequestSchema.safeParse({ id: 'r', kind: 'finish', parameters: finish, fingerprint: FP }).success).toBe(true);
    expect(QueueRequestSchema.safeParse({ id: 'r', kind: 'control', parameters: finish, fingerprint: FP }).success).toBe(false);
    expect(RequestParametersSchema.safeParse({ ...finish, outcome: 'failed' }).success).toBe(false);
  });

  it('a Checkpoint operation cannot be requested through OperationsParameters', () => {
    const checkpoint = { kind: 'Checkpoint', prior_git_sha: 'a'.repeat(40), prior_tip: 't', history_sha256: FP, state_sha256: FP, state: {} };
    expect(OperationsParametersSchema.safeParse({ operations: [checkpoint] }).success).toBe(false);
    expect(OperationKindSchema.options).toContain('Checkpoint');
    expect(OperationKindSchema.options).toHaveLength(17);
  });
});

describe('wire values and numeric fields', () => {
  it('open objects keep any wire value but reject non-profile numbers and non-JSON values', () => {
    const payload = { s: 'x', n: -5, b: false, z: null, a: [1, { deep: ['ok'] }], big: Number.MAX_SAFE_INTEGER };
    expect(WireObjectSchema.parse(payload)).toBe(payload);
    for (const bad of [{ f: 1.5 }, { z: -0 }, { u: 2 ** 53 }, { n: Number.NaN }, { i: Infinity }, { d: new Date(0) }, { x: undefined }, { m: new Map() }, [], null, 'x']) {
      expect(WireObjectSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(isWireValue({ proto: Object.create(null) as object })).toBe(true);
  });

  it('bounds opaque nesting at 64 containers', () => {
    let v: unknown = 'leaf';
    for (let i = 0; i < 64; i++) v = [v];
    expect(isWireValue(v)).toBe(true);
    expect(isWireValue([v])).toBe(false);
  });

  it('timestamps are non-negative safe integers and not negative zero', () => {
    expect(TimestampSchema.safeParse(0).success).toBe(true);
    expect(TimestampSchema.safeParse(Number.MAX_SAFE_INTEGER).success).toBe(true);
    for (const bad of [-0, -1, 0.5, 2 ** 53, '1', Number.NaN]) expect(TimestampSchema.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('fairness keys may be empty and hold at most 128 UTF-8 bytes', () => {
    expect(FairnessKeySchema.safeParse('').success).toBe(true);
    expect(FairnessKeySchema.safeParse('k'.repeat(128)).success).toBe(true);
    expect(FairnessKeySchema.safeParse('é'.repeat(64)).success).toBe(true);
    expect(FairnessKeySchema.safeParse('k'.repeat(129)).success).toBe(false);
    expect(FairnessKeySchema.safeParse('😀'.repeat(33)).success).toBe(false);
  });

  it('the compiled parser and the plain schema agree on accept and reject', () => {
    const variants: unknown[] = [commit, { ...commit, at: -1 }, { ...commit, version: 2 }, { ...commit, operations: [] }, { ...commit, actor: { ...commit.actor, principal: '01' } }];
    for (const v of variants) {
      let compiledOk = true;
      try {
        parseQueueCommit(v);
      } catch {
        compiledOk = false;
      }
      expect(compiledOk).toBe(QueueCommitSchema.safeParse(v).success);
    }
  });
});
