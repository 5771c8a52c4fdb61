/**
 * Named negative cases: every rejection replay promises (issue "engine core"
 * §5, spec 7.6/7.7/7.10/7.15). Each case edits the canonical-prefix fixture
 * ledger, re-seals fingerprints where the case is not about them, and expects
 * one stable error code.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import { requestFingerprint } from '../identity/index.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { replayLedger } from './index.ts';
import { referenceSkip } from '../../tests/support/reference.ts';
import { replayBytes } from '../../tests/support/bytes.ts';

const fixtures = new URL('../../../shared/reference/gh-aw/specs/work-queue/fixtures/', import.meta.url);
const haveReference = existsSync(fixtures);

type Commit = JsonObject & { id: string; previous: string | null; request: JsonObject; actor: JsonObject; operations: JsonObject[] };

const base: Commit[] = haveReference
  ? JSON.parse(readFileSync(new URL('canonical-prefix.json', fixtures), 'utf8')).commits
  : [];

function copy(): Commit[] {
  return structuredClone(base);
}

/** Recomputes the request fingerprint after an edit (so only the intended rule fails). */
function seal(c: Commit): Commit {
  c.request.fingerprint = requestFingerprint(c.actor, c.request.kind as string, c.request.parameters as JsonValue);
  return c;
}

function ledger(commits: readonly JsonObject[]): string {
  return commits.map((c) => canonicalize(c)).join('\n') + '\n';
}

