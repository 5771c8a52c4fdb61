/**
 * Issue 18 §3 "Evidence must match what it is evidence of". Lifecycle evidence
 * for a bound group names exactly its bound run. Which fields must match, from
 * the normative text:
 *
 * - spec 7.8 (recovery table, "Bound, terminal"): "release with exact run/attempt
 *   terminal evidence" -> run_id and run_attempt;
 * - spec 7.15: "After exact native-run/attempt terminal evidence and exhausted
 *   reconciliation, publish DeliveryFailure" -> run_id and run_attempt;
 * - contract `delivery_verification.required_proof`: "Exact original native
 *   run/attempt terminal evidence is independently required";
 * - contract `provenance.native_correlation`: "Original native attempt 1 API proof
 *   matches approved workflow, immutable revision, repository, event and actor"
 *   -> workflow, ref (the immutable revision), repository and principal (the actor).
 *
 * So the six fields repository, workflow, ref, principal, run_id, run_attempt of
 * every Result, Release, DeliveryFailure and Dispatch(bound) evidence must equal
 * the bound run's; a missing run_id/run_attempt is a mismatch. Each forged
 * ledger is replayed as BYTES with ids and fingerprints recomputed (`forge`).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import { BOUND_RUN_FIELDS } from '../../engine/replay/ops/evidence.ts';
import { deliveryFailure, dispatchBound, release, result } from '../../engine/requests/lifecycle.ts';
import { nodes, policyOf, reconciler, TestQueue } from '../acceptance/queue.ts';
import { byteVerdict, completedClaim, forge, grantOne, start } from './forbidden.ts';

type Edit = (ev: JsonObject) => void;

const FOREIGN: Record<string, Edit> = {
  repository: (ev) => { ev.repository = 'other/repo'; },
  workflow: (ev) => { ev.workflow = '.github/workflows/other.lock.yml'; },
  ref: (ev) => { ev.ref = '1111111111111111111111111111111111111111'; },
  principal: (ev) => { ev.principal = '2002'; },
  run_id: (ev) => { ev.run_id = '101'; },
  'missing run_id': (ev) => { delete ev.run_id; delete ev.run_attempt; },
  'missing run_attempt': (ev) => { delete ev.run_attempt; },
};

function queue(): TestQueue {
  return new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 1, 'a'));
}

/** Forge the builder's single operation with its evidence edited, on the tip of `q`. */
function forgedOp(q: TestQueue, id: string, kind: string, op: JsonObject, edit: Edit): string {
  const copy = structuredClone(op);
  edit(copy.evidence as JsonObject);
  return byteVerdict(forge(q, { id, kind, actor: reconciler, at: q.t, operations: [copy] }));
}

