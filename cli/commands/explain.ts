/**
 * `fairway explain --ledger FILE --pool P [--work-id ID] [--as-of MS] [--json]`
 * (spec 7.13): the next selection of a pool with planNext's own explanation,
 * or, with --work-id, why that Work is not next: its state, the eligibility
 * reason code and blocking path (`eligibility()`), where it lost the
 * class/key/FIFO comparison, and the actual winner. Read-only; nothing is
 * charged. The decision time is now unless --as-of gives one.
 */
import { fail } from '../../engine/errors.ts';
import type { Projection, WorkRecord } from '../../engine/replay/index.ts';
import { launchView } from '../../engine/lifecycle/launch-state.ts';
import { eligibility, type BlockingStep, type EligibilityReason } from '../../engine/scheduler/eligibility.ts';
import { planNext } from '../../engine/scheduler/plan.ts';
import type { CandidateView, Explanation } from '../../engine/scheduler/plan-types.ts';
import { describeRequest, type RequestDescription } from '../../engine/receipts/request.ts';
import { historicalExplanationAt } from '../history.ts';
import { readSource } from '../source.ts';
import type { CommandModule, GlobalOptions } from '../context.ts';
import { resolveId } from '../ids.ts';
import { formatOf, formatOption, printRecord } from '../format.ts';
import { asOfOption, parseAsOf } from '../parse.ts';
import { UsageError, type Io } from '../output.ts';

/** The queue a read command looks at: `--ledger FILE` or any store (shared loader). */
export async function loadProjection(g: GlobalOptions): Promise<Projection> {
  return readSource(g).load();
}

/** Why a Work is not next (or, when it is, the winner's own reason). */
export type WorkReason =
  | EligibilityReason
  | Explanation['reason']
  /** Eligible, but an earlier-committed eligible Work of its bucket is ahead. */
  | 'fifo_order';

export interface WorkExplanation {
  reason: WorkReason;
  is_next: boolean;
  pool: string;
  as_of: number;
  work: {
    work_id: string;
    graph_id: string;
    node_key: string;
    pool: string;
    state: string;
    barrier: string;
    priority: number;
    effective_priority: number;
    fairness_key: string;
    worker_profile: string;
    position: { ordinal: number; operation: number };
    attempts: number;
    retry_not_before: number | null;
    current_claim: string | null;
  };
  eligible: boolean;
  /** Empty when eligible; else the chain to the first unsatisfied gate or failed ancestor. */
  blocking_path: BlockingStep[];
  /** The pass comparison it lost (class or key level), when that is where it lost. */
  comparison: { level: 'class' | 'key'; work: CandidateView | null; winner: CandidateView | null } | null;
  /** planNext's explanation of the actual next selection (or its no-grant code). */
  next: Explanation;
  /** The launch of the Work's current Claim (its dispatch group), e.g. a recorded run binding conflict. */
  launch: LaunchSummary | null;
}

export interface LaunchSummary {
  dispatch_id: string;
  state: string;
  run_id: string | null;
  reason: string | null;
  /** Candidates of a recorded run binding conflict (kept by checkpoints); none otherwise. */
  conflict_run_ids: string[];
  /** True while that conflict holds: no run may bind, the capacity stays reserved. */
  conflict_open: boolean;
}

function launchSummary(projection: Projection, w: WorkRecord): LaunchSummary | null {
  const claim = w.currentClaim === null ? undefined : projection.claim(w.currentClaim);
  if (claim === undefined) return null;
  const v = launchView(projection, claim.dispatchId);
  return { dispatch_id: v.dispatch_id, state: v.state, run_id: v.run_id, reason: v.reason, conflict_run_ids: v.conflict_run_ids, conflict_open: v.conflict_open };
}

