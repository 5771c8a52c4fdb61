/**
 * A checkpoint root must hold a state some ledger could have reached (spec "Compaction": it
 * "replaces a validated prefix with deterministic state" and preserves ownership, delivery
 * outcomes, fairness debt, dispatch bindings and releases; 7.17: authoritative only as part of
 * the queue). Each case compacts an honest queue with the engine's own builder (what `fairway
 * compact` writes), edits one lifecycle fact of the checkpoint state, reseals its digest and
 * fingerprint (and, for a Work definition, its submit receipt), replays the BYTES and asserts
 * `checkpoint_invalid` with the rule's own message (engine/replay/checkpoint-lifecycle.ts), so
 * no other check can be what refused it. The resealed but unedited root replays (control).
 */
import { describe, expect, it } from 'vitest';
import { canonicalize, sha256Hex } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import { requestFingerprint } from '../../engine/identity/index.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { WORK_STATE_KEYS } from '../../engine/replay/checkpoint-read.ts';
import { replayLedger } from '../../engine/replay/index.ts';
import { finishRequest, submitRequest } from '../../engine/requests/operations.ts';
import { issue, issueObservation, nodes, policyOf, producer, TestQueue } from '../acceptance/queue.ts';
import { checkpointOf, editCheckpoint } from '../support/checkpoints.ts';
import { bind, completedClaim, grantOne, start, workerOf } from './forbidden.ts';

type State = JsonObject & { works: Record<string, any>; claims: Record<string, any>; dispatches: Record<string, any>; requests: any[]; clocks: any; stats: any; completion_times: Record<string, any>; cancellations: Record<string, any> };

/** p-1 completed (barrier pending, its group bound to run 9101); p-2 claimed, group bound to run 9102; p-3 available; graph g2: x <- y. */
function honest() {
  const q = new TestQueue(policyOf({ accounting_weights: { a: 1, b: 1 } }), nodes('p', 3, 'a'));
  q.w.publish('submit-g2', producer, q.tick(), submitRequest(q.state, [
    { node_key: 'x', payload: { task: 'x' }, fairness_key: 'b', priority: 5 },
    { node_key: 'y', payload: { task: 'y' }, fairness_key: 'b', priority: 5, depends_on: [{ kind: 'work', node_key: 'x' }] },
  ], { graphId: 'g2', at: q.t }));
  const done = completedClaim(q, '9101');
  const open = grantOne(q);
  start(q, open.dispatchId);
  bind(q, open.dispatchId, '9102');
  return { ledger: checkpointOf(q.text()), done, open, x: q.workId('x'), y: q.workId('y'), p3: q.workId('p-3') };
}

const B = honest();
const O = B.open;
const D = B.done;

/** Recomputes every submit receipt's digest and fingerprint from the (edited) Work definitions. */
function reseal(s: State): void {
  s.requests.forEach((r, i) => {
    if (r.kind !== 'submit') return;
    const defs = Object.values(s.works).filter((w) => w.position.commit === i)
      .sort((a, b) => a.position.operation - b.position.operation)
      .map((w) => Object.fromEntries(Object.entries(w).filter(([k]) => !WORK_STATE_KEYS.has(k))));
    r.parameters_digest = sha256Hex(canonicalize({ nodes: defs } as JsonValue));
    r.fingerprint = requestFingerprint(r.actor, 'submit', { nodes: defs } as JsonValue);
  });
}

function verdict(edit: (s: State) => void): { code: string; message: string } {
  const text = editCheckpoint(B.ledger, edit as (s: JsonObject) => void);
  try {
    replayLedger(new TextEncoder().encode(`${text.replace(/\n?$/, '')}\n`));
    return { code: 'accepted', message: '' };
  } catch (e) {
    if (!isProtocolError(e)) throw e; // a crash is a bug, never a verdict
    return { code: e.code, message: e.message };
  }
}