describe('issue 18 §3: evidence of a bound group names exactly its bound run (spec 7.8, 7.15, contract delivery_verification / native_correlation)', () => {
  it('the fields required to match are repository, workflow, ref, principal, run_id and run_attempt', () => {
    expect([...BOUND_RUN_FIELDS]).toEqual(['repository', 'workflow', 'ref', 'principal', 'run_id', 'run_attempt']);
  });

  describe('Result', () => {
    function resultWith(edit: Edit): string {
      const q = queue();
      const { workId } = completedClaim(q, '202');
      const op = result(q.state, workId, {}, q.tick(), 'receipt-1').operations[0] as unknown as JsonObject;
      return forgedOp(q, 'result', 'result', op, edit);
    }
    it('control: Result evidence of the bound run 202 replays', () => {
      expect(resultWith(() => undefined)).toBe('accepted');
    });
    for (const [what, edit] of Object.entries(FOREIGN)) {
      it(`rejects Result evidence with ${what.startsWith('missing') ? 'a' : 'another'} ${what} (evidence_invalid)`, () => {
        expect(resultWith(edit)).toBe('evidence_invalid');
      });
    }
  });

  describe('Release of a bound group', () => {
    function releaseWith(edit: Edit): string {
      const q = queue();
      const { dispatchId } = completedClaim(q, '202');
      const op = release(q.state, dispatchId, q.tick()).operations[0] as unknown as JsonObject;
      return forgedOp(q, 'release', 'release', op, edit);
    }
    it('control: Release on terminal evidence of the bound run 202 replays', () => {
      expect(releaseWith(() => undefined)).toBe('accepted');
    });
    for (const what of ['repository', 'workflow', 'ref', 'principal']) {
      it(`rejects Release evidence naming another ${what} than the bound run (evidence_invalid)`, () => {
        expect(releaseWith(FOREIGN[what]!)).toBe('evidence_invalid');
      });
    }
    for (const what of ['run_id', 'missing run_id', 'missing run_attempt']) {
      it(`rejects Release evidence with ${what === 'run_id' ? 'another run_id' : `a ${what}`} (terminal_evidence_required: not exact terminal evidence)`, () => {
        expect(releaseWith(FOREIGN[what]!)).toBe('terminal_evidence_required');
      });
    }
  });

  describe('DeliveryFailure', () => {
    function failureWith(edit: Edit): string {
      const q = queue();
      const { workId } = completedClaim(q, '202');
      const op = deliveryFailure(q.state, workId, q.tick(), 100).operations[0] as unknown as JsonObject;
      return forgedOp(q, 'delivery-failure', 'delivery_failure', op, edit);
    }
    it('control: DeliveryFailure on terminal evidence of the bound run 202 replays', () => {
      expect(failureWith(() => undefined)).toBe('accepted');
    });
    for (const what of ['repository', 'workflow', 'ref', 'principal']) {
      it(`rejects DeliveryFailure evidence naming another ${what} than the bound run (evidence_invalid)`, () => {
        expect(failureWith(FOREIGN[what]!)).toBe('evidence_invalid');
      });
    }
    it('rejects DeliveryFailure evidence of another run or of no run (terminal_evidence_required)', () => {
      expect(failureWith(FOREIGN.run_id!)).toBe('terminal_evidence_required');
      expect(failureWith(FOREIGN['missing run_id']!)).toBe('terminal_evidence_required');
    });
  });

  describe('Dispatch(bound)', () => {
    function bindWith(edit: Edit): string {
      const q = queue();
      const { dispatchId } = grantOne(q);
      start(q, dispatchId);
      const op = dispatchBound(q.state, dispatchId, '202', q.tick()).operations[0] as unknown as JsonObject;
      return forgedOp(q, 'bind', 'dispatch', op, edit);
    }
    it('control: Dispatch(bound) to run 202 with evidence of run 202 replays', () => {
      expect(bindWith(() => undefined)).toBe('accepted');
    });
    it('rejects Dispatch(bound) whose evidence.run_id 101 differs from run.run_id 202 (evidence_invalid)', () => {
      expect(bindWith(FOREIGN.run_id!)).toBe('evidence_invalid');
    });
    for (const what of ['repository', 'workflow', 'ref', 'principal', 'missing run_id', 'missing run_attempt']) {
      it(`rejects Dispatch(bound) evidence with ${what.startsWith('missing') ? 'a' : 'another'} ${what} (evidence_invalid)`, () => {
        expect(bindWith(FOREIGN[what]!)).toBe('evidence_invalid');
      });
    }
    it('spec 7.8 "fetch that exact run ... before appending Dispatch(bound)": binding evidence that reads no run (the publisher\'s own word, a delivery receipt verifier) is evidence_invalid; the run API\'s and the trusted activation\'s replay', () => {
      expect(bindWith((ev) => { ev.source = 'trusted_publisher'; })).toBe('evidence_invalid');
      expect(bindWith((ev) => { ev.source = 'verified_receipts'; })).toBe('evidence_invalid');
      expect(bindWith((ev) => { ev.kind = 'delivery'; ev.source = 'verified_receipts'; ev.receipt = 'receipt-1'; })).toBe('evidence_invalid');
      expect(bindWith((ev) => { ev.kind = 'delivery'; })).toBe('evidence_invalid');
      expect(bindWith((ev) => { ev.source = 'trusted_activation'; })).toBe('accepted');
      expect(bindWith((ev) => { ev.kind = 'terminal_run'; ev.status = 'completed'; ev.conclusion = 'success'; })).toBe('accepted');
    });
  });
});
