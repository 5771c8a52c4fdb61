/**
 * Plain-data views over a projection for the CLI (metadata only: payloads,
 * receipts and submitted text are never printed except as escaped ids).
 */
import { fail } from '../engine/errors.ts';
import { deliveryFailureCommitOf } from '../engine/lifecycle/barrier.ts';
import { releaseCommitOf } from '../engine/lifecycle/launch-state.ts';
import { summarize, type Projection, type WorkRecord } from '../engine/replay/index.ts';
import { workReadiness as readinessOf } from '../engine/scheduler/readiness.ts';
import { printableJson as q } from './format.ts';
import { commitAt, ownerOf, workReadiness } from './work-facts.ts';

/** Launch states whose reservation waits on reconciliation (the `fairway_unresolved_launches` and uncertain gauges). */
const UNRESOLVED_LAUNCH: ReadonlySet<string> = new Set(['uncertain', 'unresolved']);

export function statsView(p: Projection, asOf: number) {
  const pools = new Map<string, { available: number; eligible: number; claimed: number; backlog: Map<string, number> }>();
  for (const w of p.works()) {
    let pool = pools.get(w.pool);
    if (pool === undefined) pools.set(w.pool, (pool = { available: 0, eligible: 0, claimed: 0, backlog: new Map() }));
    if (w.state === 'claimed') pool.claimed += 1;
    if (w.state !== 'available') continue;
    pool.available += 1;
    if (readinessOf(p, w, asOf).readiness === 'ready') pool.eligible += 1;
    const key = `${w.effectivePriority}\u0000${w.fairnessKey}`;
    pool.backlog.set(key, (pool.backlog.get(key) ?? 0) + 1);
  }
  const policyPools = p.policy?.pools ?? {};
  const { reservations } = p;
  const summary = summarize(p);
  // Spec 7.18: unresolved launch ids apart from the other retained reservations (native_outstanding).
  const unresolved = [...p.dispatches()].filter((d) => !d.released && UNRESOLVED_LAUNCH.has(d.state))
    .map((d) => ({ dispatch_id: d.dispatchId, pool: d.pool, state: d.state, reason: d.reason }))
    .sort((a, b) => (a.dispatch_id < b.dispatch_id ? -1 : 1));
  return {
    tip: p.tip,
    commits: p.commitCount,
    policy_epoch: p.policyEpoch,
    as_of: asOf,
    controls: { ...p.controls },
    works: summary.works.by_state,
    barriers: summary.barriers,
    envelope: p.envelope(),
    unresolved_launches: unresolved,
    pools: [...pools].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, v]) => ({
      pool: name,
      available: v.available,
      eligible: v.eligible,
      claimed: v.claimed,
      logical_outstanding: reservations.logical.get(name) ?? 0,
      logical_limit: (Object.hasOwn(policyPools, name) ? policyPools[name]?.logical_limit : undefined) ?? null,
      native_outstanding: reservations.native.get(name) ?? 0,
      native_limit: (Object.hasOwn(policyPools, name) ? policyPools[name]?.native_limit : undefined) ?? null,
      backlog: [...v.backlog].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => {
        const [priority, key] = k.split('\u0000');
        return { priority: Number(priority), fairness_key: key!, available: n };
      }),
    })),
  };
}

/** `stats --format jsonl`: the queue header, one record per unresolved launch, then one per pool and per pool backlog bucket. */
export function* statsRecords(view: ReturnType<typeof statsView>): Generator<Record<string, unknown>> {
  const { pools, unresolved_launches: unresolved, ...header } = view;
  yield { type: 'queue', ...header };
  for (const u of unresolved) yield { type: 'unresolved_launch', ...u };
  for (const { backlog, ...pool } of pools) {
    yield { type: 'pool', ...pool };
    for (const b of backlog) yield { type: 'backlog', pool: pool.pool, ...b };
  }
}

function matches(w: WorkRecord, search: string): boolean {
  const needle = search.toLowerCase();
  return [w.workId, w.graphId, w.nodeKey, w.pool, w.fairnessKey, w.state, ...w.claims].some((s) => s.toLowerCase().includes(needle));
}

