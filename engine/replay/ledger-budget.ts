/**
 * The operating envelope of spec 7.17: the canonical ledger's admission watermark, its recovery
 * reserve, and the hard ceilings a Policy may lower but never raise.
 *
 * Ledger bytes: the retained canonical ledger's length, each record's line plus its LF. A
 * checkpoint-rooted ledger counts from its root record: compaction is the relief valve, so what
 * remains after it is what is measured.
 *
 * Recovery reserve (contract.json `recovery_reservation.reserve_formula`), with R = result_bytes,
 * E = evidence_bytes, retry = the Work's pool `retry.max_attempts`, rec = the pool's
 * `reconciliation.max_attempts`:
 *
 *   closure(W)         = 2R + 2E + 8192
 *   completed, barrier pending          → closure(W)
 *   available or claimed                → max(0, retry − attempts) · (4E + 8192) + closure(W)
 *                                         (+ 8192 current-outcome escrow while claimed)
 *   completed with settled barrier, cancelled → 0
 *   unreleased dispatch group           → max(0, rec + 4 − lifecycle_writes) · (2E + 12288) + 2E + 8192
 *   released dispatch group             → 0
 *
 *   reserve = Σ over Work and dispatch groups.
 *
 * Rules, checked on the post-commit state (contract `recovery_reservation`), with W = ledger_bytes,
 * Rv = recovery_bytes:
 *   every write (all_writes):                    bytes + reserve ≤ W + Rv;
 *   new admission (a commit with Work or Claims): bytes ≤ W;
 *   optional observations (only Observations):    bytes ≤ W.
 * A violation is `ledger_limit`, with the numbers in its details. Closure (finish/Completion,
 * Result, DeliveryFailure, Release, cancellations, Dispatch lifecycle, Controls, Checkpoint) is
 * held only to the all-writes bound: it may use the reserve past the watermark.
 *
 * Not enforced: the second half of the contract's `new_admission` clause, "remaining reserve must
 * not exceed recovery_bytes" (the reference checks reserve ≤ Rv after every commit with Work or
 * Claims). With the default limits one available Work owes 55,296 bytes, so that clause caps a
 * default queue at ⌊16,777,216 / 55,296⌋ = 303 open Works, against the 4,096 pending nodes per
 * pool of the same table, and rejects this project's own demo queue (510 available Works owing
 * 28,893,184 bytes). It is also not needed for the closure guarantee: every write, optional
 * observations included, is held to the all-writes bound, so the lifecycle bytes owed to
 * everything admitted always fit under W + Rv. docs/operating-envelope.md has the details.
 * The pure check is `checkEnvelope` (replay, the publisher and the MCP staging check share it).
 */
import { fail } from '../errors.ts';
import type { QueueCommit } from '../schema/index.ts';
import { CONTRACT_LIMITS, DEFAULT_RETRY, type LimitName } from '../schema/defaults.ts';
import type { PoolPolicy } from '../schema/policy.ts';
import type { DispatchRecord, LedgerBudget, ReplayState, WorkRecord } from '../state/state.ts';

/** Spec 7.17 table = contract.json `limits`: the defaults and the hard ceilings. */
export const LIMIT_CEILINGS = CONTRACT_LIMITS;

/** The first limit a Policy raises above its ceiling, or null. */
export function ceilingViolation(limits: Record<string, number>): { field: LimitName; value: number; ceiling: number } | null {
  for (const [field, ceiling] of Object.entries(LIMIT_CEILINGS) as [LimitName, number][]) {
    const value = limits[field];
    if (value !== undefined && value > ceiling) return { field, value, ceiling };
  }
  return null;
}

export interface BudgetLimits {
  ledger_bytes: number;
  recovery_bytes: number;
  result_bytes: number;
  evidence_bytes: number;
}

function limitsOf(state: ReplayState): BudgetLimits {
  const limits: Partial<BudgetLimits> = state.policy?.policy.limits ?? NO_LIMITS;
  const { ledger_bytes, recovery_bytes, result_bytes, evidence_bytes } = limits;
  // Replay charges every commit against the same few values: the last ones resolved are reused
  // (compared by value, so a Policy object changed in place is never answered from before).
  const last = lastLimits;
  if (last !== null && last.ledger === ledger_bytes && last.recovery === recovery_bytes && last.result === result_bytes && last.evidence === evidence_bytes) return last.resolved;
  const resolved = Object.freeze({
    ledger_bytes: ledger_bytes ?? LIMIT_CEILINGS.ledger_bytes,
    recovery_bytes: recovery_bytes ?? LIMIT_CEILINGS.recovery_bytes,
    result_bytes: result_bytes ?? LIMIT_CEILINGS.result_bytes,
    evidence_bytes: evidence_bytes ?? LIMIT_CEILINGS.evidence_bytes,
  });
  lastLimits = { ledger: ledger_bytes, recovery: recovery_bytes, result: result_bytes, evidence: evidence_bytes, resolved };
  return resolved;
}

