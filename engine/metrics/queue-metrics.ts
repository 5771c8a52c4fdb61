/**
 * Queue metrics (docs/observability.md "Metrics"): a pure function of a validated projection and an evaluation
 * time, so the CLI (`stats --format prometheus|openmetrics`), the console (`/metrics`) and any other
 * process reading the same ledger compute the same values. Counters (grants, completions)
 * count records of the ledger itself (Claims, which a checkpoint keeps), never events seen by
 * one process, so they never depend on who is scraping.
 *
 * Labels: `pool` and `class` (priority class 1..5) only. Work series use the Work's effective
 * priority; Claim series the class the Claim charged at grant time. Spec 7.13: "Keep metrics
 * low-cardinality: counts/latencies by configured pool, priority, mode, and result code, not per
 * Work/Claim/request/tenant label": a fairness key is typically a tenant, so counts are summed
 * over keys and the oldest-eligible age is the maximum over them. Per-key facts stay in `stats`
 * (text, json), `explain` and the console's fairness view.
 *
 * Spec 7.4: "Actual launches, completed Work, failures, and consumed resources MUST be reported as
 * separate metrics": launches (groups bound to a worker run; rejected launches apart), completions,
 * failures (Claims cancelled before a Completion; delivery failures after one) and grants (the
 * charge) are separate counters.
 */
import type { Projection } from '../replay/index.ts';
import { ledgerBudget } from '../replay/ledger-budget.ts';
import { eligibility } from '../scheduler/eligibility.ts';

export interface SeriesLabels {
  pool: string;
  class: string;
}

/** Per pool and class, summed over fairness keys. */
export interface ClassSeries extends SeriesLabels {
  /** Available Work eligible now (the scheduler could grant it). */
  ready: number;
  /** Available Work not eligible now (dependencies, gates, retry backoff, pauses, routes). */
  waiting: number;
  /** Work owned by an open Claim. */
  running: number;
  /** Seconds since admission of the oldest ready Work of the class, any key (null: none ready). */
  oldestEligibleAgeSeconds: number | null;
  /** Claims ever granted (counter). */
  grants: number;
  /** Claims completed by their worker (counter). */
  completions: number;
  /** Claims that ended without a Completion: launch or worker failure, cancellation, revocation (counter). */
  cancellations: number;
  /** Completed Work whose delivery barrier failed: a DeliveryFailure (counter, Work labels). */
  deliveryFailures: number;
  /** Claims open now. */
  openClaims: number;
  /** Completed Work whose delivery barrier is still pending (no Result or DeliveryFailure yet). */
  pendingBarriers: number;
}

export interface PoolSeries {
  pool: string;
  /** Outstanding logical Claims (slots) and the pool's limit (null: none configured). */
  logicalReservations: number;
  logicalLimit: number | null;
  /** Outstanding native reservations (unreleased dispatch groups) and the pool's limit. */
  nativeReservations: number;
  nativeLimit: number | null;
  /** Unreleased dispatch groups whose launch is uncertain / unresolved. */
  uncertainLaunches: number;
  unresolvedLaunches: number;
  /** Dispatch groups bound to a worker run: the launches the ledger proves (counter). */
  launches: number;
  /** Dispatch groups whose launch was rejected: definitive nonlaunch (counter). */
  rejectedLaunches: number;
}

export interface LedgerSeries {
  commits: number;
  /** Canonical ledger bytes, the admission watermark, the owed recovery reserve and its limit. */
  bytes: number;
  watermark: number;
  reserve: number;
  recoveryBytes: number;
  admissionRemaining: number;
}

export interface QueueMetrics {
  asOf: number;
  policyEpoch: string | null;
  /** Trusted time (`at`, Unix ms) of the tip commit; null for an empty ledger. */
  lastCommitAt: number | null;
  grantsPaused: boolean;
  admissionPaused: boolean;
  classes: ClassSeries[];
  pools: PoolSeries[];
  ledger: LedgerSeries;
}

