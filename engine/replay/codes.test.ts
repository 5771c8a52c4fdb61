/**
 * Issue 10 §4 "Where the reference contract has a specific code, use it": each case edits one
 * record of the reference canonical-prefix ledger (re-sealing its fingerprint and mirrored
 * parameters so only the rule under test fails), replays the ledger from bytes, and expects the
 * reference contract's specific code: `reason_invalid` (contract `reason_code`, fixture
 * reason-validation.json), `resource_limit` (contract `canonical_json` limits, `limits`),
 * `unsupported_protocol`, and the reference replayer's per-record codes; the codec errors of
 * canonical.json `error_codes` are answered inside a ledger record too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeReference } from '../../tests/support/reference.ts';
import { replayBothWays } from '../../tests/support/verified-replay.ts';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError, type ProtocolError } from '../errors.ts';
import { requestFingerprint, workId } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, operationsRequest, submitRequest, type BuiltRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';

const fixtures = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const present = existsSync(fixtures);
type Commit = JsonObject & { id: string; request: JsonObject & { parameters: JsonObject }; actor: JsonObject; operations: JsonObject[] };
const read = (name: string): JsonObject => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as JsonObject;
const base: Commit[] = present ? (read('canonical-prefix.json').commits as Commit[]) : [];

const OPERATIONS_KINDS = new Set(['policy', 'control', 'observe', 'dispatch', 'release', 'result', 'delivery_failure', 'cancel_work', 'cancel_claim']);

/** Re-binds parameters (operations kinds mirror their operations) and the fingerprint after an edit. */
function seal(c: Commit): Commit {
  if (OPERATIONS_KINDS.has(c.request.kind as string)) c.request.parameters = { operations: structuredClone(c.operations) as JsonValue[] };
  if (c.request.kind === 'submit') c.request.parameters = { nodes: structuredClone(c.operations) as JsonValue[] };
  c.request.fingerprint = requestFingerprint(c.actor, c.request.kind as string, c.request.parameters as JsonValue);
  return c;
}

/** The fixture ledger with commit `id` edited by `edit`, as bytes; `raw` may rewrite that record's text. */
function edited(id: string, edit: (c: Commit) => void, raw?: (line: string) => string): Uint8Array {
  const commits = structuredClone(base);
  const target = commits.find((c) => c.id === id)!;
  edit(target);
  seal(target);
  const text = commits.map((c) => {
    const line = canonicalize(c as unknown as JsonValue);
    return c === target && raw !== undefined ? raw(line) : line;
  }).join('\n') + '\n';
  return new TextEncoder().encode(text);
}

/** The first error of `input` (alike alone and with every record verified ahead: tests/support/verified-replay.ts). */
function failure(input: Uint8Array): ProtocolError | 'accepted' {
  try {
    replayBothWays(input);
  } catch (e) {
    if (isProtocolError(e)) return e;
    throw e;
  }
  return 'accepted';
}

const codeOf = (input: Uint8Array): string => {
  const f = failure(input);
  return f === 'accepted' ? f : f.code;
};

const op0 = (c: Commit): JsonObject => c.operations[0]!;