const NO_LIMITS: Partial<BudgetLimits> = Object.freeze({});
/** The Policy values `limitsOf` resolved last, and what it resolved them to. */
let lastLimits: { ledger?: number; recovery?: number; result?: number; evidence?: number; resolved: BudgetLimits } | null = null;

function poolOf(state: ReplayState, pool: string): PoolPolicy | undefined {
  const pools: Record<string, PoolPolicy> = state.policy?.policy.pools ?? {};
  return Object.hasOwn(pools, pool) ? pools[pool] : undefined;
}

/** Worst-case remaining lifecycle bytes still owed to one Work. */
export function workReserve(state: ReplayState, work: WorkRecord): number {
  return workReserveWith(state, limitsOf(state), work);
}

function workReserveWith(state: ReplayState, { result_bytes: R, evidence_bytes: E }: BudgetLimits, work: WorkRecord): number {
  const closure = 2 * R + 2 * E + 8192;
  if (work.state === 'cancelled') return 0;
  if (work.state === 'completed') return work.barrier === 'pending' ? closure : 0;
  const retry = poolOf(state, work.pool)?.retry?.max_attempts ?? DEFAULT_RETRY.max_attempts;
  const future = Math.max(0, retry - work.attempts);
  return future * (4 * E + 8192) + closure + (work.state === 'claimed' ? 8192 : 0);
}

/** Worst-case remaining lifecycle bytes still owed to one dispatch group. */
export function dispatchReserve(state: ReplayState, group: DispatchRecord): number {
  return dispatchReserveWith(state, limitsOf(state), group);
}

function dispatchReserveWith(state: ReplayState, { evidence_bytes: E }: BudgetLimits, group: DispatchRecord): number {
  if (group.released) return 0;
  const rec = poolOf(state, group.pool)?.reconciliation?.max_attempts ?? 5;
  const writes = Math.max(0, rec + 4 - group.lifecycleWrites);
  return writes * (2 * E + 12288) + 2 * E + 8192;
}

function budgetOf(state: ReplayState): LedgerBudget {
  state.budget ??= { bytes: 0, reserve: 0, works: new Map(), groups: new Map() };
  return state.budget;
}

/** Sets one contribution (recomputing an unchanged one is a no-op, so a part may be set twice). */
function setPart<K>(budget: LedgerBudget, parts: Map<K, number>, key: K, value: number): void {
  const before = parts.get(key) ?? 0;
  if (value === before) return;
  budget.reserve += value - before;
  if (value === 0) parts.delete(key);
  else parts.set(key, value);
}

function recomputeAll(state: ReplayState, budget: LedgerBudget, limits: BudgetLimits): void {
  budget.works.clear();
  budget.groups.clear();
  budget.reserve = 0;
  for (const work of state.works.values()) setPart(budget, budget.works, work, workReserveWith(state, limits, work));
  for (const group of state.dispatches.values()) setPart(budget, budget.groups, group, dispatchReserveWith(state, limits, group));
}

/**
 * Operations whose handlers change no Work but the one they name (`work_id`, and the Work of their
 * `claim_id`, which they check is the same): recomputing every Work of the group they name would
 * find each other contribution unchanged. A Work's contribution depends only on its own fields
 * (state, barrier, attempts, pool) and the Policy, so:
 * - Completion, Result, DeliveryFailure, ClaimCancellation, WorkCancellation change the Work they
 *   name;
 * - a Claim changes the Work it names, and joins a group of its own grant (dispatch ids derive
 *   from the grant's request id, and the grant's Claims are exactly the planned ones), whose
 *   every member is named by a Claim of the same commit;
 * - Dispatch and Release change their group only (state, run binding, sender, lifecycle writes,
 *   conflict record, released), never a member's Work;
 * - an Observation changes no Work and names no group.
 * (budget-recompute.test.ts checks the kept reserve against a fresh computation after every commit.)
 */
