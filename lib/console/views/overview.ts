/**
 * The overview page's data (docs/console.md "Pages" `/`): tip, policy, controls and their
 * history, counts by state and readiness, outstanding reservations, uncertain
 * launches, pending delivery barriers, backlog by class and key, recent receipts.
 */
import { backingIssueCounts } from './backing-issue.ts';
import { summarize, type Projection, type ProjectionSummary } from '../../../engine/replay/index.ts';
import type { JsonObject } from '../../../engine/json.ts';
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
}

const RECENT = 15;
const MAX_CONTROL_COMMITS = 500;
const MAX_LISTED = 50;

/** Control operations in causal order (bounded to the latest control commits). */
export function controlEvents(projection: Projection): ControlEvent[] {
  const commits = projection.commits.filter((c) => c.kind === 'control').slice(-MAX_CONTROL_COMMITS);
  const events: ControlEvent[] = [];
  for (const c of commits) {
    const text = projection.commitText(c.id);
    if (text === undefined) continue;
    const commit = JSON.parse(text) as { operations: JsonObject[] };
    for (const op of commit.operations) {
      if (op.kind !== 'Control') continue;
      events.push({ commitId: c.id, requestId: c.requestId, at: c.at, control: String(op.control), value: op.value as string | boolean, reason: String(op.reason) });
    }
  }
  return events;
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

export function overviewView(projection: Projection, asOf: number): OverviewView {
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

  const events = controlEvents(projection);
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
  };
}