function verdict(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

/** The verdict on the bytes (the path files and stores use); the string path must agree. */
function codeOf(input: string): string {
  const code = verdict(() => replayBytes(input));
  expect(verdict(() => replayLedger(input)), 'string input gives the same verdict as bytes').toBe(code);
  return code;
}

function byId(commits: Commit[], id: string): Commit {
  return commits.find((c) => c.id === id)!;
}

describe.skipIf(referenceSkip(haveReference))('replay rejections (../shared/reference absent: skipped)', () => {
  it('accepts the unedited fixture (control)', () => {
    expect(codeOf(ledger(base))).toBe('accepted');
  });

  it('fork: two commits extend the same predecessor', () => {
    const c = copy();
    const rival = seal({ ...structuredClone(byId(c, 'q2')), id: 'q2b', request: { ...byId(c, 'q2').request, id: 'observe-b' } } as Commit);
    expect(codeOf(ledger([...c, rival]))).toBe('fork');
  });

  it('cycle: records whose previous links loop back', () => {
    const c = copy();
    const a = { ...structuredClone(byId(c, 'q13')), id: 'loop-a', previous: 'loop-b', request: { ...byId(c, 'q13').request, id: 'ra' } } as Commit;
    const b = { ...structuredClone(byId(c, 'q13')), id: 'loop-b', previous: 'loop-a', request: { ...byId(c, 'q13').request, id: 'rb' } } as Commit;
    expect(codeOf(ledger([...c, a, b]))).toBe('cycle');
  });

  it('missing_predecessor: previous names a commit that does not exist', () => {
    const c = copy();
    byId(c, 'q5').previous = 'q-missing';
    expect(codeOf(ledger(c))).toBe('missing_predecessor');
  });

  it('multiple_genesis: a second record with previous = null', () => {
    const c = copy();
    const second = { ...structuredClone(c[0]!), id: 'q0b', request: { ...c[0]!.request, id: 'genesis-2' } } as Commit;
    expect(codeOf(ledger([...c, second]))).toBe('multiple_genesis');
  });

  it('missing_genesis: no record starts the chain', () => {
    expect(codeOf(ledger(copy().slice(1)))).toBe('missing_genesis');
  });

  it('conflicting_duplicate_commit: one id, two different records', () => {
    const c = copy();
    const twin = { ...structuredClone(byId(c, 'q4')), at: 4001 } as Commit;
    expect(codeOf(ledger([...c, twin]))).toBe('conflicting_duplicate_commit');
  });

  it('exact duplicate lines are idempotent', () => {
    const c = copy();
    expect(codeOf(ledger([...c, byId(c, 'q4'), c[0]!]))).toBe('accepted');
  });

  it('duplicate_request: a request id reused by another commit', () => {
    const c = copy();
    const q13 = byId(c, 'q13');
    q13.request.id = 'release';
    seal(q13);
    expect(codeOf(ledger(c))).toBe('duplicate_request');
  });

  it('fingerprint_mismatch: fingerprint does not bind actor, kind and parameters', () => {
    const c = copy();
    byId(c, 'q13').request.fingerprint = '0'.repeat(64);
    expect(codeOf(ledger(c))).toBe('fingerprint_mismatch');
  });

  it('role_not_allowed: a producer publishing dispatch_next', () => {
    const c = copy();
    const q3 = byId(c, 'q3');
    q3.actor = { ...q3.actor, role: 'producer' };
    expect(codeOf(ledger(c.map((x) => (x === q3 ? seal(x) : x))))).toBe('role_not_allowed');
  });

  it('policy_epoch_mismatch: a commit bound to a stale epoch', () => {
    const c = copy();
    byId(c, 'q5').policy_epoch = 'epoch0';
    expect(codeOf(ledger(c))).toBe('policy_epoch_mismatch');
  });

  it('unsupported_protocol: a version 2 record (the reference contract\'s code)', () => {
    const c = copy();
    byId(c, 'q5').version = 2;
    expect(codeOf(ledger(c))).toBe('unsupported_protocol');
  });

  it('schema_invalid: an unknown field in a closed record', () => {
    const c = copy();
    (byId(c, 'q13').operations[0] as JsonObject).extra = true;
    expect(codeOf(ledger(c))).toBe('schema_invalid');
  });

  it('blank_record and truncated final line are rejected', () => {
    const text = ledger(base);
    const cut = text.indexOf('\n') + 1;
    expect(codeOf(text.slice(0, cut) + '\n' + text.slice(cut))).toBe('blank_record');
    expect(codeOf(text.slice(0, -10))).not.toBe('accepted');
  });

  it('claim_not_fair: Claims that are not the recomputed fair prefix', () => {
    const c = copy();
    const ops = byId(c, 'q3').operations;
    const [a, , cc] = ops;
    const first = a!.work_id!;
    a!.work_id = cc!.work_id!;
    cc!.work_id = first;
    expect(codeOf(ledger(c))).toBe('claim_not_fair');
  });

  it('claim_not_fair: an extra Claim beyond max_claims', () => {
    const c = copy();
    const q3 = byId(c, 'q3');
    (q3.request.parameters as JsonObject).max_claims = 2;
    expect(codeOf(ledger(c.map((x) => (x === q3 ? seal(x) : x))))).toBe('claim_not_fair');
  });

  it('policy_not_quiescent: a Policy epoch while Claims are open', () => {
    const c = copy();
    const policy = structuredClone(byId(c, 'q16'));
    policy.previous = 'q3';
    policy.id = 'q4x';
    const edited = [...c.slice(0, 4), policy];
    expect(codeOf(ledger(edited))).toBe('policy_not_quiescent');
  });

  it('genesis_invalid: a ledger that starts with something other than Policy', () => {
    const c = copy();
    const first = { ...structuredClone(byId(c, 'q13')), previous: null } as Commit;
    expect(codeOf(ledger([first]))).toBe('genesis_invalid');
  });

  it('claim_scope_invalid: a worker finishing a Claim it does not hold', () => {
    const c = copy();
    const q6 = byId(c, 'q6');
    q6.actor = { ...q6.actor, claim_handle: 'h2' };
    expect(codeOf(ledger(c.map((x) => (x === q6 ? seal(x) : x))))).toBe('claim_scope_invalid');
  });

  it('already_released: a second Release of the same dispatch', () => {
    const c = copy().slice(0, 13);
    const again = seal({ ...structuredClone(byId(c, 'q12')), id: 'q13x', previous: 'q12', request: { ...byId(c, 'q12').request, id: 'release-2' } } as Commit);
    expect(codeOf(ledger([...c, again]))).toBe('already_released');
  });

  it('barrier_settled: a DeliveryFailure after the Result', () => {
    const c = copy().slice(0, 8);
    const failure = structuredClone(byId(copy(), 'q10'));
    const op = failure.operations[0]!;
    Object.assign(op, { work_id: byId(c, 'q7').operations[0]!.work_id, claim_id: byId(c, 'q7').operations[0]!.claim_id, completion_id: 'q6' });
    failure.request.parameters = { operations: failure.operations };
    failure.previous = 'q7';
    expect(codeOf(ledger([...c, seal(failure)]))).toBe('barrier_settled');
  });

  it('reconciliation_pending: a DeliveryFailure before attempts or deadline are exhausted', () => {
    const c = copy().slice(0, 11);
    const q10 = byId(c, 'q10');
    (q10.operations[0]!.evidence as JsonObject).attempts = 1;
    q10.request.parameters = { operations: q10.operations };
    expect(codeOf(ledger(c.map((x) => (x === q10 ? seal(x) : x))))).toBe('reconciliation_pending');
  });

  it('parameters_mismatch: persisted operations differ from the request parameters', () => {
    const c = copy();
    const q13 = byId(c, 'q13');
    (q13.operations[0] as JsonObject).reason = 'other';
    expect(codeOf(ledger(c))).toBe('parameters_mismatch');
  });

  it('grants_paused: no Claims while grants are paused', () => {
    const c = copy();
    const pause = structuredClone(byId(c, 'q13'));
    pause.id = 'qp';
    pause.previous = 'q2';
    const q3 = byId(c, 'q3');
    q3.previous = 'qp';
    const edited = [...c.slice(0, 3), pause, ...c.slice(3)];
    expect(codeOf(ledger(edited))).toBe('grants_paused');
  });

  it('duplicate_work: Work is immutable and admitted once', () => {
    const c = copy();
    const again = seal({ ...structuredClone(byId(c, 'q1')), id: 'q1x', previous: 'q16', request: { ...byId(c, 'q1').request, id: 'submit-2' } } as Commit);
    again.policy_epoch = 'epoch2';
    const q13 = byId(c, 'q13'); // grants paused, admission open
    expect(q13).toBeDefined();
    expect(codeOf(ledger([...c, again]))).toBe('duplicate_work');
  });

  it('dependency_cycle: a submit whose nodes depend on each other', () => {
    const c = copy().slice(0, 2);
    const q1 = c[1]!;
    const [a, , , d] = q1.operations;
    a!.depends_on = [{ kind: 'work', work_id: d!.work_id as string }];
    q1.request.parameters = { nodes: q1.operations };
    expect(codeOf(ledger([c[0]!, seal(q1)]))).toBe('dependency_cycle');
  });
});