describeReference(present, 'the reference contract\'s specific codes, on the byte path', () => {
  it('accepts the unedited fixture (control)', () => {
    expect(codeOf(edited('q13', () => undefined))).toBe('accepted');
  });

  // reason-validation.json: every invalid reason is reason_invalid (was schema_invalid); every valid one replays.
  const reasons = present ? (read('reason-validation.json').cases as Array<{ name: string; reason: string; valid: boolean }>) : [];
  for (const c of reasons) {
    it(`reason-validation "${c.name}": a Control reason ${c.valid ? 'is accepted' : 'is reason_invalid'}`, () => {
      expect(codeOf(edited('q13', (q) => (op0(q).reason = c.reason)))).toBe(c.valid ? 'accepted' : 'reason_invalid');
    });
  }

  it('a bad reason on a WorkCancellation, a DeliveryFailure and a worker ClaimCancellation is reason_invalid', () => {
    expect(codeOf(edited('q11', (q) => (op0(q).reason = 'owner/repo')))).toBe('reason_invalid');
    expect(codeOf(edited('q10', (q) => (op0(q).reason = 'worker cancelled')))).toBe('reason_invalid');
    // finish parameters do not mirror operations, so only the operation changes.
    expect(codeOf(edited('q8', (q) => (op0(q).reason = '')))).toBe('reason_invalid');
  });

  it('a Work payload nested past the 64-container record limit is resource_limit (was nesting_limit)', () => {
    const deep = '{"d":'.repeat(64) + '1' + '}'.repeat(64);
    const f = failure(edited('q1', (q) => (op0(q).payload = { __splice__: 0 }), (line) => line.replace('{"__splice__":0}', deep)));
    expect(f).not.toBe('accepted');
    expect(f !== 'accepted' && [f.code, f.details?.limit]).toEqual(['resource_limit', 'nesting']);
  });

  it('a Work payload array of 16385 members is resource_limit (was array_member_limit)', () => {
    const items = `{"items":[${new Array(16385).fill('0').join(',')}]}`;
    const f = failure(edited('q1', (q) => (op0(q).payload = { __splice__: 0 }), (line) => line.replace('{"__splice__":0}', items)));
    expect(f !== 'accepted' && [f.code, f.details?.limit]).toEqual(['resource_limit', 'array_members']);
  });

  it('a record over the 8 MiB line limit is resource_limit (was line_too_large)', () => {
    const f = failure(edited('q1', (q) => (op0(q).payload = { big: 'x'.repeat(8 * 1024 * 1024) })));
    expect(f !== 'accepted' && [f.code, f.details?.limit, f.line]).toEqual(['resource_limit', 'line_bytes', 2]);
  });

  it('a commit with 257 operations is resource_limit (was schema_invalid)', () => {
    // dispatch_next parameters do not carry the operations, so only the envelope's bound is broken.
    expect(codeOf(edited('q3', (q) => (q.operations = Array.from({ length: 257 }, () => structuredClone(op0(q))))))).toBe('resource_limit');
  });

  it('operations-kind request parameters with 257 operations are request_invalid, as the reference checks the request first', () => {
    expect(codeOf(edited('q13', (q) => (q.operations = Array.from({ length: 257 }, () => structuredClone(op0(q))))))).toBe('request_invalid');
  });

  it('a version-2 record is unsupported_protocol (was unsupported_version)', () => {
    expect(codeOf(edited('q13', (q) => (q.version = 2)))).toBe('unsupported_protocol');
  });

  it('an unknown operation kind is unsupported_protocol (was schema_invalid)', () => {
    expect(codeOf(edited('q13', (q) => (op0(q).kind = 'Grant')))).toBe('unsupported_protocol');
  });

  it('a request fingerprint that is not a SHA-256 digest is request_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q13', () => undefined, (line) => line.replace(/"fingerprint":"[a-f0-9]{64}"/, '"fingerprint":"ABC"')))).toBe('request_invalid');
  });

  it('lifecycle evidence with a mutable ref is evidence_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q12', (q) => ((op0(q).evidence as JsonObject).ref = 'main')))).toBe('evidence_invalid');
  });

  it('a DeliveryFailure disposition outside none/partial/unknown is evidence_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q10', (q) => (op0(q).disposition = 'all')))).toBe('evidence_invalid');
  });

  // Spec 7.15 "Completion is not yet dependency success": only verified delivery releases a barrier.
  const ev = (q: Commit): JsonObject => op0(q).evidence as JsonObject;
  const resultEvidence: Array<[string, (e: JsonObject) => void, string]> = [
    ['prelaunch evidence of the trusted publisher', (e) => Object.assign(e, { kind: 'prelaunch', source: 'trusted_publisher' }), 'evidence kind "prelaunch" is not delivery'],
    ['the bound run\'s failed terminal run', (e) => Object.assign(e, { kind: 'terminal_run', source: 'github_api', status: 'completed', conclusion: 'failure' }), 'evidence kind "terminal_run" is not delivery'],
    ['reconciliation evidence', (e) => Object.assign(e, { kind: 'reconciliation', source: 'github_api' }), 'evidence kind "reconciliation" is not delivery'],
    ['delivery evidence asserted from the GitHub API, not verified receipts', (e) => (e.source = 'github_api'), 'source "github_api" is not verified_receipts'],
    ['delivery evidence without its receipt', (e) => delete e.receipt, 'names no receipt'],
  ];
  for (const [what, edit, message] of resultEvidence) {
    it(`a Result on ${what} is evidence_invalid`, () => {
      const f = failure(edited('q7', (q) => edit(ev(q))));
      expect(f === 'accepted' ? f : [f.code, f.message]).toEqual(['evidence_invalid', expect.stringContaining(message)]);
    });
  }

  // Spec 7.17 "Canonical ledger new-admission watermark": a record is counted as its canonical line.
  it('the admission watermark counts canonical bytes: a record written with insignificant whitespace is measured as its canonical line', () => {
    const ledgerAt = (limit: number, padded: boolean): Uint8Array => {
      const [q0, q1] = structuredClone(base.slice(0, 2)) as [Commit, Commit];
      ((op0(q0).policy as JsonObject).limits as JsonObject).ledger_bytes = limit;
      seal(q0);
      const lines = [canonicalize(q0 as unknown as JsonValue), canonicalize(q1 as unknown as JsonValue)];
      if (padded) lines[1] = lines[1]!.replace('":', '": ');
      return new TextEncoder().encode(`${lines.join('\n')}\n`);
    };
    // The limit that is exactly the two canonical lines' size (its digits are part of the size).
    let limit = 6000;
    for (let i = 0; i < 5; i++) limit = ledgerAt(limit, false).length;
    expect(ledgerAt(limit, false).length).toBe(limit);
    expect(codeOf(ledgerAt(limit, false))).toBe('accepted');
    expect(ledgerAt(limit, true).length).toBe(limit + 1);
    expect(codeOf(ledgerAt(limit, true))).toBe('accepted');
    expect(codeOf(ledgerAt(limit - 1, false))).toBe('ledger_limit');
  });

  // Spec 7.8: a binding carries the evidence of the exact run it read.
  it('a Dispatch(bound) without evidence is evidence_invalid', () => {
    const f = failure(edited('q5', (q) => delete op0(q).evidence));
    expect(f === 'accepted' ? f : [f.code, f.message]).toEqual(['evidence_invalid', expect.stringContaining('carries the evidence of run 202')]);
  });

  for (const kind of ['nonlaunch', 'prelaunch']) {
    it(`a Dispatch(bound) on ${kind} evidence is evidence_invalid`, () => {
      const f = failure(edited('q5', (q) => (ev(q).kind = kind)));
      expect(f === 'accepted' ? f : [f.code, f.message]).toEqual(['evidence_invalid', expect.stringContaining(`of kind ${kind} says no run launched`)]);
    });
  }

  // Spec 7.16: an Observation is read no later than its decision, under the current credential generation.
  it('an Observation observed after its commit\'s decision time is observation_invalid', () => {
    const f = failure(edited('q2', (q) => (op0(q).observed_at = 2501)));
    expect(f === 'accepted' ? f : [f.code, f.message]).toEqual(['observation_invalid', expect.stringContaining('after its commit\'s decision time 2500')]);
    expect(codeOf(edited('q2', (q) => (op0(q).observed_at = 2500)))).toBe('accepted');
  });

  it('an Observation read under another credential generation than the current one is observation_invalid', () => {
    const f = failure(edited('q2', (q) => (op0(q).credential_generation = 'gen-2')));
    expect(f === 'accepted' ? f : [f.code, f.message]).toEqual(['observation_invalid', expect.stringContaining('the current one is "initial"')]);
  });

  it('an unknown Dispatch state is dispatch_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q4', (q) => (op0(q).state = 'launched')))).toBe('dispatch_invalid');
  });

  it('a run binding of attempt 2 is run_binding_conflict (was schema_invalid)', () => {
    expect(codeOf(edited('q5', (q) => ((op0(q).run as JsonObject).run_attempt = 2)))).toBe('run_binding_conflict');
  });

  it('an Observation with an unknown state is observation_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q2', (q) => (op0(q).state = 'closed')))).toBe('observation_invalid');
  });

  it('a pause Control with a non-boolean value is control_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q13', (q) => (op0(q).value = 1)))).toBe('control_invalid');
  });

  it('a Result descriptor that is not an object is result_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q7', (q) => (op0(q).descriptor = ['ok'])))).toBe('result_invalid');
  });

  it('a Claim with 65 observations is claim_invalid (was schema_invalid)', () => {
    expect(codeOf(edited('q3', (q) => (op0(q).observations = Array.from({ length: 65 }, (_, i) => `o${i}`))))).toBe('claim_invalid');
  });

  it('a Result descriptor over limits.result_bytes is resource_limit (was result_too_large)', () => {
    const f = failure(edited('q7', (q) => (op0(q).descriptor = { blob: 'x'.repeat(5000) })));
    expect(f !== 'accepted' && [f.code, f.details?.limit]).toEqual(['resource_limit', 'result_bytes']);
  });

  it('a gate observed more often than limits.observation_writes is resource_limit (was observation_budget_exhausted)', () => {
    const commits = structuredClone(base);
    ((commits[0]!.operations[0]!.policy as JsonObject).limits as JsonObject).observation_writes = 1;
    seal(commits[0]!);
    const q2 = commits.find((c) => c.id === 'q2')!;
    q2.operations.push({ ...structuredClone(op0(q2)), observation_id: 'o1-again' });
    seal(q2);
    const f = failure(new TextEncoder().encode(commits.map((c) => canonicalize(c as unknown as JsonValue)).join('\n') + '\n'));
    expect(f !== 'accepted' && [f.code, f.details?.limit]).toEqual(['resource_limit', 'observation_writes']);
  });

  it('a missing or unknown field stays schema_invalid (the reference answers the generic ledger_invalid)', () => {
    expect(codeOf(edited('q13', (q) => (op0(q).extra = 1)))).toBe('schema_invalid');
  });

  // canonical.json error_codes, spliced into a Work payload: the record answers the fixture's code.
  const codecCases = present ? (read('canonical.json').error_codes as Array<{ name: string; input: string; code: string }>) : [];
  for (const c of codecCases) {
    it(`canonical.json "${c.name}" inside a ledger record is ${c.code}`, () => {
      const input = edited('q1', (q) => (op0(q).payload = { __splice__: 0 }), (line) => line.replace('{"__splice__":0}', c.input));
      expect(codeOf(input)).toBe(c.code);
    });
  }
});