/** One row of `state`: the tree position and label, plus the full metadata of its Work or Claim. */
export interface TreeRow {
  depth: number;
  kind: 'graph' | 'work' | 'claim';
  id: string;
  label: string;
  [field: string]: unknown;
}

/**
 * The bytes one `state` page may hold (the operator reference: "--offset and --limit paginate at
 * most 256 rows/64 KiB"), counted as its rows' one-line JSON each with its newline: exactly the
 * `--format jsonl` output.
 */
export const STATE_PAGE_BYTES = 64 * 1024;

export function treeRows(p: Projection, o: { graph?: string; pool?: string; state?: string; search?: string; offset: number; limit: number }, asOf: number = Date.now()) {
  const rows: TreeRow[] = [];
  const graphs = [...p.graphs.keys()].sort();
  for (const graphId of graphs) {
    if (o.graph !== undefined && graphId !== o.graph) continue;
    const works = p.graphs.get(graphId)!.map((id) => p.work(id)!).filter((w) =>
      (o.pool === undefined || w.pool === o.pool) && (o.state === undefined || w.state === o.state) && (o.search === undefined || matches(w, o.search)));
    if (works.length === 0) continue;
    rows.push({ depth: 0, kind: 'graph', id: graphId, label: `graph ${q(graphId)} (${works.length} Work)`, graph_id: graphId, works: works.length });
    for (const w of works) {
      const ready = workReadiness(p, w, asOf);
      const owner = ownerOf(p, w);
      rows.push({
        depth: 1, kind: 'work', id: w.workId,
        label: `${w.state.padEnd(9)} P${w.effectivePriority} ${q(w.nodeKey)} key=${q(w.fairnessKey)} ${ready.readiness}${ready.reason === null || w.state !== 'available' ? '' : `(${ready.reason})`} ${w.workId}${w.barrier === 'none' ? '' : ` barrier=${w.barrier}`}`,
        work_id: w.workId, graph_id: w.graphId, node_key: w.nodeKey, state: w.state, readiness: ready.readiness, reason: ready.reason,
        pool: w.pool, worker_profile: w.workerProfile, priority: w.priority, effective_priority: w.effectivePriority, fairness_key: w.fairnessKey,
        barrier: w.barrier, owner, attempts: w.attempts, claims: w.claims.length,
        admitted_at: commitAt(p, w.admittedCommit), retry_not_before: w.retryNotBefore, completed_at: w.completionAt, cancelled_at: commitAt(p, w.cancellationCommit),
      });
      for (const c of w.claims) {
        const claim = p.claim(c)!;
        rows.push({
          depth: 2, kind: 'claim', id: c, label: `claim ${claim.state.padEnd(9)} ${claim.dispatchId}/${claim.handle} ${c}`,
          claim_id: c, work_id: claim.workId, dispatch_id: claim.dispatchId, handle: claim.handle, state: claim.state,
          pool: w.pool, priority: claim.priority, fairness_key: claim.fairnessKey, request_id: claim.requestId,
          granted_at: commitAt(p, claim.commitId), terminal_at: commitAt(p, claim.terminalCommitId), retry_not_before: claim.retryNotBefore,
        });
      }
    }
  }
  // At most `limit` rows and STATE_PAGE_BYTES of them (always at least one row): next_offset
  // continues where the byte bound stopped the page.
  const page: TreeRow[] = [];
  let bytes = 0;
  for (const row of rows.slice(o.offset, o.offset + o.limit)) {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (page.length > 0 && bytes + size > STATE_PAGE_BYTES) break;
    page.push(row);
    bytes += size;
  }
  return { total: rows.length, offset: o.offset, limit: o.limit, next_offset: o.offset + page.length < rows.length ? o.offset + page.length : null, rows: page };
}

/**
 * Where the facts of a record older than the oldest ledger read are (its commit `commit` precedes
 * that ledger's checkpoint, whose prior Git commit holds them); nothing when that ledger retains it.
 */
