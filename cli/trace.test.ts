/**
 * `fairway trace` (cli/trace.ts): events are matched by exact ids, never as substrings of a
 * commit's text; a Checkpoint is no request's event; after compaction the earlier events come
 * from the pre-compaction ledger, or the answer says where they are (`compacted`), or, with no
 * retained event at all, `history_compacted`. Ledgers are replayed from bytes.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../engine/codec/index.ts';
import { isProtocolError } from '../engine/errors.ts';
import type { JsonValue } from '../engine/json.ts';
import { replayLedger, type Projection } from '../engine/replay/index.ts';
import { buildCommit } from '../engine/requests/build.ts';
import { dispatchBound } from '../engine/requests/lifecycle.ts';
import { finishRequest, operationsRequest } from '../engine/requests/operations.ts';
import { admin, nodes, policyOf, reconciler, TestQueue } from '../tests/acceptance/queue.ts';
import { bind, grantOne, start, workerOf } from '../tests/conformance/forbidden.ts';
import { checkpointOf } from '../tests/support/checkpoints.ts';
import { traceView } from './trace.ts';

const replay = (text: string): Projection => replayLedger(new TextEncoder().encode(text));

/** A queue whose request ids are short words that occur inside other commits' texts. */
function queue() {
  const q = new TestQueue(policyOf(), nodes('p', 3, ''));
  q.submit([{ node_key: 'd1', payload: { note: 'd1 d1 d1' } }], { graphId: 'd1' });
  q.w.publish('d1', admin, q.tick(), operationsRequest('control', [{ kind: 'Control', control: 'admission_paused', value: false, reason: 'd1' }]));
  const g = grantOne(q);
  start(q, g.dispatchId);
  bind(q, g.dispatchId, '7001');
  return { q, g };
}

const kinds = (view: { events: Array<{ kind: string }> }): string[] => view.events.map((e) => e.kind);

describe('trace matches ids, not text', () => {
  it('a request is its own commit and the commits naming its Claims or groups: no commit that merely contains its id as text', () => {
    const { q, g } = queue();
    const p = replay(q.text());
    // "d1" is also the submit's graph id, node key and payload text, and the control's reason.
    expect(kinds(traceView(p, { requestId: 'd1' }, 0, 64))).toEqual(['control']);
    const grant = p.claim(g.claimId)!.requestId;
    expect(kinds(traceView(p, { requestId: grant }, 0, 64))).toEqual(['dispatch_next', 'dispatch', 'dispatch']);
    expect(kinds(traceView(p, { claimId: g.claimId }, 0, 64))).toEqual(['dispatch_next', 'dispatch', 'dispatch']);
  });
});

describe('trace after compaction', () => {
  it('with the pre-compaction ledger the events are the uncompacted ones; without it they are history_compacted; the Checkpoint is no event', () => {
    const { q, g } = queue();
    const full = replay(q.text());
    const compacted = replay(checkpointOf(q.text()));
    const grant = full.claim(g.claimId)!.requestId;
    for (const sel of [{ requestId: grant }, { claimId: g.claimId }]) {
      expect(traceView(compacted, sel, 0, 64, [full])).toEqual(traceView(full, sel, 0, 64));
      let code = 'answered';
      try {
        traceView(compacted, sel, 0, 64);
      } catch (e) {
        if (!isProtocolError(e)) throw e;
        code = e.code;
      }
      expect(code).toBe('history_compacted');
    }
  });

  it('without the pre-compaction ledger, events after the checkpoint are answered with where the earlier ones are', () => {
    const { q, g } = queue();
    const root = checkpointOf(q.text(), 'e'.repeat(40));
    const p = replay(root);
    const at = p.state.commits.at(-1)!.at + 1000;
    const built = finishRequest(p.state, { dispatch_id: g.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at);
    const commit = buildCommit(p.state, { id: 'finish-after', kind: built.kind, parameters: built.parameters, actor: workerOf(g.dispatchId, '7001'), at, operations: built.operations });
    const later = replay(`${root}${canonicalize(commit as unknown as JsonValue)}\n`);
    const view = traceView(later, { claimId: g.claimId }, 0, 64);
    expect(kinds(view)).toEqual(['finish']);
    expect(view).toMatchObject({ compacted: { checkpoint: later.commits[0]!.id, prior_git_sha: 'e'.repeat(40) } });
  });

  it('after two compactions the events of every ledger in between are read, in order (not only the deepest one holding the anchor)', () => {
    const q = new TestQueue(policyOf(), nodes('p', 3, ''));
    const g = grantOne(q);
    start(q, g.dispatchId);
    const l1 = q.text();
    const c1 = checkpointOf(l1, 'a'.repeat(40));
    const p1 = replay(c1);
    const at = p1.state.commits.at(-1)!.at + 1000;
    const built = dispatchBound(p1.state, g.dispatchId, '7001', at);
    const bindCommit = buildCommit(p1.state, { id: 'bind-after', kind: built.kind, parameters: built.parameters, actor: reconciler, at, operations: built.operations });
    const l2 = `${c1}${canonicalize(bindCommit as unknown as JsonValue)}\n`;
    const l3 = replay(checkpointOf(l2, 'b'.repeat(40)));
    const sel = { claimId: g.claimId };
    expect(kinds(traceView(l3, sel, 0, 64, [replay(l1), replay(l2)]))).toEqual(['dispatch_next', 'dispatch', 'dispatch']);
    // Only the ledger before the first checkpoint reached: the answer says the trace starts later than the anchor.
    expect(traceView(l3, sel, 0, 64, [replay(l2)])).toMatchObject({ events: [{ kind: 'dispatch' }], compacted: { prior_git_sha: 'a'.repeat(40) } });
  });
});