describe('the installed Policy\'s operation budget applies to every commit', () => {
  const REPO = 'acme/queue';
  const producer: Actor = { role: 'producer', principal: '1001', repository: REPO };
  const admin: Actor = { role: 'administrator', principal: '1001', repository: REPO };

  function smallQueue(): LedgerWriter {
    const w = new LedgerWriter();
    const policy = defaultPolicy({ repository: REPO, principal: '1001' });
    (policy.limits as JsonObject).operations = 3;
    w.publish('seed', producer, 1, bootstrapRequest(policy, 'e1', [{ node_key: 'a', payload: {} }, { node_key: 'b', payload: {} }], { graphId: 'g', at: 1 }));
    return w;
  }

  function unchecked(w: LedgerWriter, id: string, actor: Actor, built: BuiltRequest): Uint8Array {
    const commit = buildCommit(w.state, { id, kind: built.kind, parameters: built.parameters, actor, at: 5, operations: built.operations });
    return new TextEncoder().encode(w.text() + canonicalize(commit as unknown as JsonValue) + '\n');
  }

  it('a cancel_work with more operations than limits.operations is resource_limit before any operation applies', () => {
    const w = smallQueue();
    const ops = ['a', 'b', 'a', 'b'].map((k, i) => ({ kind: 'WorkCancellation', work_id: workId('g', k), reason: `r${i}` }));
    expect(codeOf(unchecked(w, 'too-many', admin, operationsRequest('cancel_work', ops)))).toBe('resource_limit');
  });

  it('a submit within the budget is accepted; one over it is resource_limit', () => {
    const w = smallQueue();
    const nodes = (keys: string[]) => submitRequest(w.state, keys.map((k) => ({ node_key: k, payload: {} })), { graphId: 'g', at: 5 });
    expect(codeOf(unchecked(w, 'ok', producer, nodes(['c', 'd', 'e'])))).toBe('accepted');
    expect(codeOf(unchecked(w, 'over', producer, nodes(['c', 'd', 'e', 'f'])))).toBe('resource_limit');
  });
});
