/**
 * The packer sizes assignments by arithmetic on their values (assignment.ts `stringBytes`,
 * `AssignmentSize.envelopeBytes`, `AssignmentSize.memberBytesOf`); each must equal the
 * definition, the canonical text's UTF-8 length (`canonicalSize` of the envelope, `memberBytes`
 * of the whole member), with the same error when there is one: for any strings (escapes,
 * controls, non-ASCII, astral, lone surrogates), payloads and Result refs, and for every Work at
 * every grant of generated and reference-written ledgers.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateLedger } from '../../bench/generate.ts';
import { appendBytes, replayBytes } from '../../tests/support/bytes.ts';
import { describeReference, missingReference, REFERENCE_ROOT } from '../../tests/support/reference.ts';
import { canonicalSize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { ReplayState, WorkRecord } from '../state/state.ts';
import type { Projection } from '../replay/projection.ts';
import { bucketsOf } from '../state/ready-index.ts';
import { assignment, assignmentMember, AssignmentSize, stringBytes, type AssignmentProvenance } from './assignment.ts';

function outcome(measure: () => number): number | { code: string; message: string } {
  try {
    return measure();
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('c_00ff_1', 'h12', '"q"', 'back\\slash', 'tab\t', '\u0000', '\u007f', 'é', '😀', '\ud800', 'x\udc00y', 'x'.repeat(300)),
);
const json: fc.Arbitrary<JsonValue> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), text, fc.array(tie('v')), fc.dictionary(text, tie('v'))),
})).v as fc.Arbitrary<JsonValue>;

describe('assignment sizes by arithmetic ≡ the canonical text', () => {
  it('stringBytes ≡ canonicalSize for any string', () => {
    fc.assert(fc.property(text, (s) => {
      expect(outcome(() => stringBytes(s))).toEqual(outcome(() => canonicalSize(s)));
    }), { numRuns: 5000 });
  });

  it('envelopeBytes ≡ canonicalSize of the empty assignment for any provenance', () => {
    const provenance = fc.record({ dispatch_id: text, request_id: text, commit_id: text, policy_epoch: text, pool: text, worker_profile: text });
    fc.assert(fc.property(provenance, (p: AssignmentProvenance) => {
      expect(outcome(() => AssignmentSize.envelopeBytes(p))).toEqual(outcome(() => canonicalSize(assignment(p, []))));
    }), { numRuns: 3000 });
  });

  it('memberBytesOf ≡ memberBytes for any member, with any Result refs', () => {
    // Predecessors with recorded Results (the ready index's entries), and Works depending on some of them.
    const predecessor = fc.record({ id: text, commit: text, descriptor: fc.dictionary(text, json) });
    const scenario = fc.record({
      predecessors: fc.uniqueArray(predecessor, { selector: (p) => p.id, maxLength: 5 }),
      works: fc.array(fc.record({ id: text, payload: fc.dictionary(text, json), picks: fc.array(fc.nat(), { maxLength: 4 }), claim: text, handle: text }), { minLength: 1, maxLength: 4 }),
    });
    fc.assert(fc.property(scenario, ({ predecessors, works }) => {
      const state = { works: new Map(), ready: { results: new Map() } } as unknown as ReplayState;
      for (const p of predecessors) {
        state.works.set(p.id, { barrier: 'verified' } as WorkRecord);
        state.ready.results.set(p.id, { result_commit_id: p.commit, descriptor: p.descriptor as JsonObject });
      }
      for (let round = 0; round < 3; round++) {
        // Measured again (nothing may be kept from one measure to the next), then after every predecessor has a later Result.
        if (round === 2) for (const p of predecessors) state.ready.results.set(p.id, { result_commit_id: `${p.commit}+`, descriptor: { ...p.descriptor, later: true } as JsonObject });
        for (const w of works) {
          const dependsOn = predecessors.length === 0 ? [] : w.picks.map((i) => ({ kind: 'work' as const, work_id: predecessors[i % predecessors.length]!.id }));
          const record = { workId: w.id, dependsOn, definition: { payload: w.payload } } as unknown as WorkRecord;
          const member = assignmentMember(state, record, w.claim, w.handle);
          expect(outcome(() => AssignmentSize.memberBytesOf(member, record))).toEqual(outcome(() => AssignmentSize.memberBytes(member)));
        }
      }
    }), { numRuns: 1500 });
  });

  it('a Result descriptor measured once meets the nesting error at its depth in every member, and a later Result is measured afresh', () => {
    // Nested so that it measures alone (depth 0) but not at its depth in a member (3).
    const nested = (levels: number): JsonObject => {
      let v: JsonObject = { leaf: 'x' };
      for (let i = 0; i < levels; i++) v = { n: v };
      return v;
    };
    const deep = nested(62); // the leaf string at depth 63 alone, 66 in a member
    expect(canonicalSize(deep)).toBeGreaterThan(0);
    const fits = nested(58); // the leaf string at depth 62 in a member
    const state = { works: new Map([['p', { barrier: 'verified' }]]), ready: { results: new Map([['p', { result_commit_id: 'q_1', descriptor: fits }]]) } } as unknown as ReplayState;
    const work = { workId: 'w', dependsOn: [{ kind: 'work', work_id: 'p' }], definition: { payload: { task: 't' } } } as unknown as WorkRecord;
    for (let round = 0; round < 2; round++) {
      const member = assignmentMember(state, work, `c_${round}`, 'h1');
      expect(AssignmentSize.memberBytesOf(member, work)).toBe(AssignmentSize.memberBytes(member));
    }
    state.ready.results.set('p', { result_commit_id: 'q_2', descriptor: deep });
    for (let round = 0; round < 2; round++) {
      const member = assignmentMember(state, work, `c_${round}`, 'h1');
      const measured = outcome(() => AssignmentSize.memberBytesOf(member, work));
      expect(measured).toEqual(outcome(() => AssignmentSize.memberBytes(member)));
      expect(measured).toMatchObject({ code: 'resource_limit' });
    }
  });
});

interface Line {
  request: { kind: string; id: string };
  id: string;
}

/** At the predecessor state of every grant, every available Work's member measures as its canonical text; returns the members checked. */
function checkEveryGrant(ledger: string): number {
  let projection: Projection | null = null;
  let members = 0;
  for (const text of ledger.split('\n').filter((l) => l.length > 0)) {
    const line = JSON.parse(text) as Line;
    if (projection !== null && line.request.kind === 'dispatch_next') {
      const state = projection.state;
      const provenance = { dispatch_id: `d_${line.id}_1`, request_id: line.request.id, commit_id: line.id, policy_epoch: state.policy!.epoch, pool: '', worker_profile: '' };
      for (const pool of state.ready.pools.keys()) {
        for (const keys of bucketsOf(state.ready, pool).values()) {
          for (const tree of keys.values()) {
            for (let entry = tree.first(), n = 1; entry !== null; entry = tree.after(entry.rank), n++) {
              const work = state.works.get(entry.id)!;
              let member: JsonObject;
              try {
                member = assignmentMember(state, work, `c_${line.request.id}_${n}`, `h${n}`);
              } catch {
                continue; // a predecessor's Result is not available yet: not grantable
              }
              expect(AssignmentSize.memberBytesOf(member, work)).toBe(AssignmentSize.memberBytes(member));
              const p = { ...provenance, pool, worker_profile: work.workerProfile };
              expect(AssignmentSize.envelopeBytes(p)).toBe(canonicalSize(assignment(p, [])));
              members++;
            }
          }
        }
      }
    }
    projection = projection === null ? replayBytes(`${text}\n`) : appendBytes(projection, `${text}\n`);
  }
  return members;
}

describe('assignment sizes on real ledgers', () => {
  it('measure every available Work at every grant of generated ledgers as its canonical text', () => {
    let members = 0;
    for (const seed of [1, 2]) members += checkEveryGrant(generateLedger(300 * 1024, seed).text);
    expect(members).toBeGreaterThan(100);
  });
});

const REFERENCE_LEDGER = 'gh-aw-generated/ledger-1m.jsonl';
describeReference(missingReference([REFERENCE_LEDGER]).length === 0, 'assignment sizes on the reference-written ledger', () => {
  it('measure every available Work at every grant of ledger-1m.jsonl as its canonical text', () => {
    expect(checkEveryGrant(readFileSync(new URL(REFERENCE_LEDGER, REFERENCE_ROOT), 'utf8'))).toBeGreaterThan(0);
  });
});