function labelKey(pool: string, priority: number): string {
  return `${pool}\u0000${priority}`;
}

export function queueMetrics(projection: Projection, asOf: number): QueueMetrics {
  const { state } = projection;
  const classes = new Map<string, ClassSeries>();
  const series = (pool: string, priority: number): ClassSeries => {
    const id = labelKey(pool, priority);
    let s = classes.get(id);
    if (s === undefined) {
      s = { pool, class: String(priority), ready: 0, waiting: 0, running: 0, oldestEligibleAgeSeconds: null, grants: 0, completions: 0, cancellations: 0, deliveryFailures: 0, openClaims: 0, pendingBarriers: 0 };
      classes.set(id, s);
    }
    return s;
  };
  const pools = new Map<string, PoolSeries>();
  const pool = (name: string): PoolSeries => {
    let p = pools.get(name);
    if (p === undefined) {
      const policy = projection.policy;
      const limits = policy !== null && Object.hasOwn(policy.pools, name) ? policy.pools[name] : undefined;
      p = {
        pool: name,
        logicalReservations: state.outstandingClaims.get(name) ?? 0,
        logicalLimit: limits?.logical_limit ?? null,
        nativeReservations: state.outstandingNative.get(name) ?? 0,
        nativeLimit: limits?.native_limit ?? null,
        uncertainLaunches: 0,
        unresolvedLaunches: 0,
        launches: 0,
        rejectedLaunches: 0,
      };
      pools.set(name, p);
    }
    return p;
  };

  for (const name of Object.keys(state.policy?.policy.pools ?? {})) pool(name);
  for (const w of projection.works()) {
    pool(w.pool);
    const s = series(w.pool, w.effectivePriority);
    if (w.state === 'claimed') s.running += 1;
    else if (w.state === 'available') {
      if (eligibility(state, w, asOf).eligible) {
        s.ready += 1;
        const age = Math.max(0, (asOf - w.enqueued) / 1000);
        if (s.oldestEligibleAgeSeconds === null || age > s.oldestEligibleAgeSeconds) s.oldestEligibleAgeSeconds = age;
      } else s.waiting += 1;
    } else if (w.state === 'completed' && w.barrier === 'pending') s.pendingBarriers += 1;
    if (w.barrier === 'failed') s.deliveryFailures += 1;
  }
  for (const c of state.claims.values()) {
    const work = projection.work(c.workId);
    if (work === undefined) continue;
    const s = series(work.pool, c.priority);
    s.grants += 1;
    if (c.state === 'completed') s.completions += 1;
    if (c.state === 'cancelled') s.cancellations += 1;
    if (c.state === 'open') s.openClaims += 1;
  }
  for (const d of state.dispatches.values()) {
    const p = pool(d.pool);
    // A binding and a rejection are final (replay/ops/dispatch.ts): both counts only grow.
    if (d.run !== null) p.launches += 1;
    if (d.state === 'rejected') p.rejectedLaunches += 1;
    if (d.released) continue;
    if (d.state === 'uncertain') p.uncertainLaunches += 1;
    if (d.state === 'unresolved') p.unresolvedLaunches += 1;
  }

  const budget = ledgerBudget(state);
  const tip = state.commits.at(-1);
  const byLabels = (a: SeriesLabels, b: SeriesLabels): number => (a.pool !== b.pool ? (a.pool < b.pool ? -1 : 1) : Number(a.class) - Number(b.class));
  return {
    asOf,
    policyEpoch: projection.policyEpoch,
    lastCommitAt: tip === undefined ? null : tip.at,
    grantsPaused: state.controls.grants_paused,
    admissionPaused: state.controls.admission_paused,
    classes: [...classes.values()].sort(byLabels),
    pools: [...pools.values()].sort((a, b) => (a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0)),
    ledger: {
      commits: projection.commitCount,
      bytes: budget.bytes,
      watermark: budget.ledger_bytes,
      reserve: budget.reserve,
      recoveryBytes: budget.recovery_bytes,
      admissionRemaining: budget.admission_remaining,
    },
  };
}