function workView(w: WorkRecord): WorkExplanation['work'] {
  return {
    work_id: w.workId,
    graph_id: w.graphId,
    node_key: w.nodeKey,
    pool: w.pool,
    state: w.state,
    barrier: w.barrier,
    priority: w.priority,
    effective_priority: w.effectivePriority,
    fairness_key: w.fairnessKey,
    worker_profile: w.workerProfile,
    position: { ordinal: w.position.ordinal, operation: w.position.operation },
    attempts: w.attempts,
    retry_not_before: w.retryNotBefore,
    current_claim: w.currentClaim,
  };
}

/** The next selection of `pool` at `asOf` (planNext, no overlay: nothing is changed). */
export function explainNext(projection: Projection, pool: string, asOf: number): Explanation {
  return planNext(projection, pool, asOf).explanation;
}

/** Why `workId` is (not) the next selection of `pool` at `asOf`. */
export function explainWork(projection: Projection, pool: string, workId: string, asOf: number): WorkExplanation {
  const work = projection.work(workId);
  if (work === undefined) fail('unknown_work', `no Work ${workId} in this ledger`);
  const plan = planNext(projection, pool, asOf);
  const verdict = eligibility(projection, work, asOf, pool);
  const base = {
    is_next: false,
    pool,
    as_of: asOf,
    work: workView(work),
    eligible: verdict.eligible,
    blocking_path: verdict.eligible ? [] : verdict.blockingPath,
    comparison: null,
    next: plan.explanation,
    launch: launchSummary(projection, work),
  };
  if (!verdict.eligible) return { ...base, reason: verdict.reason };
  if (!plan.selected) return { ...base, reason: plan.reason };
  if (plan.work.workId === work.workId) return { ...base, is_next: true, reason: plan.explanation.reason };
  const e = plan.explanation;
  const priority = work.effectivePriority;
  if (plan.transition.priority !== priority) {
    const level = e.class!;
    const find = (m: string) => level.candidates.find((c) => c.member === m) ?? null;
    return {
      ...base,
      reason: e.mode === 'strict-priority' ? 'priority_class' : 'weighted_class',
      comparison: { level: 'class', work: find(String(priority)), winner: find(level.selected) },
    };
  }
  if (plan.transition.fairnessKey !== work.fairnessKey) {
    const level = e.key!;
    const find = (m: string) => level.candidates.find((c) => c.member === m) ?? null;
    return { ...base, reason: 'weighted_key', comparison: { level: 'key', work: find(work.fairnessKey), winner: find(level.selected) } };
  }
  return { ...base, reason: 'fifo_order' };
}

// ------------------------------------------------------------------ human output

const q = (s: string): string => JSON.stringify(s);

function step(s: BlockingStep): string {
  if (s.kind === 'work') return `Work ${s.work_id}${s.state === undefined ? ' (unknown)' : ` (${s.state}, barrier ${s.barrier})`}: ${s.reason}`;
  return `${s.kind === 'issue' ? 'Issue' : 'PR'} gate ${s.condition} ${s.gate}: ${s.reason}${s.read_status ? ` [read ${s.read_status}]` : ''}${s.observation_id ? ` (observation ${s.observation_id})` : ''}`;
}

