/**
 * What `work_queue_read` and `work_queue_explain` return: bounded views of the
 * immutable activation snapshot, every one labelled `activation_snapshot` and
 * non-authoritative (spec 7.12). Predictions and explanations come from the
 * one selector, `planNext`, evaluated at the snapshot's creation time; `sort`
 * only orders the displayed rows. Lists carry metadata, never other Work's
 * payloads; a worker sees its own assignment.
 */
import { fail } from '../engine/errors.ts';
import type { ExplainInput, ReadInput } from '../engine/intents/schemas.ts';
import { grantPlan } from '../engine/receipts/dispatch.ts';
import { summarize, type Projection, type WorkRecord } from '../engine/replay/index.ts';
import { eligibility } from '../engine/scheduler/eligibility.ts';
import { grantRate, positionInLine } from '../engine/scheduler/line-position.ts';
import { MAX_LINE, predictLine } from '../engine/scheduler/line.ts';
import { planNext } from '../engine/scheduler/plan.ts';
import { configuredPool } from '../engine/scheduler/policy-view.ts';
import { workReadiness } from '../engine/scheduler/readiness.ts';
import type { IntentRecord } from '../engine/intents/records.ts';
import type { LoadedSnapshot } from '../lib/intents/snapshot.ts';

export const DEFAULT_READ_LIMIT = 20;
/** Entries of each pool's predicted line in `work_queue_read` unless `line_limit` says otherwise. */
export const DEFAULT_LINE_LIMIT = 10;

export function provenance(loaded: LoadedSnapshot) {
  const s = loaded.snapshot;
  return {
    label: 'activation_snapshot' as const,
    authoritative: false,
    snapshot_id: s.snapshot_id,
    source_tip: s.tip,
    branch_version: s.branch_version,
    evaluated_at: s.created_at,
    role: s.role,
    note: 'Read from the immutable activation snapshot; it may be stale. Staged intents are not grants: trusted processing decides later.',
  };
}

function requireQueue(loaded: LoadedSnapshot): Projection {
  if (loaded.projection === null) fail('queue_uninitialized', 'the queue did not exist when this activation started');
  return loaded.projection;
}

/**
 * A pool's snapshot prediction: planNext's next pick (with its no-grant code
 * when paused or at capacity) and the line — `predictLine`, the same function
 * as `fairway next` and the console's `/next` — bounded to `lineLimit`.
 */
function prediction(projection: Projection, pool: string, asOf: number, lineLimit: number) {
  const plan = planNext(projection, pool, asOf);
  const w = plan.explanation.work;
  const line = predictLine(projection, pool, asOf, lineLimit);
  return {
    pool,
    label: 'activation_snapshot' as const,
    authoritative: false,
    outcome: plan.explanation.outcome,
    reason: plan.explanation.reason,
    next: w === null ? null : { work_id: w.work_id, graph_id: w.graph_id, node_key: w.node_key, priority: w.priority, fairness_key: w.fairness_key },
    line: {
      note: 'Predicted grant order of the ready backlog from the snapshot\'s fairness clocks, absent new arrivals, Results and operator actions; running Claims are assumed to finish as needed and a pause to be lifted.',
      paused: line.paused,
      available: line.available,
      end: line.end,
      truncated: line.truncated,
      entries: line.entries,
    },
  };
}

const SORTS: Record<NonNullable<ReadInput['sort']>, (a: WorkRecord, b: WorkRecord) => number> = {
  fifo: (a, b) => a.fifo - b.fifo,
  priority: (a, b) => a.effectivePriority - b.effectivePriority || a.fifo - b.fifo,
  recent: (a, b) => b.fifo - a.fifo,
};

function row(projection: Projection, w: WorkRecord, asOf: number) {
  const readiness = w.state === 'available' ? workReadiness(projection, w, asOf) : null;
  return {
    work_id: w.workId,
    graph_id: w.graphId,
    node_key: w.nodeKey,
    pool: w.pool,
    worker_profile: w.workerProfile,
    priority: w.effectivePriority,
    fairness_key: w.fairnessKey,
    state: w.state,
    barrier: w.barrier,
    attempts: w.attempts,
    position: w.position,
    eligible: readiness?.readiness === 'ready',
    blocked_reason: readiness === null ? w.state : readiness.readiness === 'ready' ? null : readiness.reason,
  };
}

function stagedPreview(staged: readonly IntentRecord[]) {
  return staged.map((r) => ({
    intent_id: r.intent_id,
    tool: r.tool,
    status: 'staged' as const,
    label: 'staged_preview' as const,
    authoritative: false,
    ...(r.scope === null ? {} : { claim_handle: r.scope.claim_handle }),
  }));
}

