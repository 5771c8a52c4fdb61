/**
 * The fairness page (docs/console.md "Pages" `/fairness`): an `sshare`-style table per pool
 * and class — weight, target share among the currently eligible siblings,
 * actual share of grants over a window, pass and stride (exact decimal
 * strings from the clocks, spec 7.5, 7.13), grants owed and deficit over the
 * window's decisions at which each class/key was eligible (fairness-history.ts,
 * docs/console.md "Pages", `/fairness`), oldest eligible age and the longest zero-service interval
 * while backlogged.
 *
 * A grant a checkpoint replaced is re-derived from the earlier ledger that retains it (the caller
 * reads them through prior_git_sha: `ledgersBackTo`), so the sums are those before compaction;
 * without that ledger, `compacted` says how many of the window's decisions were compacted away
 * and which Git commit holds them.
 */
import type { Projection } from '../../../engine/replay/index.ts';
import type { ClaimRecord } from '../../../engine/replay/index.ts';
import { commitTime } from '../../../engine/receipts/committed.ts';
import { classStride, clockView, keyStride } from '../../../engine/scheduler/clocks.ts';
import { ledgerRetaining, ledgersBackTo, type HistoryReader } from '../../publisher/history.ts';
import { grantDecisions, owedTally } from './fairness-history.ts';
import { admittedAt, workStatus } from './status.ts';

export const WINDOWS = [20, 100, 500, 0] as const; // 0 = all grants

export interface KeyRow {
  key: string;
  weight: number;
  stride: string;
  pass: string | null;
  backlog: number;
  eligibleWork: number;
  targetShare: number | null;
  actualShare: number | null;
  grants: number;
  /** Window decisions at which it was eligible (keys: decisions of its class), and the grants owed over them. */
  eligibleDecisions: number;
  owed: number | null;
  /** Grants owed minus grants received over the window's decisions (positive: under-served). */
  deficit: number | null;
  oldestEligibleAge: number | null;
  longestZeroService: number | null;
}

export interface ClassRow extends Omit<KeyRow, 'key' | 'longestZeroService' | 'backlog' | 'oldestEligibleAge'> {
  priority: number;
  backlog: number;
  keys: KeyRow[];
}

export interface FairnessView {
  pools: string[];
  pool: string;
  mode: string;
  epoch: string | null;
  window: number;
  windowGrants: number;
  /** Window grants whose decision could be re-derived (the owed sums cover these). */
  windowDecisions: number;
  totalGrants: number;
  classScale: string;
  keyScale: string;
  classes: ClassRow[];
  /**
   * Window grants whose commit no given ledger retains (compacted away, the earlier ledger not
   * read): how many, the oldest one's commit, and the checkpoint root of the oldest ledger given,
   * whose prior Git commit holds the ledger it replaced. Null when every decision was available.
   */
  compacted: { grants: number; commit: string; checkpoint: string; priorGitSha: string } | null;
}

interface Bucket {
  backlog: number;
  eligible: number;
  oldestEligible: number | null;
  firstAdmitted: number | null;
}

function share(weights: Map<string, number>, eligible: Set<string>, member: string, strict: boolean, least: string | null): number | null {
  if (!eligible.has(member)) return null;
  if (strict) return member === least ? 1 : 0;
  let total = 0;
  for (const m of eligible) total += weights.get(m) ?? 1;
  return (weights.get(member) ?? 1) / total;
}

/** Longest gap without a grant while the bucket had admitted, unfinished Work (approximation, see docs). */
function longestGap(firstAdmitted: number | null, grantTimes: number[], stillBacklogged: boolean, asOf: number): number | null {
  if (firstAdmitted === null) return null;
  let longest = 0;
  let from = firstAdmitted;
  for (const t of grantTimes) {
    if (t >= from) longest = Math.max(longest, t - from);
    from = Math.max(from, t);
  }
  if (stillBacklogged) longest = Math.max(longest, asOf - from);
  return longest;
}

/**
 * The fairness table of `poolName` (default: the first pool) over the last `window` grants (0:
 * all). `ledgers`: the ledgers that may retain the window's grants, oldest first and ending with
 * `projection` (lib/publisher/history.ts `ledgersBackTo`); by default `projection` alone.
 */
