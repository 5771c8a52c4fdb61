/**
 * The exposition of the queue metrics (engine/metrics/queue-metrics.ts), built with prom-client
 * on a fresh registry per rendering: every value is a function of the ledger and the evaluation
 * time, so nothing accumulates in this process. Two texts of the same registry:
 *
 * - OpenMetrics 1.0 (`renderOpenMetrics`): the console's `/metrics` and `fairway stats --format
 *   openmetrics`. A counter family is named without `_total` (`# TYPE fairway_grants counter`),
 *   its samples with it, and the text ends with `# EOF`.
 * - The Prometheus text format 0.0.4 (`renderPrometheusText`): `fairway stats --format prometheus`,
 *   for the readers of files and pipes (node_exporter's textfile collector, the Pushgateway),
 *   which parse only this format: there the family is the sample name (`# TYPE
 *   fairway_grants_total counter`), else their parser reads the samples as an untyped metric
 *   without help.
 */
import { Counter, Gauge, Registry, type OpenMetricsContentType, type PrometheusContentType } from 'prom-client';
import type { QueueMetrics } from '../../engine/metrics/queue-metrics.ts';

export const OPENMETRICS_CONTENT_TYPE = Registry.OPENMETRICS_CONTENT_TYPE;
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Spec 7.13: low-cardinality labels only, no fairness key (typically a tenant): summed over keys. */
const CLASS_LABELS = ['pool', 'class'] as const;
const POOL_LABELS = ['pool'] as const;
const POLICY_LABELS = ['epoch'] as const;

/** Metric names and help texts (README "Metrics" lists the same table). */
export const METRIC_HELP = {
  fairway_work_ready: 'Available Work eligible for a grant now, per pool and priority class.',
  fairway_work_waiting: 'Available Work not eligible now (dependencies, gates, retry backoff, pauses, routes).',
  fairway_work_running: 'Work owned by an open Claim.',
  fairway_work_oldest_eligible_age_seconds: 'Seconds since admission of the oldest ready Work.',
  fairway_grants_total: 'Claims granted, counted from the ledger (identical in every process reading it).',
  fairway_completions_total: 'Claims completed by their worker, counted from the ledger.',
  fairway_claims_cancelled_total: 'Claims that ended without a Completion (launch or worker failure, cancellation, revocation), counted from the ledger.',
  fairway_delivery_failures_total: 'Completed Work whose delivery barrier failed (a DeliveryFailure), counted from the ledger.',
  fairway_claims_open: 'Open Claims.',
  fairway_delivery_barriers_pending: 'Completed Work whose delivery barrier is pending (no Result or DeliveryFailure yet).',
  fairway_logical_reservations: 'Outstanding logical Claim slots of the pool.',
  fairway_logical_limit: 'Logical slot limit of the pool (absent: none configured).',
  fairway_native_reservations: 'Outstanding native reservations (unreleased dispatch groups) of the pool.',
  fairway_native_limit: 'Native reservation limit of the pool (absent: none configured).',
  fairway_launches_uncertain: 'Unreleased dispatch groups whose launch outcome is uncertain.',
  fairway_launches_unresolved: 'Unreleased dispatch groups whose launch is unresolved.',
  fairway_launches_total: 'Dispatch groups bound to a worker run (the launches the ledger proves), counted from the ledger.',
  fairway_launches_rejected_total: 'Dispatch groups whose launch was rejected (definitive nonlaunch), counted from the ledger.',
  fairway_ledger_bytes: 'Canonical bytes of the retained ledger.',
  fairway_ledger_watermark_bytes: 'Admission watermark (Policy limits.ledger_bytes).',
  fairway_ledger_reserve_bytes: 'Worst-case lifecycle bytes still owed to admitted Work and groups (recovery reserve in use).',
  fairway_ledger_recovery_bytes: 'Recovery reserve limit (Policy limits.recovery_bytes).',
  fairway_ledger_admission_remaining_bytes: 'Bytes left under the admission watermark.',
  fairway_ledger_commits: 'QueueCommits in the retained ledger.',
  fairway_ledger_last_commit_timestamp_seconds: 'Trusted time of the tip QueueCommit (Unix seconds; absent: empty ledger).',
  fairway_policy_info: 'The installed Policy epoch (label epoch); value 1.',
  fairway_grants_paused: '1 when grants are paused by a Control.',
  fairway_admission_paused: '1 when admission is paused by a Control.',
  fairway_metrics_evaluated_at_seconds: 'Evaluation time of these values (Unix seconds).',
  fairway_store_stale: '1 when the store could not be read: the values are those of the last good read (console).',
} as const;

type Name = keyof typeof METRIC_HELP;

type AnyRegistry = Registry<PrometheusContentType> | Registry<OpenMetricsContentType>;

/** How the values were read: `stale` when the store failed and the last good read answers (the console's x-fairway-stale). */
export interface MetricsRead {
  stale: boolean;
}

const FRESH: MetricsRead = { stale: false };