function assignmentView(loaded: LoadedSnapshot) {
  const a = loaded.assignment;
  if (a === null) return null;
  return {
    dispatch_id: a.dispatch_id,
    request_id: a.request_id,
    pool: a.pool,
    worker_profile: a.worker_profile,
    handle_required: a.claims.length > 1,
    claims: a.claims.map((c) => ({
      handle: c.handle,
      claim_id: c.claim_id,
      work_id: c.work_id,
      work: c.work,
      result_refs: c.result_refs,
      state_at_snapshot: loaded.projection?.claim(c.claim_id)?.state ?? 'unknown',
    })),
  };
}

export function readView(loaded: LoadedSnapshot, input: ReadInput, staged: readonly IntentRecord[]) {
  const base = { ok: true as const, provenance: provenance(loaded), uninitialized: loaded.projection === null, staged: stagedPreview(staged), assignment: assignmentView(loaded) };
  const projection = loaded.projection;
  const offset = input.offset ?? 0;
  const limit = input.limit ?? DEFAULT_READ_LIMIT;
  const sort = input.sort ?? 'fifo';
  if (projection === null) {
    return { ...base, policy: null, counts: null, envelope: null, predictions: [], works: { total: 0, offset, limit, sort, next_offset: null, items: [] } };
  }
  const asOf = loaded.snapshot.created_at;
  const summary = summarize(projection);
  if (input.pool !== undefined) configuredPool(projection.policy, input.pool);
  const chosen = input.pool === undefined ? projection.poolNames : [input.pool];
  const matching = [...projection.works()]
    .filter((w) => (input.pool === undefined || w.pool === input.pool) && (input.state === undefined || w.state === input.state)
      && (input.graph_id === undefined || w.graphId === input.graph_id))
    .sort(SORTS[sort]);
  const page = matching.slice(offset, offset + limit);
  return {
    ...base,
    policy: summary.policy,
    counts: { works: summary.works, claims: summary.claims, reservations: summary.reservations, controls: summary.controls },
    // Spec 7.17: the remaining budget, so an agent knows before staging that a plan cannot be admitted.
    envelope: projection.envelope(),
    predictions: chosen.map((p) => prediction(projection, p, asOf, input.line_limit ?? DEFAULT_LINE_LIMIT)),
    works: {
      total: matching.length,
      offset,
      limit,
      sort,
      next_offset: offset + page.length < matching.length ? offset + page.length : null,
      items: page.map((w) => row(projection, w, asOf)),
    },
  };
}

export function explainView(loaded: LoadedSnapshot, input: ExplainInput) {
  const projection = requireQueue(loaded);
  const asOf = loaded.snapshot.created_at;
  const base = { ok: true as const, provenance: provenance(loaded) };
  if (input.work_id !== undefined && input.claim_id !== undefined) fail('intent_invalid', 'explain one Work or one Claim, not both');
  if (input.claim_id !== undefined) {
    const claim = projection.claim(input.claim_id);
    if (claim === undefined) fail('unknown_claim', `Claim ${input.claim_id} is not in the snapshot`);
    const plan = grantPlan(projection, claim.requestId);
    const index = projection.request(claim.requestId)!.claimIds.indexOf(claim.claimId);
    const explanation = plan.explanations[index]!;
    return { ...base, kind: 'claim' as const, claim_id: claim.claimId, request_id: claim.requestId, commit_id: claim.commitId, reason: explanation.reason, explanation };
  }
  if (input.work_id !== undefined) {
    const work = projection.work(input.work_id);
    if (work === undefined) fail('unknown_work', `Work ${input.work_id} is not in the snapshot`);
    // The pool the agent names is looked up as on every other path of this tool (unknown_pool).
    if (input.pool !== undefined) configuredPool(projection.policy, input.pool);
    const pool = input.pool ?? work.pool;
    const verdict = eligibility(projection, work, asOf, pool);
    const next = planNext(projection, pool, asOf).explanation;
    const inLine = work.state === 'available' && work.pool === pool
      ? positionInLine(predictLine(projection, pool, asOf, MAX_LINE), work.workId, grantRate(projection, pool, asOf))
      : null;
    return {
      ...base,
      kind: 'work' as const,
      work: row(projection, work, asOf),
      /** Where it stands in the pool's predicted line (`fairway next --work-id`), null when not in it. */
      line_position: inLine,
      eligibility: verdict.eligible ? { eligible: true, reason: null, blocking_path: [] } : { eligible: false, reason: verdict.reason, blocking_path: verdict.blockingPath },
      next_is_this_work: next.work?.work_id === work.workId,
      reason: next.reason,
      explanation: next,
    };
  }
  const pool = input.pool ?? 'default';
  configuredPool(projection.policy, pool);
  const explanation = planNext(projection, pool, asOf).explanation;
  return { ...base, kind: 'pool' as const, pool, reason: explanation.reason, explanation };
}
