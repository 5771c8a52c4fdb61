/**
 * Writing forbidden ledgers (issue 10 §3): an honest prefix is built with the
 * engine's own request builders through `TestQueue` (every commit validated by
 * replay as it is written), then ONE hand-written commit is appended on its
 * tip with its commit id, request fingerprint and parameters binding computed
 * exactly as a writer computes them, so only the rule under test can fail.
 * The verdict is read on the byte path: `replayLedger(Uint8Array)` through
 * the same framing files and Git stores use, alone and with every record
 * verified ahead as a worker thread does (tests/support/verified-replay.ts):
 * both must give the same verdict.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { isProtocolError } from '../../engine/errors.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import { groupEvidence, type EvidenceFacts } from '../../engine/lifecycle/evidence.ts';
import { replayBothWays } from '../support/verified-replay.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import { dispatchBound, dispatchStarted } from '../../engine/requests/lifecycle.ts';
import { finishRequest, type BuiltRequest } from '../../engine/requests/operations.ts';
import type { Actor, QueueOperation } from '../../engine/schema/index.ts';
import { dispatcher, reconciler, REPOSITORY, type TestQueue } from '../acceptance/queue.ts';

export const WORKER_WORKFLOW = '.github/workflows/worker.lock.yml';

export interface Forged {
  id: string;
  kind: string;
  actor: Actor;
  at: number;
  operations: JsonObject[];
  /** Defaults to the contract binding: `{nodes}` for submit, `{operations}` otherwise. */
  parameters?: JsonObject;
}

/** The honest ledger plus one hand-written commit on its tip, as UTF-8 bytes. */
export function forge(q: TestQueue, request: Forged): Uint8Array {
  const parameters = request.parameters ?? (request.kind === 'submit' ? { nodes: request.operations } : { operations: request.operations });
  const commit = buildCommit(q.state, {
    id: request.id, kind: request.kind, parameters, actor: request.actor, at: request.at, operations: request.operations as unknown as QueueOperation[],
  });
  return new TextEncoder().encode(`${q.text()}${canonicalize(commit as unknown as JsonValue)}\n`);
}

/** `forge` for a request built by one of the engine's builders (possibly edited). */
export function forgeBuilt(q: TestQueue, id: string, actor: Actor, at: number, built: BuiltRequest): Uint8Array {
  return forge(q, { id, kind: built.kind, actor, at, operations: built.operations as unknown as JsonObject[], parameters: built.parameters });
}

/**
 * Replay verdict on the byte path: 'accepted' or the ProtocolError code; anything else is a bug
 * and rethrown, as is a disagreement between replay alone and with every record verified ahead.
 */
export function byteVerdict(bytes: Uint8Array): string {
  try {
    replayBothWays(bytes);
    return 'accepted';
  } catch (e) {
    if (isProtocolError(e)) return e.code;
    throw e;
  }
}

/** The worker actor of one member of `dispatchId`, running as `runId` (original attempt). */
export function workerOf(dispatchId: string, runId: string, handle = 'h1'): Actor {
  return { role: 'worker', principal: '1001', repository: REPOSITORY, workflow: WORKER_WORKFLOW, run_id: runId, run_attempt: 1, dispatch_id: dispatchId, claim_handle: handle };
}

/** Dispatch(started) by the dispatcher (the group's single sender). */
export function start(q: TestQueue, dispatchId: string): void {
  q.w.publish(`start-${dispatchId}`, dispatcher, q.tick(), dispatchStarted(dispatchId, dispatcher as unknown as JsonObject));
}

/** Dispatch(bound) to the worker run `runId`. */
export function bind(q: TestQueue, dispatchId: string, runId: string): void {
  q.w.publish(`bind-${dispatchId}`, reconciler, q.tick(), dispatchBound(q.state, dispatchId, runId, q.t));
}

/** The one granted (dispatch id, Claim id) of a single-Claim grant. */
export function grantOne(q: TestQueue, pool = 'default'): { dispatchId: string; claimId: string; workId: string } {
  const plan = q.grant({ pool });
  const claim = plan.claims[0]!;
  return { dispatchId: claim.dispatch_id, claimId: claim.claim_id, workId: claim.work_id };
}

/** Grant, start, bind and complete the next Claim; returns its scope and worker actor. */
export function completedClaim(q: TestQueue, runId: string, pool = 'default'): { dispatchId: string; claimId: string; workId: string; worker: Actor } {
  const g = grantOne(q, pool);
  start(q, g.dispatchId);
  bind(q, g.dispatchId, runId);
  const worker = workerOf(g.dispatchId, runId);
  const at = q.tick();
  q.w.publish(`finish-${g.dispatchId}`, worker, at, finishRequest(q.state, { dispatch_id: g.dispatchId, claim_handle: 'h1', outcome: 'completed' }, at));
  return { ...g, worker };
}

/** Normalized evidence for the group's frozen scope (the production evidence builder). */
export function evidence(q: TestQueue, dispatchId: string, facts: Omit<EvidenceFacts, 'checkedAt'>, checkedAt = q.t): JsonObject {
  return groupEvidence(q.state, dispatchId, { ...facts, checkedAt });
}
