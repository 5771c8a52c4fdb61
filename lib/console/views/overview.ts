/**
 * The overview page's data (docs/console.md "Pages" `/`): tip, policy, controls and their
 * history, counts by state and readiness, outstanding reservations, uncertain
 * launches, pending delivery barriers, backlog by class and key, recent receipts.
 *
 * A checkpoint keeps every request's receipt but not a Control's operation: the control history
 * before it is read from the ledgers earlier checkpoints replaced (`ledgers`, through their prior
 * Git commits: `controlHistoryStart` is where to walk back to), and without them
 * `controlsCompacted` says how much of it was compacted away and which Git commit holds it.
 */
import { backingIssueCounts } from './backing-issue.ts';
import { summarize, type Projection, type ProjectionSummary } from '../../../engine/replay/index.ts';
import type { JsonObject } from '../../../engine/json.ts';
import { ledgerRetaining, ledgersBackTo, type HistoryReader } from '../../publisher/history.ts';
import { admittedAt, READINESS, workStatus, type Readiness } from './status.ts';

export interface ControlEvent {
  commitId: string;
  requestId: string;
  at: number;
  control: string;
  value: string | boolean;
  reason: string;
}

export interface PausePeriod {
  control: 'grants_paused' | 'admission_paused';
  from: number;
  to: number | null;
  pausedBy: string;
  resumedBy: string | null;
  reason: string;
}

export interface BacklogRow {
  pool: string;
  priority: number;
  key: string;
  available: number;
  ready: number;
  /** Age of the oldest eligible Work at asOf (ms), null when none is eligible. */
  oldestEligibleAge: number | null;
}

export interface PoolCapacity {
  pool: string;
  logical: number;
  logicalLimit: number;
  native: number;
  nativeLimit: number;
}

export interface LaunchRow {
  dispatchId: string;
  requestId: string;
  state: string;
  claims: number;
  reason: string | null;
}

export interface RecentRequest {
  requestId: string;
  kind: string;
  role: string;
  at: number;
  commitId: string;
  operations: number;
}

export interface OverviewView {
  summary: ProjectionSummary;
  readiness: Record<Readiness, number>;
  capacity: PoolCapacity[];
  launches: LaunchRow[];
  pendingBarriers: Array<{ workId: string; nodeKey: string; graphId: string; completionAt: number | null }>;
  /** Admitted Work with a ledger-bound backing Issue, and without one (pending projections when backing Issues are on). */
  backingIssues: { linked: number; unlinked: number };
  backlog: BacklogRow[];
  controlEvents: ControlEvent[];
  pauses: PausePeriod[];
  recent: RecentRequest[];
  /** Current pauses with their start (null when not paused). */
  grantsPausedSince: PausePeriod | null;
  admissionPausedSince: PausePeriod | null;
  /** Control commits whose operations no given ledger retains (see `controlsCompacted`); null when none. */
  controlsCompacted: ControlsCompacted | null;
}

/** How many of the latest control commits were compacted into `checkpoint`, whose prior Git commit holds them. */
export interface ControlsCompacted {
  commits: number;
  checkpoint: string;
  priorGitSha: string;
}

const RECENT = 15;
const MAX_CONTROL_COMMITS = 500;
const MAX_LISTED = 50;

/** The latest control commits (MAX_CONTROL_COMMITS), retained or compacted: every request keeps its receipt. */
function controlCommits(projection: Projection): string[] {
  const ids: string[] = [];
  for (const r of projection.requests()) if (r.kind === 'control') ids.push(r.commitId);
  return ids.slice(-MAX_CONTROL_COMMITS);
}

/** The oldest of the latest control commits that `projection` does not retain (walk back to it: `ledgersBackTo`), or null. */
export function controlHistoryStart(projection: Projection): string | null {
  return controlCommits(projection).find((id) => projection.commitText(id) === undefined) ?? null;
}

/** The ledgers holding the latest control commits: `projection`, and before it the earlier ledgers `history` reads as far as needed. */
export async function controlLedgers(projection: Projection, history?: HistoryReader): Promise<Projection[]> {
  const start = controlHistoryStart(projection);
  return start === null ? [projection] : ledgersBackTo(projection, start, history);
}

/**
 * Control operations in causal order (bounded to the latest control commits), each from whichever
 * of `ledgers` (oldest first, ending with `projection`) retains its commit.
 */
export function controlEvents(projection: Projection, ledgers: readonly Projection[] = [projection]): ControlEvent[] {
  const events: ControlEvent[] = [];
  for (const id of controlCommits(projection)) {
    const ledger = ledgerRetaining(ledgers, id);
    if (ledger === undefined) continue;
    const c = ledger.commitInfo(id)!;
    const commit = JSON.parse(ledger.commitText(id)!) as { operations: JsonObject[] };
    for (const op of commit.operations) {
      if (op.kind !== 'Control') continue;
      events.push({ commitId: c.id, requestId: c.requestId, at: c.at, control: String(op.control), value: op.value as string | boolean, reason: String(op.reason) });
    }
  }
  return events;
}