function compactedBefore(ledgers: readonly Projection[], commit: string) {
  const oldest = ledgers[0]!;
  if (oldest.checkpoint === undefined || oldest.commitText(commit) !== undefined) return {};
  return { compacted: { commit, checkpoint: oldest.commits[0]!.id, prior_git_sha: oldest.checkpoint.priorGitSha } };
}

/**
 * `inspect --work-id`. `ledgers`: the ledgers back to the one that admitted the Work, oldest first
 * and ending with `p` (`ledgersBackTo`), for the commits a checkpoint does not keep (the
 * DeliveryFailure's, the ones that touched the Work); `compacted` says where they are when the
 * ledgers read do not reach the admission.
 */
export function workDetail(p: Projection, id: string, asOf: number, ledgers: readonly Projection[] = [p]) {
  const w = p.work(id);
  if (w === undefined) fail('unknown_work', `Work ${id} is not in the ledger`);
  // The same readiness vocabulary as `state` rows and replay --json (docs/projection-json.md).
  const r = workReadiness(p, w, asOf);
  return {
    work_id: w.workId,
    graph_id: w.graphId,
    node_key: w.nodeKey,
    pool: w.pool,
    worker_profile: w.workerProfile,
    priority: w.priority,
    effective_priority: w.effectivePriority,
    fairness_key: w.fairnessKey,
    state: w.state,
    barrier: w.barrier,
    readiness: r.readiness,
    reason: r.reason,
    blocking_path: r.blocking_path,
    position: w.position,
    depends_on: w.dependsOn,
    successors: p.dependents(w.workId),
    attempts: w.attempts,
    retry_not_before: w.retryNotBefore,
    // Current and historical ownership, and each Claim's native run beside the Work's delivery
    // barrier: its group's reservation is held until exact termination or nonlaunch evidence
    // releases it, whatever the Work's state.
    current_claim: w.currentClaim,
    claims: w.claims.map((c) => {
      const claim = p.claim(c)!;
      const g = p.dispatch(claim.dispatchId)!;
      return { claim_id: c, state: claim.state, cancel_reason: claim.cancelReason, dispatch_id: g.dispatchId, current: c === w.currentClaim, native_run: { dispatch_state: g.state, run: g.run, released: g.released } };
    }),
    admitted_in: w.admittedCommit,
    completion: w.completionCommit,
    result: w.resultCommit,
    delivery_failure: deliveryFailureCommitOf(ledgers, w.workId),
    cancellation: w.cancellationCommit,
    cancellation_reason: w.cancellationReason,
    touched_by: [...new Set(ledgers.flatMap((l) => l.work(w.workId)?.touchedBy ?? []))],
    ...compactedBefore(ledgers, w.admittedCommit),
  };
}

/**
 * `inspect --claim-id`. `ledgers`: the ledgers back to the one holding the Claim's grant, oldest
 * first and ending with `p`, for its group's Release commit (a foreign writer's Release is named
 * only by the ledger that recorded it).
 */
export function claimDetail(p: Projection, id: string, ledgers: readonly Projection[] = [p]) {
  const c = p.claim(id);
  if (c === undefined) fail('unknown_claim', `Claim ${id} is not in the ledger`);
  const g = p.dispatch(c.dispatchId)!;
  const releaseCommit = releaseCommitOf(p, g) ?? ledgers.map((l) => l.dispatch(g.dispatchId)?.releaseCommit ?? null).find((r) => r !== null) ?? null;
  return {
    claim_id: c.claimId,
    work_id: c.workId,
    state: c.state,
    handle: c.handle,
    request_id: c.requestId,
    granted_in: c.commitId,
    position: c.position,
    charged: { priority: c.priority, fairness_key: c.fairnessKey },
    observations: c.observations,
    terminal_commit: c.terminalCommitId,
    cancel_reason: c.cancelReason,
    retry_not_before: c.retryNotBefore,
    dispatch: { dispatch_id: g.dispatchId, members: g.claimIds, state: g.state, run: g.run, released: g.released, release_commit: releaseCommit, profile: g.workerProfile },
    ...compactedBefore(ledgers, c.commitId),
  };
}

/** The Work states `state --state` accepts. */
export const WORK_STATES = ['available', 'claimed', 'completed', 'cancelled'] as const;