function nextLines(e: Explanation): string[] {
  const when = new Date(e.as_of).toISOString();
  const lines = [`pool ${q(e.pool)} at ${when} (as-of ${e.as_of}), tip ${e.source_tip ?? '-'}, policy epoch ${e.policy_epoch ?? '-'}, ${e.mode}`];
  const skipped = Object.entries(e.eligibility.skipped).map(([r, n]) => `${r} ${n}`).join(', ');
  const counts = `${e.eligibility.available} available in ${e.eligibility.buckets} buckets, ${e.eligibility.eligible_buckets} eligible` +
    (e.eligibility.blocked_buckets > 0 ? `, ${e.eligibility.blocked_buckets} at their per-key limit` : '') + (skipped ? `; skipped heads: ${skipped}` : '');
  if (e.outcome !== 'selected' || e.work === null) {
    lines.push(`no grant: ${e.reason}`, `eligibility: ${counts}`);
  } else {
    const w = e.work;
    lines.push(`next: Work ${w.work_id} (node ${q(w.node_key)}, graph ${q(w.graph_id)}), class ${w.priority}, key ${q(w.fairness_key)}`);
    const pass = (level: { selected: string; candidates: CandidateView[] } | null, what: string): string | null => {
      if (level === null || level.candidates.length < 2) return null;
      const [win, ...rest] = level.candidates;
      const tie = rest[0]!.pass === win!.pass ? ', tie broken by order' : '';
      return `${what} ${win!.member} pass ${win!.pass} (stride ${win!.stride}) vs ${rest.slice(0, 3).map((c) => `${c.member} ${c.pass}`).join(', ')}${tie}`;
    };
    const detail = [pass(e.class, 'class'), pass(e.key, 'key')].filter((x): x is string => x !== null).join('; ');
    lines.push(`reason: ${e.reason}${detail ? ` (${detail})` : ''}`);
    lines.push(`FIFO position: commit ordinal ${w.position.ordinal}, operation ${w.position.operation}; ${w.bucket_position} ineligible ahead in its bucket`);
    lines.push(`eligibility: ${counts}`);
  }
  const c = e.capacity;
  lines.push(`capacity: logical ${c.logical_before} -> ${c.logical_after} of ${c.logical_limit}; native ${c.native_outstanding} of ${c.native_limit}` +
    (c.per_account_limit === null ? '' : `; key ${c.account_before ?? '-'} -> ${c.account_after ?? '-'} of ${c.per_account_limit}`));
  return lines;
}

function workLines(x: WorkExplanation): string[] {
  const w = x.work;
  const head = `Work ${w.work_id} (node ${q(w.node_key)}, ${w.state}, class ${w.effective_priority}, key ${q(w.fairness_key)})`;
  const lines = [x.is_next ? `${head} is next: ${x.reason}` : `${head} is not next: ${x.reason}`];
  if (x.blocking_path.length > 0) {
    lines.push('blocking path:');
    for (const s of x.blocking_path) lines.push(`  ${step(s)}`);
  }
  if (x.comparison !== null) {
    const { level, work, winner } = x.comparison;
    lines.push(`lost the ${level} comparison: ${work ? `${work.member} pass ${work.pass}` : 'its pass is not among the listed candidates'} vs winner ${winner ? `${winner.member} pass ${winner.pass}` : '-'}`);
  }
  if (x.reason === 'fifo_order') lines.push('an earlier-committed eligible Work of the same class and key is ahead of it');
  const l = x.launch;
  if (l !== null) {
    lines.push(`launch: dispatch ${l.dispatch_id} ${l.state}${l.run_id ? ` run ${l.run_id}` : ''}${l.reason ? ` (${l.reason})` : ''}`);
    if (l.conflict_open) lines.push(`  run binding conflict: runs ${l.conflict_run_ids.join(', ')} -- none may bind; capacity stays reserved`);
  }
  lines.push('', ...nextLines(x.next));
  return lines;
}

export async function runExplain(io: Io, g: GlobalOptions, opts: { pool: string; workId?: string; asOf: number; format?: string }): Promise<void> {
  const format = opts.format ?? (g.json === true ? 'json' : 'table');
  const projection = await loadProjection(g);
  if (opts.workId === undefined) {
    const e = explainNext(projection, opts.pool, opts.asOf);
    if (format !== 'table') printRecord(io, format, { ok: true, ...e });
    else io.out(nextLines(e).join('\n'));
    return;
  }
  const x = explainWork(projection, opts.pool, resolveId(projection, 'work', opts.workId), opts.asOf);
  const { reason, ...rest } = x;
  if (format !== 'table') printRecord(io, format, { ok: true, reason, ...rest });
  else io.out(workLines(x).join('\n'));
}