export function fairnessView(projection: Projection, asOf: number, poolName: string | null, window: number, ledgers: readonly Projection[] = [projection]): FairnessView | null {
  if (projection.policy === null) return null;
  const pools = projection.poolNames;
  const pool = poolName !== null && pools.includes(poolName) ? poolName : pools[0];
  if (pool === undefined) return null;
  const fairness = projection.fairness;
  const clocks = clockView(fairness, pool);
  const strict = fairness.mode === 'strict-priority';

  const buckets = new Map<string, Bucket>();
  const bucket = (priority: number, key: string): Bucket => {
    const id = `${priority}\u0000${key}`;
    let b = buckets.get(id);
    if (b === undefined) buckets.set(id, (b = { backlog: 0, eligible: 0, oldestEligible: null, firstAdmitted: null }));
    return b;
  };
  for (const work of projection.works()) {
    if (work.pool !== pool || work.state !== 'available') continue;
    const b = bucket(work.effectivePriority, work.fairnessKey);
    const admitted = admittedAt(projection, work);
    b.backlog += 1;
    b.firstAdmitted = b.firstAdmitted === null ? admitted : Math.min(b.firstAdmitted, admitted);
    if (workStatus(projection, work, asOf).readiness === 'ready') {
      b.eligible += 1;
      b.oldestEligible = b.oldestEligible === null ? admitted : Math.min(b.oldestEligible, admitted);
    }
  }

  const grants: ClaimRecord[] = [...projection.claims()]
    .filter((c) => projection.dispatch(c.dispatchId)?.pool === pool)
    .sort((a, b) => a.position.ordinal - b.position.ordinal || a.position.operation - b.position.operation);
  const windowed = window > 0 ? grants.slice(-window) : grants;
  const grantTimes = new Map<string, number[]>();
  for (const c of grants) {
    const id = `${c.priority}\u0000${c.fairnessKey}`;
    const at = commitTime(projection, c.commitId) ?? projection.commits[0]?.at ?? 0;
    (grantTimes.get(id) ?? grantTimes.set(id, []).get(id)!).push(at);
    bucket(c.priority, c.fairnessKey); // keys served in the past stay listed
  }

  const decisions = grantDecisions(ledgers, windowed);
  const lost = windowed.filter((c) => ledgerRetaining(ledgers, c.commitId) === undefined);
  const oldest = ledgers[0]!;
  const tally = owedTally(decisions, (c) => fairness.classWeights[c - 1] ?? 1, (k) => fairness.keyWeights.get(k) ?? 1);
  const received = new Map<string, number>();
  for (const d of decisions) {
    if (d === null) continue;
    for (const id of [String(d.priority), `${d.priority}\u0000${d.key}`]) received.set(id, (received.get(id) ?? 0) + 1);
  }

  const classWeights = new Map<string, number>(fairness.classWeights.map((w, i) => [String(i + 1), w]));
  const eligibleClasses = new Set<string>();
  for (const [id, b] of buckets) if (b.eligible > 0) eligibleClasses.add(id.split('\u0000')[0]!);
  const leastClass = [...eligibleClasses].sort((a, b) => Number(a) - Number(b))[0] ?? null;

  const classes: ClassRow[] = [];
  for (let priority = 1; priority <= 5; priority++) {
    const inClass = [...buckets].filter(([id]) => id.startsWith(`${priority}\u0000`));
    const classGrants = windowed.filter((c) => c.priority === priority).length;
    const target = share(classWeights, eligibleClasses, String(priority), strict, leastClass);
    const keyWeights = new Map<string, number>();
    const eligibleKeys = new Set<string>();
    for (const [id, b] of inClass) {
      const key = id.slice(id.indexOf('\u0000') + 1);
      keyWeights.set(key, fairness.keyWeights.get(key) ?? 1);
      if (b.eligible > 0) eligibleKeys.add(key);
    }
    const keys: KeyRow[] = inClass.map(([id, b]) => {
      const key = id.slice(id.indexOf('\u0000') + 1);
      const keyGrants = windowed.filter((c) => c.priority === priority && c.fairnessKey === key).length;
      const keyTarget = share(keyWeights, eligibleKeys, key, false, null);
      return {
        key,
        weight: keyWeights.get(key)!,
        stride: keyStride(fairness, key).toString(),
        pass: clocks.keys[String(priority)]?.pass[key] ?? null,
        backlog: b.backlog,
        eligibleWork: b.eligible,
        targetShare: keyTarget,
        actualShare: classGrants === 0 ? null : keyGrants / classGrants,
        grants: keyGrants,
        eligibleDecisions: tally.keys.get(id)?.eligibleDecisions ?? 0,
        owed: tally.keys.get(id)?.owed ?? null,
        deficit: tally.keys.has(id) ? tally.keys.get(id)!.owed - (received.get(id) ?? 0) : null,
        oldestEligibleAge: b.oldestEligible === null ? null : asOf - b.oldestEligible,
        longestZeroService: longestGap(b.firstAdmitted, grantTimes.get(id) ?? [], b.backlog > 0, asOf),
      };
    }).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (keys.length === 0 && classGrants === 0) continue;
    classes.push({
      priority,
      weight: fairness.classWeights[priority - 1]!,
      stride: classStride(fairness, priority).toString(),
      pass: clocks.classes.pass[String(priority)] ?? null,
      backlog: keys.reduce((n, k) => n + k.backlog, 0),
      eligibleWork: keys.reduce((n, k) => n + k.eligibleWork, 0),
      targetShare: target,
      actualShare: windowed.length === 0 ? null : classGrants / windowed.length,
      grants: classGrants,
      eligibleDecisions: tally.classes.get(priority)?.eligibleDecisions ?? 0,
      owed: tally.classes.get(priority)?.owed ?? null,
      deficit: tally.classes.has(priority) ? tally.classes.get(priority)!.owed - (received.get(String(priority)) ?? 0) : null,
      keys,
    });
  }

  return {
    pools,
    pool,
    mode: fairness.mode,
    epoch: fairness.epoch,
    window,
    windowGrants: windowed.length,
    windowDecisions: tally.decisions,
    totalGrants: grants.length,
    classScale: fairness.classScale.toString(),
    keyScale: fairness.keyScale.toString(),
    classes,
    compacted: lost.length === 0 || oldest.checkpoint === undefined ? null
      : { grants: lost.length, commit: lost[0]!.commitId, checkpoint: oldest.commits[0]!.id, priorGitSha: oldest.checkpoint.priorGitSha },
  };
}

/**
 * `fairnessView` with the window's compacted grants re-derived from the earlier ledgers `history`
 * reads (the `/fairness` page): walked back only as far as the window's oldest grant.
 */
export async function fairnessViewAcross(projection: Projection, asOf: number, poolName: string | null, window: number, history?: HistoryReader): Promise<FairnessView | null> {
  const f = fairnessView(projection, asOf, poolName, window);
  if (f === null || f.compacted === null) return f;
  return fairnessView(projection, asOf, f.pool, window, await ledgersBackTo(projection, f.compacted.commit, history));
}