const NAMED_WORK_ONLY: ReadonlySet<string> = new Set(['Completion', 'Result', 'DeliveryFailure', 'ClaimCancellation', 'WorkCancellation', 'Claim', 'Dispatch', 'Release', 'Observation']);

/**
 * Recomputes the contributions a commit's operations can have changed: every Work and dispatch
 * group an operation names (directly or through its Claim), and every Work of those groups
 * (unless every operation is one of `NAMED_WORK_ONLY`). Recomputing a contribution twice is a
 * no-op (`setPart`), so repeated names need no set.
 */
function recomputeTouched(state: ReplayState, budget: LedgerBudget, limits: BudgetLimits, commit: QueueCommit): void {
  const ops = commit.operations as unknown as Record<string, unknown>[];
  let groups: string[] | undefined;
  let members = false; // recompute every Work of the groups named
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (!NAMED_WORK_ONLY.has(op.kind as string)) members = true;
    const workId = op.work_id;
    if (typeof workId === 'string') chargeWork(state, budget, limits, state.works.get(workId));
    const dispatchId = op.dispatch_id;
    if (typeof dispatchId === 'string') groups = withGroup(groups, dispatchId);
    const claimId = op.claim_id;
    if (typeof claimId === 'string') {
      const claim = state.claims.get(claimId);
      if (claim !== undefined) {
        chargeWork(state, budget, limits, state.works.get(claim.workId));
        groups = withGroup(groups, claim.dispatchId);
      }
    }
  }
  if (groups !== undefined) for (const id of groups) chargeGroup(state, budget, limits, id, members);
}

/** `groups` with `id` last unless it is already there. */
function withGroup(groups: string[] | undefined, id: string): string[] {
  if (groups === undefined) return [id];
  if (!groups.includes(id)) groups.push(id);
  return groups;
}

function chargeWork(state: ReplayState, budget: LedgerBudget, limits: BudgetLimits, work: WorkRecord | undefined): void {
  if (work !== undefined) setPart(budget, budget.works, work, workReserveWith(state, limits, work));
}

/** A group's own contribution and (`members`) that of each of its Claims' Work. */
function chargeGroup(state: ReplayState, budget: LedgerBudget, limits: BudgetLimits, id: string, members: boolean): void {
  const group = state.dispatches.get(id);
  if (group === undefined) return;
  setPart(budget, budget.groups, group, dispatchReserveWith(state, limits, group));
  if (!members) return;
  for (const claimId of group.claimIds) {
    const claim = state.claims.get(claimId);
    if (claim !== undefined) chargeWork(state, budget, limits, state.works.get(claim.workId));
  }
}

export interface BudgetReport {
  bytes: number;
  reserve: number;
  ledger_bytes: number;
  recovery_bytes: number;
  /** Bytes a new admission may still add before the watermark (never negative). */
  admission_remaining: number;
  /** Reserve capacity not yet owed (never negative): what new admission may still add to the owed reserve. */
  reserve_remaining: number;
  /** Room under the all-writes bound, watermark + reserve − bytes − owed reserve (never negative). */
  closure_remaining: number;
}

/** The envelope numbers of a validated state (stats, MCP snapshot, error details). */
export function ledgerBudget(state: ReplayState): BudgetReport {
  const budget = budgetOf(state);
  const limits = limitsOf(state);
  return {
    bytes: budget.bytes,
    reserve: budget.reserve,
    ledger_bytes: limits.ledger_bytes,
    recovery_bytes: limits.recovery_bytes,
    admission_remaining: Math.max(0, limits.ledger_bytes - budget.bytes),
    reserve_remaining: Math.max(0, limits.recovery_bytes - budget.reserve),
    closure_remaining: Math.max(0, limits.ledger_bytes + limits.recovery_bytes - budget.bytes - budget.reserve),
  };
}

/**
 * Charges one applied commit of `bytes` canonical bytes (line + LF) against the envelope and
 * checks the post-commit bounds. Called by `applyCommit` after the operations were applied.
 */
