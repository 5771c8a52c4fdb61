/**
 * What the ledger recorded about one dispatch group's launch (spec 7.8): the start
 * marker's time and sender, every Dispatch transition with its reason and the run ids
 * its evidence named (a POST response that could not be verified yet), and the Release.
 * Derived from the validated commits after the grant (bounded scan), never stored.
 */
import { fail } from '../errors.ts';
import type { JsonObject } from '../json.ts';
import type { Projection } from '../replay/index.ts';
import { startRequestId } from './ids.ts';

export interface DispatchEvent {
  commitId: string;
  requestId: string;
  at: number;
  role: string;
  /** The Dispatch state recorded, or `released`. */
  state: string;
  reason: string | null;
  runId: string | null;
  evidence: JsonObject | null;
}

export interface DispatchHistory {
  dispatchId: string;
  grantCommit: string;
  grantAt: number;
  /** Decision time of the start marker: the reconciliation deadline origin. */
  startedAt: number | null;
  sender: JsonObject | null;
  events: DispatchEvent[];
  /** Run ids named by uncertain/unresolved/bound evidence, first seen first. */
  reportedRunIds: string[];
}

const KINDS = new Set(['dispatch', 'release']);
const MAX_SCANNED = 50_000;

export function dispatchHistory(projection: Projection, dispatchId: string): DispatchHistory {
  const { state } = projection;
  const group = state.dispatches.get(dispatchId);
  if (group === undefined) fail('unknown_dispatch', `dispatch ${dispatchId} does not exist`);
  // A grant that a checkpoint replaced: its time is its receipt's, and the scan starts after the root
  // (the compacted start marker and Dispatch records stay at the checkpoint's prior Git commit).
  const first = state.commitIndex.get(group.commitId) ?? 0;
  const grantAt = state.commitIndex.has(group.commitId) ? state.commits[first]!.at : state.requests.get(group.requestId)!.at;
  const out: DispatchHistory = { dispatchId, grantCommit: group.commitId, grantAt, startedAt: null, sender: null, events: [], reportedRunIds: [] };
  const end = Math.min(state.commits.length, first + 1 + MAX_SCANNED);
  for (let i = first + 1; i < end; i++) {
    const info = state.commits[i]!;
    if (!KINDS.has(info.kind)) continue;
    const ops = (JSON.parse(projection.commitText(info.id)!) as { operations: JsonObject[] }).operations;
    for (const op of ops) {
      if (op.dispatch_id !== dispatchId || (op.kind !== 'Dispatch' && op.kind !== 'Release')) continue;
      const evidence = (op.evidence ?? null) as JsonObject | null;
      const run = (op.run ?? null) as JsonObject | null;
      const runId = typeof run?.run_id === 'string' ? run.run_id : typeof evidence?.run_id === 'string' ? evidence.run_id : null;
      const recorded = op.kind === 'Release' ? 'released' : String(op.state);
      out.events.push({
        commitId: info.id, requestId: info.requestId, at: info.at, role: info.role, state: recorded,
        reason: typeof op.reason === 'string' ? op.reason : null, runId, evidence,
      });
      if (recorded === 'started') {
        out.startedAt = info.at;
        out.sender = (op.sender ?? null) as JsonObject | null;
      }
      if (runId !== null && !out.reportedRunIds.includes(runId)) out.reportedRunIds.push(runId);
    }
  }
  // A start marker that a checkpoint replaced: its decision time is its request receipt's (our
  // stable start request id) and its sender the checkpoint's dispatch record's. Run ids named by
  // compacted uncertain evidence stay at the prior Git commit; a bound run is in the record.
  const marker = out.startedAt === null && group.state !== 'reserved' ? state.requests.get(startRequestId(dispatchId)) : undefined;
  if (marker !== undefined && !state.commitIndex.has(marker.commitId)) {
    out.startedAt = marker.at;
    out.sender = group.sender;
  }
  const bound = (group.run as { run_id?: unknown } | null)?.run_id;
  if (typeof bound === 'string' && !out.reportedRunIds.includes(bound)) out.reportedRunIds.unshift(bound);
  return out;
}