/** The registry holding `metrics`, rendering OpenMetrics or the Prometheus text format. */
export function metricsRegistry(metrics: QueueMetrics, contentType: OpenMetricsContentType | PrometheusContentType, read: MetricsRead = FRESH): AnyRegistry {
  let registry: AnyRegistry;
  if (contentType === OPENMETRICS_CONTENT_TYPE) {
    const openMetrics = new Registry<OpenMetricsContentType>();
    openMetrics.setContentType(OPENMETRICS_CONTENT_TYPE);
    registry = openMetrics;
  } else registry = new Registry<PrometheusContentType>();
  const gauge = <L extends string>(name: Name, labelNames: readonly L[]) => new Gauge<L>({ name, help: METRIC_HELP[name], labelNames, registers: [registry] });
  const counter = <L extends string>(name: Name, labelNames: readonly L[]) => new Counter<L>({ name, help: METRIC_HELP[name], labelNames, registers: [registry] });

  const ready = gauge('fairway_work_ready', CLASS_LABELS);
  const waiting = gauge('fairway_work_waiting', CLASS_LABELS);
  const running = gauge('fairway_work_running', CLASS_LABELS);
  const age = gauge('fairway_work_oldest_eligible_age_seconds', CLASS_LABELS);
  const grants = counter('fairway_grants_total', CLASS_LABELS);
  const completions = counter('fairway_completions_total', CLASS_LABELS);
  const cancellations = counter('fairway_claims_cancelled_total', CLASS_LABELS);
  const deliveryFailures = counter('fairway_delivery_failures_total', CLASS_LABELS);
  const open = gauge('fairway_claims_open', CLASS_LABELS);
  const barriers = gauge('fairway_delivery_barriers_pending', CLASS_LABELS);
  for (const s of metrics.classes) {
    const labels = { pool: s.pool, class: s.class };
    ready.set(labels, s.ready);
    waiting.set(labels, s.waiting);
    running.set(labels, s.running);
    if (s.oldestEligibleAgeSeconds !== null) age.set(labels, s.oldestEligibleAgeSeconds);
    grants.inc(labels, s.grants);
    completions.inc(labels, s.completions);
    cancellations.inc(labels, s.cancellations);
    deliveryFailures.inc(labels, s.deliveryFailures);
    open.set(labels, s.openClaims);
    barriers.set(labels, s.pendingBarriers);
  }

  const logical = gauge('fairway_logical_reservations', POOL_LABELS);
  const logicalLimit = gauge('fairway_logical_limit', POOL_LABELS);
  const native = gauge('fairway_native_reservations', POOL_LABELS);
  const nativeLimit = gauge('fairway_native_limit', POOL_LABELS);
  const uncertain = gauge('fairway_launches_uncertain', POOL_LABELS);
  const unresolved = gauge('fairway_launches_unresolved', POOL_LABELS);
  const launches = counter('fairway_launches_total', POOL_LABELS);
  const rejected = counter('fairway_launches_rejected_total', POOL_LABELS);
  for (const p of metrics.pools) {
    const labels = { pool: p.pool };
    logical.set(labels, p.logicalReservations);
    if (p.logicalLimit !== null) logicalLimit.set(labels, p.logicalLimit);
    native.set(labels, p.nativeReservations);
    if (p.nativeLimit !== null) nativeLimit.set(labels, p.nativeLimit);
    uncertain.set(labels, p.uncertainLaunches);
    unresolved.set(labels, p.unresolvedLaunches);
    launches.inc(labels, p.launches);
    rejected.inc(labels, p.rejectedLaunches);
  }

  const l = metrics.ledger;
  gauge('fairway_ledger_bytes', []).set(l.bytes);
  gauge('fairway_ledger_watermark_bytes', []).set(l.watermark);
  gauge('fairway_ledger_reserve_bytes', []).set(l.reserve);
  gauge('fairway_ledger_recovery_bytes', []).set(l.recoveryBytes);
  gauge('fairway_ledger_admission_remaining_bytes', []).set(l.admissionRemaining);
  gauge('fairway_ledger_commits', []).set(l.commits);
  const lastCommit = gauge('fairway_ledger_last_commit_timestamp_seconds', []);
  if (metrics.lastCommitAt !== null) lastCommit.set(metrics.lastCommitAt / 1000);
  const policy = gauge('fairway_policy_info', POLICY_LABELS);
  if (metrics.policyEpoch !== null) policy.set({ epoch: metrics.policyEpoch }, 1);
  gauge('fairway_grants_paused', []).set(metrics.grantsPaused ? 1 : 0);
  gauge('fairway_admission_paused', []).set(metrics.admissionPaused ? 1 : 0);
  gauge('fairway_metrics_evaluated_at_seconds', []).set(metrics.asOf / 1000);
  gauge('fairway_store_stale', []).set(read.stale ? 1 : 0);
  return registry;
}

/** The OpenMetrics text of `metrics` (ends with `# EOF`). */
export function renderOpenMetrics(metrics: QueueMetrics, read: MetricsRead = FRESH): Promise<string> {
  return metricsRegistry(metrics, OPENMETRICS_CONTENT_TYPE, read).metrics();
}

/** The Prometheus text format (0.0.4) of `metrics`: the same families, values and help. */
export function renderPrometheusText(metrics: QueueMetrics): Promise<string> {
  return metricsRegistry(metrics, PROMETHEUS_CONTENT_TYPE).metrics();
}