export function chargeCommit(state: ReplayState, commit: QueueCommit, bytes: number, at: { commit: string; line?: number }): void {
  const budget = budgetOf(state);
  const before = budget.bytes;
  budget.bytes += bytes;
  const ops = commit.operations;
  const limits = limitsOf(state);
  let admits = false;
  let optional = ops.length > 0;
  let all = false;
  for (const op of ops) {
    const kind = op.kind;
    if (kind === 'Policy' || kind === 'Checkpoint') all = true;
    if (kind === 'Work' || kind === 'Claim') admits = true;
    if (kind !== 'Observation') optional = false;
  }
  if (all) recomputeAll(state, budget, limits);
  else recomputeTouched(state, budget, limits, commit);
  checkWrite(limits, before, budget.bytes, budget.reserve, admits, optional, at);
}

/** One candidate write against the envelope: its post-write ledger bytes and owed reserve. */
export interface EnvelopeWrite {
  /** Ledger bytes before the write. */
  before: number;
  /** Ledger bytes after it. */
  bytes: number;
  /** Owed reserve after it. */
  reserve: number;
  /** New admission: the write carries Work or Claims. */
  admits: boolean;
  /** Optional telemetry: the write carries only Observations. */
  optional: boolean;
}

/** The three bounds of the module comment; `ledger_limit` with the numbers when one fails. */
export function checkEnvelope(limits: Pick<BudgetLimits, 'ledger_bytes' | 'recovery_bytes'>, w: EnvelopeWrite, at: { commit?: string; line?: number } = {}): void {
  checkWrite(limits, w.before, w.bytes, w.reserve, w.admits, w.optional, at);
}

/** `checkEnvelope` of one write's numbers (replay's path: no write object per commit). */
function checkWrite(limits: Pick<BudgetLimits, 'ledger_bytes' | 'recovery_bytes'>, before: number, bytes: number, reserve: number, admits: boolean, optional: boolean, at: { commit?: string; line?: number }): void {
  const W = limits.ledger_bytes;
  const Rv = limits.recovery_bytes;
  if ((admits || optional) && bytes > W) {
    const what = admits ? 'new admission' : 'optional observations';
    fail('ledger_limit', `${what} would take the ledger to ${bytes} bytes, past the ${W}-byte admission watermark (${Math.max(0, W - before)} bytes remained)`, at, limitDetails(W, Rv, before, bytes, reserve));
  }
  if (bytes + reserve > W + Rv) {
    fail('ledger_limit', `the ledger (${bytes} bytes) plus its owed lifecycle reserve (${reserve}) would exceed watermark + reserve (${W + Rv})`, at, limitDetails(W, Rv, before, bytes, reserve));
  }
}

function limitDetails(W: number, Rv: number, before: number, bytes: number, reserve: number): Record<string, string | number> {
  return {
    limit: 'ledger_bytes',
    ledger_bytes: bytes,
    commit_bytes: bytes - before,
    watermark: W,
    recovery_bytes: Rv,
    reserve,
    admission_remaining: Math.max(0, W - before),
  };
}

/** What a new, never-claimed Work in `pool` owes (the nonterminal formula with attempts 0). */
export function newWorkReserve(state: ReplayState, pool: string): number {
  return workReserve(state, { state: 'available', pool, attempts: 0, barrier: 'none' } as WorkRecord);
}

/**
 * A non-authoritative precheck of a submit of `commitBytes` canonical bytes admitting Works in
 * `pools` (one entry per new Work) on `state`: the same `checkEnvelope` replay applies, before
 * anything is staged or published. Replay on publication stays the judge.
 */
export function checkSubmitFits(state: ReplayState, commitBytes: number, pools: readonly string[]): void {
  const budget = budgetOf(state);
  const added = pools.reduce((sum, pool) => sum + newWorkReserve(state, pool), 0);
  checkEnvelope(limitsOf(state), { before: budget.bytes, bytes: budget.bytes + commitBytes, reserve: budget.reserve + added, admits: true, optional: false });
}

/**
 * The same precheck for a grant of `commitBytes` bytes: each Claim adds the claimed-outcome escrow
 * (8192) to its Work, each new dispatch group in `groupPools` its unreleased-dispatch reserve.
 */
export function checkGrantFits(state: ReplayState, commitBytes: number, claims: number, groupPools: readonly string[]): void {
  const budget = budgetOf(state);
  const added = claims * 8192 + groupPools.reduce((sum, pool) => sum + dispatchReserve(state, { released: false, pool, lifecycleWrites: 0 } as DispatchRecord), 0);
  checkEnvelope(limitsOf(state), { before: budget.bytes, bytes: budget.bytes + commitBytes, reserve: budget.reserve + added, admits: true, optional: false });
}