function requestLines(d: RequestDescription): string[] {
  const lines = [
    `request ${d.request_id} (${d.kind}) by ${d.actor.role} ${d.actor.principal}: commit ${d.commit_id}`,
    `decision time ${new Date(d.as_of).toISOString()} (as-of ${d.as_of})${d.policy_epoch === null ? '' : `, policy epoch ${d.policy_epoch}`}`,
    `did: ${d.summary}`,
  ];
  for (const op of d.operations) lines.push(`  #${op.index} ${op.kind}: ${op.summary}`);
  return lines;
}

export const registerExplain: CommandModule = (program, ctx) => {
  program.command('explain')
    .description('Explain the next selection of a pool (planNext\'s own explanation), or why a given Work is not next: eligibility reason, blocking path and the winner.')
    .option('--pool <name>', 'the scheduling pool (live explanation)')
    .option('--claim-id <id>', 'reconstruct the exact historical grant of this Claim')
    .option('--before-claim <id>', 'the decision state just before this Claim: predecessor prefix plus earlier operations of its commit')
    .option('--work-id <id>', 'explain this Work: its state, eligibility reason code, blocking path and where it lost')
    .addOption(formatOption())
    .addOption(asOfOption())
    .addHelpText('after', `
Reads the queue branch (of the repository in the current directory, --dir PATH, --remote NAME or
-R OWNER/REPO) or a --ledger FILE. Nothing is charged or written.
Historical: --request-id R shows what any committed request did (submit, controls, cancellations,
priority changes, policy, observe, lifecycle, finish, TUI actions): its commit, decision time, actor and
each operation in words. For a dispatch_next, and with --claim-id C or --before-claim C, it also replays the
exact predecessor prefix and re-runs the same packer at the commit's decision time.
--request-id output (--json): {"ok": true, "request_id", "kind", "commit_id", "as_of", "actor", "policy_epoch",
  "operations_available", "operations": [{"index", "kind", "summary", "work_id"?, "claim_id"?, "dispatch_id"?}], "summary"}
--before-claim output (--json): {"ok": true, "request_id", "commit_id", "as_of", "before_claim", "index", "work_id",
  "explanation"}   the one decision that selected the Claim, on the state just before it

Output (--json): {"ok": true, "reason", "outcome", "source_tip", "policy_epoch", "pool", "as_of", "mode",
  "eligibility", "class", "key", "work", "capacity"}   (planNext's explanation; reason is
  fifo_default | priority_class | weighted_class | weighted_key or a no-grant code)
With --work-id: {"ok": true, "reason", "is_next", "pool", "as_of", "work", "eligible", "blocking_path",
  "comparison", "next"}   reason is the Work's eligibility code (dependency_wait, retry_delayed, ...),
  weighted_class / priority_class / weighted_key (its class or key lost the pass comparison),
  fifo_order (an earlier eligible Work of its bucket is ahead), or the winner's reason if it is next.

Examples:
  fairway explain --ledger work-queue.jsonl --pool default
  fairway explain --ledger work-queue.jsonl --pool default --work-id 3f2a... --as-of 1767225600000 --json`)
    .action(ctx.action(async (g, opts: { pool?: string; workId?: string; asOf?: string; claimId?: string; beforeClaim?: string; format?: string }) => {
      const format = formatOf(g, opts);
      const historical = [g.requestId, opts.claimId, opts.beforeClaim].filter((v) => v !== undefined).length;
      const live = [opts.workId === undefined ? null : '--work-id', opts.asOf === undefined ? null : '--as-of'].filter((f) => f !== null);
      const goesWithPool = `${live.join(' and ')} ${live.length === 1 ? 'goes' : 'go'} with --pool (a live explanation)`;
      // `explain --work-id W` alone: name the missing --pool, not a list of selectors that omits --work-id.
      if (historical === 0 && opts.pool === undefined && live.length > 0) throw new UsageError(`${goesWithPool}: add --pool <name>`, 'option_invalid');
      if (historical + (opts.pool === undefined ? 0 : 1) !== 1) {
        throw new UsageError('give exactly one of --pool (live), --request-id, --claim-id or --before-claim (historical)', 'option_invalid');
      }
      if (opts.pool === undefined) {
        // A historical explanation is of a committed decision, at its own commit's time.
        if (live.length > 0) throw new UsageError(`${goesWithPool}; a historical one (--request-id, --claim-id, --before-claim) is at its commit's decision time`, 'option_invalid');
        const source = readSource(g);
        const projection = await source.load();
        // Unique prefixes (8+ characters) of the request and Claim ids.
        const requestId = g.requestId === undefined ? undefined : resolveId(projection, 'request', g.requestId);
        const claimId = opts.claimId === undefined ? undefined : resolveId(projection, 'claim', opts.claimId);
        const beforeClaim = opts.beforeClaim === undefined ? undefined : resolveId(projection, 'claim', opts.beforeClaim);
        // Every request kind says what it did; a dispatch_next also re-derives its grant selection
        // (from the pre-compaction history at the checkpoint's prior Git commit when compacted).
        let described = requestId === undefined ? undefined : describeRequest(projection, requestId);
        if (requestId !== undefined && described === undefined) fail('unknown_request', `request ${requestId} is not committed in this ledger`);
        if (described !== undefined && !described.operations_available && source.history !== undefined) {
          // Compacted: describe it from the pre-compaction ledger when Git history still holds it.
          const holder = await source.history(projection, described.commit_id);
          if (holder !== null) described = describeRequest(holder, requestId!) ?? described;
        }
        if (described !== undefined && described.kind !== 'dispatch_next') {
          if (format !== 'table') return printRecord(ctx.io, format, { ok: true, ...described });
          ctx.io.out(requestLines(described).join('\n'));
          return;
        }
        const grant = await historicalExplanationAt(projection, { requestId, claimId: claimId ?? beforeClaim }, source.history);
        if (beforeClaim !== undefined) {
          // The one decision that selected this Claim: planNext on the predecessor prefix plus the
          // commit's earlier Claims, as the packer ran it (the whole grant is --claim-id's view).
          const decision = grant.claims.find((c) => c.claim_id === beforeClaim)!;
          const view = { request_id: grant.request_id, commit_id: grant.commit_id, as_of: grant.as_of, before_claim: beforeClaim, index: decision.index, work_id: decision.work_id, explanation: decision.explanation };
          if (format !== 'table') return printRecord(ctx.io, format, { ok: true, ...view });
          ctx.io.out(`decision #${decision.index} of request ${grant.request_id} at ${grant.commit_id} (decision time ${grant.as_of}), the state just before Claim ${beforeClaim}:`);
          ctx.io.out(`  selected work ${decision.work_id}: ${decision.explanation.reason}, class P${decision.explanation.key?.priority ?? '-'}, key ${JSON.stringify(decision.explanation.work?.fairness_key ?? '')}`);
          return;
        }
        const view = described === undefined ? grant : { ...grant, kind: described.kind, actor: described.actor, operations: described.operations, summary: described.summary };
        if (format !== 'table') return printRecord(ctx.io, format, { ok: true, ...view });
        ctx.io.out(`request ${view.request_id} at ${view.commit_id} (decision time ${view.as_of}): ${view.claims.length} Claim(s), stopped by ${view.stop_reason}`);
        // Full Claim ids: those of one grant share everything but their suffix, so no shorter form pastes back.
        for (const c of view.claims) ctx.io.out(`  #${c.index} ${c.claim_id} work ${c.work_id.slice(0, 12)} ${c.explanation.reason} class P${c.explanation.key?.priority ?? '-'} key ${JSON.stringify(c.explanation.work?.fairness_key ?? '')}`);
        return;
      }
      const asOf = parseAsOf(opts.asOf, Date.now());
      await runExplain(ctx.io, g, { pool: opts.pool, workId: opts.workId, asOf, format });
    }));
};