/** The latest control commits none of `ledgers` retains: compacted, their ledger not read. Null when there are none. */
export function controlsCompacted(projection: Projection, ledgers: readonly Projection[] = [projection]): ControlsCompacted | null {
  const lost = controlCommits(projection).filter((id) => ledgerRetaining(ledgers, id) === undefined).length;
  const oldest = ledgers[0]!;
  return lost === 0 || oldest.checkpoint === undefined ? null : { commits: lost, checkpoint: oldest.commits[0]!.id, priorGitSha: oldest.checkpoint.priorGitSha };
}

/**
 * Since when `control` is paused (the latest Control that set it), or null when it is not; when
 * that Control was compacted away and `ledgers` do not reach it, `compacted` says where it is.
 */
export function pausedSince(projection: Projection, control: PausePeriod['control'], ledgers: readonly Projection[] = [projection]):
  { at: number; reason: string } | { compacted: ControlsCompacted } | null {
  if (!projection.controls[control]) return null;
  const last = [...controlEvents(projection, ledgers)].reverse().find((e) => e.control === control && e.value === true);
  if (last !== undefined) return { at: last.at, reason: last.reason };
  const compacted = controlsCompacted(projection, ledgers);
  return compacted === null ? { at: 0, reason: 'unknown' } : { compacted };
}

/** Pause periods of the two boolean controls, derived from their events. */
export function pausePeriods(events: readonly ControlEvent[]): PausePeriod[] {
  const open = new Map<string, PausePeriod>();
  const periods: PausePeriod[] = [];
  for (const e of events) {
    if (e.control !== 'grants_paused' && e.control !== 'admission_paused') continue;
    const current = open.get(e.control);
    if (e.value === true && current === undefined) {
      const p: PausePeriod = { control: e.control, from: e.at, to: null, pausedBy: e.requestId, resumedBy: null, reason: e.reason };
      open.set(e.control, p);
      periods.push(p);
    } else if (e.value === false && current !== undefined) {
      current.to = e.at;
      current.resumedBy = e.requestId;
      open.delete(e.control);
    }
  }
  return periods;
}

/** The overview at `asOf`; `ledgers`: the ledgers that may retain its control history (`controlEvents`). */
export function overviewView(projection: Projection, asOf: number, ledgers: readonly Projection[] = [projection]): OverviewView {
  const summary = summarize(projection);
  const readiness = Object.fromEntries(READINESS.map((r) => [r, 0])) as Record<Readiness, number>;
  const backlog = new Map<string, BacklogRow>();
  const pendingBarriers: OverviewView['pendingBarriers'] = [];
  for (const work of projection.works()) {
    const status = workStatus(projection, work, asOf);
    readiness[status.readiness] += 1;
    if (work.barrier === 'pending' && pendingBarriers.length < MAX_LISTED) {
      pendingBarriers.push({ workId: work.workId, nodeKey: work.nodeKey, graphId: work.graphId, completionAt: work.completionAt });
    }
    if (work.state !== 'available') continue;
    const id = `${work.pool}\u0000${work.effectivePriority}\u0000${work.fairnessKey}`;
    let row = backlog.get(id);
    if (row === undefined) {
      row = { pool: work.pool, priority: work.effectivePriority, key: work.fairnessKey, available: 0, ready: 0, oldestEligibleAge: null };
      backlog.set(id, row);
    }
    row.available += 1;
    if (status.readiness === 'ready') {
      row.ready += 1;
      const age = asOf - admittedAt(projection, work);
      if (row.oldestEligibleAge === null || age > row.oldestEligibleAge) row.oldestEligibleAge = age;
    }
  }

  const { reservations } = projection;
  const capacity = Object.entries(projection.policy?.pools ?? {}).map(([pool, p]) => ({
    pool,
    logical: reservations.logical.get(pool) ?? 0,
    logicalLimit: p.logical_limit,
    native: reservations.native.get(pool) ?? 0,
    nativeLimit: p.native_limit,
  }));

  const launches: LaunchRow[] = [];
  for (const d of projection.dispatches()) {
    if (d.released || (d.state !== 'uncertain' && d.state !== 'unresolved')) continue;
    launches.push({ dispatchId: d.dispatchId, requestId: d.requestId, state: d.state === 'uncertain' ? 'launch_uncertain' : 'launch_unresolved', claims: d.claimIds.length, reason: d.reason });
  }

  const events = controlEvents(projection, ledgers);
  const pauses = pausePeriods(events);
  const current = (control: PausePeriod['control']) =>
    projection.controls[control] ? [...pauses].reverse().find((p) => p.control === control && p.to === null) ?? null : null;

  const recent = projection.commits.slice(-RECENT).reverse().map((c) => ({
    requestId: c.requestId, kind: c.kind, role: c.role, at: c.at, commitId: c.id, operations: c.operations,
  }));

  return {
    summary,
    readiness,
    capacity,
    launches,
    pendingBarriers,
    backingIssues: backingIssueCounts(projection),
    backlog: [...backlog.values()].sort((a, b) => a.pool.localeCompare(b.pool) || a.priority - b.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    controlEvents: events.slice(-50),
    pauses: pauses.slice(-20),
    recent,
    grantsPausedSince: current('grants_paused'),
    admissionPausedSince: current('admission_paused'),
    controlsCompacted: controlsCompacted(projection, ledgers),
  };
}
