/**
 * Spec 7.8: "Recording Dispatch(started) atomically selects one trusted sender run/attempt for
 * the group". Replay rejects a start marker whose sender is not a dispatcher naming its own
 * workflow run (the reference replayer: "start marker must select exactly one authenticated
 * approved sender"). Ledgers are replayed from bytes.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../codec/index.ts';
import { isProtocolError } from '../errors.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { startMarker } from '../lifecycle/dispatch.ts';
import { buildCommit } from '../requests/build.ts';
import { bootstrapRequest, operationsRequest } from '../requests/operations.ts';
import { defaultPolicy, LedgerWriter } from '../requests/writer.ts';
import type { Actor } from '../schema/index.ts';
import { replayLedger } from './index.ts';

const REPO = 'acme/queue';
const RUN = { workflow: '.github/workflows/dispatcher.lock.yml', run_id: '4001', run_attempt: 1 };
const dispatcher: Actor = { role: 'dispatcher', principal: '1001', repository: REPO, ...RUN };

function granted(): { w: LedgerWriter; dispatchId: string } {
  const w = new LedgerWriter();
  w.publish('seed', { role: 'producer', principal: '1001', repository: REPO }, 1, bootstrapRequest(defaultPolicy({ repository: REPO, principal: '1001' }), 'e1', [{ node_key: 'a', payload: {} }], { graphId: 'g', at: 1 }));
  const { built } = w.dispatchNext('grant-1', dispatcher, 2, { pool: 'default', max_claims: 1, max_dispatches: 1, max_bytes: 49152 });
  return { w, dispatchId: built.plan.groups[0]!.dispatch_id };
}

/** Appends an unvalidated start marker published (and sent) by `sender`. */
function markerBy(sender: Actor): string {
  const { w, dispatchId } = granted();
  const built = operationsRequest('dispatch', [{ kind: 'Dispatch', dispatch_id: dispatchId, state: 'started', sender: sender as unknown as JsonObject }]);
  const commit = buildCommit(w.state, { id: 'start-1', kind: built.kind, parameters: built.parameters, actor: sender, at: 3, operations: built.operations });
  try {
    replayLedger(new TextEncoder().encode(w.text() + canonicalize(commit as unknown as JsonValue) + '\n'));
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
  return 'accepted';
}

describe('a start marker selects exactly one authenticated sender run (spec 7.8)', () => {
  it('accepts a dispatcher sender naming its workflow, run_id and run_attempt (control)', () => {
    expect(markerBy(dispatcher)).toBe('accepted');
  });

  it('rejects a start marker whose sender names no run (sender_run_missing)', () => {
    expect(markerBy({ role: 'dispatcher', principal: '1001', repository: REPO })).toBe('sender_run_missing');
  });

  it('rejects a start marker whose sender names a run but no workflow (sender_run_missing)', () => {
    expect(markerBy({ role: 'dispatcher', principal: '1001', repository: REPO, run_id: '4001', run_attempt: 1 })).toBe('sender_run_missing');
  });

  it('rejects a start marker sent by a reconciler (sender_role_invalid)', () => {
    expect(markerBy({ role: 'reconciler', principal: '1001', repository: REPO, ...RUN })).toBe('sender_role_invalid');
  });

  it('the builder refuses a sender without a run before anything is written (sender_run_missing)', () => {
    const { w, dispatchId } = granted();
    expect(() => startMarker(w.state, dispatchId, { role: 'dispatcher', principal: '1001', repository: REPO })).toThrow(expect.objectContaining({ code: 'sender_run_missing' }));
  });
});
