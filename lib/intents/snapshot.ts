/**
 * The immutable activation snapshot (spec 7.12, operator reference "Workflow
 * roles and intent tools"): captured by a trusted step from the live queue,
 * read by the agent-side MCP server and by the trusted processor.
 *
 * - A declared worker with a missing or malformed assignment fails; it never
 *   becomes an observer. Its assignment must be exactly a ledger dispatch group.
 * - An absent queue is reported as `uninitialized` (workers excepted); an
 *   existing invalid ledger is an error, never an empty backlog.
 */
import { sha256Hex } from '../../engine/codec/index.ts';
import { fail } from '../../engine/errors.ts';
import { checkAssignmentAgainstLedger, parseAssignment, type WorkerAssignment } from '../../engine/intents/assignment.ts';
import type { NativeRun } from '../../engine/intents/effects.ts';
import { SNAPSHOT_SCHEMA, parseSnapshot, snapshotId, type Snapshot } from '../../engine/intents/records.ts';
import type { SnapshotRole } from '../../engine/intents/roles.ts';
import { replayLedger, type Projection } from '../../engine/replay/index.ts';
import { coldReplay } from '../publisher/cache.ts';
import type { LedgerStore } from '../store/types.ts';
import { readJsonFile } from './files.ts';
import type { EventMeta } from '../debug/events.ts';
import { debugEvent } from '../debug/log.ts';

export interface CaptureInput {
  store: LedgerStore;
  branch: string;
  role: SnapshotRole;
  /** The trusted assignment input (required for, and only for, a worker). */
  assignment?: unknown;
  /** Trusted origin principal (decimal actor id). */
  principal: string;
  /** The worker's actual native run, from the trusted runner context. */
  nativeRun?: NativeRun | null;
  now: number;
}

/** A snapshot with its validated projection and (for a worker) its original assignment. */
export interface LoadedSnapshot {
  snapshot: Snapshot;
  projection: Projection | null;
  assignment: WorkerAssignment | null;
}

function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return fail('ledger_invalid', 'the queue ledger is not valid UTF-8');
  }
}

/** Checks a worker's assignment against the snapshot ledger and its native run. */
function workerAssignment(role: SnapshotRole, value: unknown, projection: Projection | null, nativeRun: NativeRun | null): WorkerAssignment | null {
  if (role !== 'worker') {
    if (value !== undefined && value !== null) fail('assignment_unexpected', `a ${role} activation takes no worker assignment`);
    return null;
  }
  const assignment = parseAssignment(value);
  if (projection === null) fail('queue_uninitialized', 'a worker needs an existing queue: its assignment names a dispatch group');
  checkAssignmentAgainstLedger(projection, assignment);
  const group = projection.dispatch(assignment.dispatch_id)!;
  const bound = group.run as { run_id?: string } | null;
  if (nativeRun !== null && bound?.run_id !== undefined && bound.run_id !== nativeRun.run_id) {
    fail('run_binding_conflict', `this run ${nativeRun.run_id} is not the run ${bound.run_id} bound to dispatch ${group.dispatchId}`);
  }
  return assignment;
}

export async function captureSnapshot(input: CaptureInput): Promise<LoadedSnapshot> {
  const read = await input.store.read();
  let projection: Projection | null = null;
  let text = '';
  if (read.bytes !== null) {
    if (read.bytes.length === 0) fail('ledger_empty', `the ledger on ${input.store.label} exists but is empty; an empty ledger is an error, not an empty backlog`);
    text = decode(read.bytes);
    projection = coldReplay(read.bytes);
  }
  const nativeRun = input.nativeRun ?? null;
  const assignment = workerAssignment(input.role, input.assignment, projection, nativeRun);
  const body: Omit<Snapshot, 'snapshot_id'> = {
    schema: SNAPSHOT_SCHEMA,
    created_at: input.now,
    role: input.role,
    origin: { principal: input.principal, repository: projection?.repository ?? null },
    source: { label: input.store.label, branch: input.branch },
    uninitialized: projection === null,
    branch_version: read.version,
    tip: projection?.tip ?? null,
    ledger: { encoding: 'utf8', sha256: sha256Hex(text), bytes: Buffer.byteLength(text), text },
    assignment: assignment ?? null,
    native_run: nativeRun,
  };
  const snapshot = parseSnapshot({ ...body, snapshot_id: snapshotId(body) });
  debugEvent('intents', 'snapshot', { role: input.role as EventMeta<'intents', 'snapshot'>['role'], bytes: body.ledger.bytes, work: projection === null ? 0 : projection.workCount });
  return { snapshot, projection, assignment };
}

/** Reads, verifies and replays a snapshot file. */
export async function loadSnapshot(path: string): Promise<LoadedSnapshot> {
  const snapshot = parseSnapshot(await readJsonFile(path, 'snapshot'));
  const projection = snapshot.uninitialized ? null : replayLedger(snapshot.ledger.text);
  if (projection !== null && projection.tip !== snapshot.tip) fail('snapshot_invalid', 'the snapshot tip is not its ledger tip');
  const assignment = workerAssignment(snapshot.role, snapshot.assignment, projection, snapshot.native_run);
  return { snapshot, projection, assignment };
}