const CASES: Array<[string, (s: State) => void, RegExp]> = [
  // Ownership (spec 7.6: one owner per Work; §8.2 "Effect isolation")
  ['an open Claim whose Work is available again (two owners after the next grant)', (s) => { s.works[O.workId].state = 'available'; delete s.works[O.workId].claim_id; }, /is open but Work .* is available/],
  ['an open Claim whose Work is cancelled', (s) => { s.works[O.workId].state = 'cancelled'; s.works[O.workId].cancellation_commit_id = s.requests[0].id; s.works[O.workId].cancellation_reason = 'x'; }, /is open but Work .* is cancelled|cancelled but its Claim/],
  ['a Claim re-pointed at another Work than its grant and its group member', (s) => {
    s.claims[O.claimId].work_id = B.p3;
    Object.assign(s.works[O.workId], { state: 'available', attempts: 0 }); delete s.works[O.workId].claim_id;
    Object.assign(s.works[B.p3], { state: 'claimed', claim_id: O.claimId, attempts: 1 });
  }, /differs from its grant's Claim operation or its group's member/],
  ['a completed Claim reopened while its Work stays completed', (s) => { s.claims[D.claimId].state = 'open'; delete s.claims[D.claimId].terminal_commit_id; }, /is completed without its completed Claim|is open but Work .* is completed/],
  ['an open Claim with terminal fields', (s) => { Object.assign(s.claims[O.claimId], { terminal_commit_id: s.requests[0].id, cancellation_reason: 'x' }); }, /is open but has terminal fields/],
  ['a Claim naming an Observation the checkpoint does not record', (s) => {
    s.claims[O.claimId].observations = ['obs-ghost'];
    const r = s.requests.find((x) => x.request_id === s.claims[O.claimId].request_id);
    r.claims.find((c: { claim_id: string }) => c.claim_id === O.claimId).observations = ['obs-ghost'];
  }, /names Observation obs-ghost/],
  ['a grant receipt listing a Claim it did not grant', (s) => { const r = s.requests.find((x) => x.request_id === s.claims[O.claimId].request_id); r.claims.push({ ...r.claims[0], claim_id: 'c_phantom' }); }, /lists Claim c_phantom, which it did not grant/],
  // Attempts (spec 7.18: a finite attempt budget)
  ['attempts reset on a claimed Work', (s) => { s.works[O.workId].attempts = 0; }, /attempts is 0, but the Work has 1 Claim/],
  ['attempts invented on a Work never claimed', (s) => { s.works[B.x].attempts = 7; }, /attempts is 7, but the Work has 0 Claim/],
  // Result barrier (§8.2 "Result barrier", "Ready frontier")
  ['a predecessor completed and verified with no Claim or Completion', (s) => { Object.assign(s.works[B.x], { state: 'completed', barrier: 'verified', result: { ok: true }, result_commit_id: s.requests[0].id }); s.completion_times[B.x] = 1; }, /is completed without its completed Claim/],
  ['an available Work with a verified barrier', (s) => { Object.assign(s.works[B.x], { barrier: 'verified', result: { ok: true }, result_commit_id: s.requests[0].id }); }, /is available, so it has no Completion and its barrier is none/],
  ['a completed Work whose barrier is none', (s) => { s.works[D.workId].barrier = 'none'; }, /is completed, so its result barrier is pending, verified or failed/],
  ['a verified barrier that terminal_barriers does not settle', (s) => { Object.assign(s.works[D.workId], { barrier: 'verified', result: {}, result_commit_id: s.requests[0].id }); }, /barrier is verified, but terminal_barriers holds nothing/],
  ['a completion time moved back (reconciliation deadlines count from it)', (s) => { s.completion_times[D.workId] = 1; }, /completion time is not its Completion commit's/],
  ['a retry boundary on an available Work that no cancellation set (held out of the fair order)', (s) => { s.works[B.p3].retry_not_before = 9_000_000_000_000; }, /retry_not_before 9000000000000 is not a cancelled Claim's retry boundary/],
  ['a ClaimCancellation kept for a Claim that was never cancelled', (s) => { s.cancellations.c_ghost = { kind: 'ClaimCancellation', work_id: B.x, claim_id: 'c_ghost', reason: 'x', retry_not_before: 5 }; }, /cancellations.c_ghost is not the ClaimCancellation or WorkCancellation that settled c_ghost/],
  // Dispatch groups and run bindings (spec 7.8, 7.10)
  ['a bound group without its start marker, bound to the dispatcher run in a foreign repository', (s) => { const g = s.dispatches[O.dispatchId]; delete g.sender; Object.assign(g.run, { run_id: '5001', workflow: '.github/workflows/dispatcher.lock.yml', repository: 'evil/other' }); }, /is bound without a start marker sender/],
  ['a run binding that does not match the frozen profile', (s) => { s.dispatches[O.dispatchId].run.workflow = '.github/workflows/dispatcher.lock.yml'; }, /does not match the frozen profile/],
  ['a run binding in a foreign repository', (s) => { s.dispatches[O.dispatchId].run.repository = 'evil/repo'; }, /does not match the frozen profile .* and the queue repository/],
  ['a bound group rewound to reserved (a prelaunch release would follow)', (s) => { s.dispatches[O.dispatchId].state = 'reserved'; }, /is reserved with a start marker sender/],
  ['a started group carrying a run binding', (s) => { s.dispatches[O.dispatchId].state = 'started'; }, /is started with a run binding/],
  ['a bound group without its run', (s) => { delete s.dispatches[O.dispatchId].run; }, /is bound without a run binding/],
  ['a released group with an open Claim', (s) => { s.dispatches[O.dispatchId].released = true; }, /is released with 1 open Claim/],
  ['a frozen profile widened to another effect scope', (s) => { s.dispatches[O.dispatchId].profile.effect_scope = 'victim/repo'; }, /profile is no registered revision/],
  ['a frozen profile redeployed to another workflow (run binding moved with it)', (s) => { const g = s.dispatches[O.dispatchId]; g.profile.workflow = '.github/workflows/evil.yml'; g.run.workflow = '.github/workflows/evil.yml'; }, /profile is no registered revision/],
  ['a group moved to an unconfigured pool (its capacity uncounted)', (s) => { s.dispatches[O.dispatchId].pool = 'ghost'; }, /is not of the group's pool, worker profile and trust domain/],
  ['a group of another policy epoch than its grant', (s) => { s.dispatches[O.dispatchId].policy_epoch = 'epoch-ghost'; }, /policy_epoch is not its grant's/],
  ['a group whose lifecycle writes were reset (the recovery reserve shrinks)', (s) => { s.dispatches[O.dispatchId].lifecycle_writes = 0; }, /lifecycle_writes is 0, fewer than the 2/],
  ['a run binding conflict on a group bound to a run that is no candidate', (s) => { s.dispatches[O.dispatchId].conflict = { runs: ['1', '2'], unnamed: 0, terminal: [] }; }, /records a run binding conflict but is bound to a run that is not one of its candidates/],
  ['a group member with no Claim record (finish would crash on it)', (s) => { s.dispatches[O.dispatchId].claims.push({ claim_id: 'c_ghost', handle: 'h2', result_refs: [], work: { task: 'p-3' }, work_id: B.p3 }); }, /not a Claim of this group|is not the assignment member/],
  // DAG admission and identities (§8.2 "DAG admission")
  ['an edge to a Work that does not exist', (s) => { s.works[B.y].depends_on = [{ kind: 'work', work_id: 'f'.repeat(64) }]; reseal(s); }, /depends on f{64}, which is no admitted Work/],
  ['a self edge', (s) => { s.works[B.x].depends_on = [{ kind: 'work', work_id: B.x }]; reseal(s); }, /depends on itself/],
  ['a dependency cycle', (s) => { s.works[B.x].depends_on = [{ kind: 'work', work_id: B.y }]; reseal(s); }, /form a cycle/],
  ['a pending Work in an unconfigured pool', (s) => { s.works[B.p3].pool = 'ghost'; reseal(s); }, /pending in pool ghost/],
  ['a Work id that is not derived from its graph and node key', (s) => { const w = s.works[B.p3]; delete s.works[B.p3]; w.work_id = 'e'.repeat(64); s.works[w.work_id] = w; reseal(s); }, /is not the Work id of/],
  ['two Works with one node key in a graph', (s) => { s.works[B.p3].node_key = 'p-1'; reseal(s); }, /is not the Work id of/],
  // Fairness clocks (spec 7.5; §8.2 "Trust": no debt reset)
  ['a fairness pass reset below V (debt reset)', (s) => { const c = s.clocks.default; c.keys['3'].pass.a = '0'; }, /clocks.default.keys.3: active member a has pass 0 outside \[V, V \+ stride\]/],
  ['an active member without a pass', (s) => { const c = s.clocks.default; c.classes.active['2'] = true; }, /active member 2 has pass none/],
  ['V beyond every pass', (s) => { s.clocks.default.classes.v = '9'.repeat(30); }, /outside \[V, V \+ stride\]/],
  ['clocks for a pool the Policy does not configure', (s) => { s.clocks.ghost = s.clocks.default; }, /clocks\.ghost/],
  // Counts, receipts and times
  ['stats that are not the state\'s', (s) => { s.stats.available = 99; }, /stats.available is 99/],
  ['a receipt bound to an epoch seen_epochs lacks', (s) => { s.requests[1].policy_epoch = 'ghost-epoch'; }, /binds policy epoch ghost-epoch, which seen_epochs lacks/],
  ['last_at that is not the tip commit\'s time', (s) => { s.last_at = 0; }, /tip and last_at are not the last request receipt's commit and time/],
];

describe('forbidden checkpoints: lifecycle facts a restored state cannot hold', () => {
  it('control: the resealed, unedited checkpoint replays', () => {
    expect(verdict(() => undefined).code).toBe('accepted');
  });
  for (const [name, edit, message] of CASES) {
    it(`${name} is checkpoint_invalid`, () => {
      const v = verdict(edit);
      expect(v.code, v.message).toBe('checkpoint_invalid');
      expect(v.message).toMatch(message);
    });
  }
});

/** A Work back to available after its worker's cancelled finish (retry boundary = that commit's time + backoff_ms). */
function cancelledOnce() {
  const q = new TestQueue(policyOf({ accounting_weights: { a: 1 } }), nodes('p', 2, 'a'));
  const g = grantOne(q);
  start(q, g.dispatchId);
  bind(q, g.dispatchId, '9201');
  const at = q.tick();
  q.w.publish(`finish-${g.dispatchId}`, workerOf(g.dispatchId, '9201'), at, finishRequest(q.state, { dispatch_id: g.dispatchId, claim_handle: 'h1', outcome: 'cancelled' }, at));
  return { ledger: checkpointOf(q.text()), ...g };
}

/** A ledger text's replay verdict from its bytes: its code and message, or `accepted`. */
function verdictOf(text: string): { code: string; message: string } {
  try {
    replayLedger(new TextEncoder().encode(`${text.replace(/\n?$/, '')}\n`));
    return { code: 'accepted', message: '' };
  } catch (e) {
    if (!isProtocolError(e)) throw e;
    return { code: e.code, message: e.message };
  }
}

describe('forbidden checkpoints: a retry boundary is the bounded one a cancellation set (spec 7.18)', () => {
  const C = cancelledOnce();
  const replayEdited = (edit: (s: State) => void): { code: string; message: string } => {
    return verdictOf(editCheckpoint(C.ledger, edit as (s: JsonObject) => void));
  };

  it('control: the checkpoint of a Work waiting out its backoff replays, boundary kept', () => {
    let kept: unknown;
    expect(replayEdited((s) => { kept = s.works[C.workId].retry_not_before; }).code).toBe('accepted');
    expect(kept).toBe(replayLedger(new TextEncoder().encode(`${C.ledger.replace(/\n?$/, '')}\n`)).work(C.workId)!.retryNotBefore);
  });

  it('a retry boundary pushed a year out, on the Work and its cancelled Claim alike, is checkpoint_invalid', () => {
    const v = replayEdited((s) => {
      const later = s.works[C.workId].retry_not_before + 365 * 86_400_000;
      s.works[C.workId].retry_not_before = later;
      s.claims[C.claimId].retry_not_before = later;
      s.cancellations[C.claimId].retry_not_before = later;
    });
    expect(v.code, v.message).toBe('checkpoint_invalid');
    expect(v.message).toMatch(/is not a cancelled Claim's retry boundary within backoff_ms/);
  });
});

describe('forbidden checkpoints: a restored Observation is one replay could have accepted (spec 7.16)', () => {
  // `later` waits on Issue #8 (completed); #8 was read open (waiting) and recorded.
  const q = new TestQueue(policyOf(), nodes('first', 1, ''));
  q.submit([{ node_key: 'later', payload: {}, fairness_key: '', depends_on: [{ kind: 'issue', condition: 'completed', resource: issue(8) }] }]);
  q.observe(issueObservation('o-open', 8, false, q.t));
  const ledger = checkpointOf(q.text());
  /** Applies `change` to the recorded Observation everywhere the checkpoint holds it (by id, and as its gate's latest). */
  const edited = (change: (o: JsonObject) => void): { code: string; message: string } => {
    return verdictOf(editCheckpoint(ledger, (s) => {
      change((s.observation_ids as Record<string, JsonObject>)['o-open']!);
      for (const latest of Object.values(s.observations as Record<string, JsonObject>)) change(latest);
    }));
  };

  it('control: the honest checkpoint, and the read turned into a proven closed-as-completed one, replay', () => {
    expect(edited(() => undefined).code).toBe('accepted');
    expect(edited((o) => Object.assign(o, { state: 'ready', resource_state: 'closed', state_reason: 'completed' })).code).toBe('accepted');
  });

  it('the open Issue relabelled ready (its facts still say open) is checkpoint_invalid', () => {
    const v = edited((o) => { o.state = 'ready'; });
    expect(v.code, v.message).toBe('checkpoint_invalid');
    expect(v.message).toMatch(/must carry the facts that satisfy it/);
  });

  it('a ready read that did not succeed (read_status http_404) is checkpoint_invalid', () => {
    const v = edited((o) => Object.assign(o, { state: 'ready', resource_state: 'closed', state_reason: 'completed', read_status: 'http_404' }));
    expect(v.code, v.message).toBe('checkpoint_invalid');
    expect(v.message).toMatch(/comes from a successful read/);
  });
});
