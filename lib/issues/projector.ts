/**
 * The backing-Issue projector (operator reference "Backing Issues", "Synchronization and
 * recovery"): one Issue per admitted Work, `<prefix>:<status>` labels, a canonical summary
 * comment and one comment per owned Claim, with their IssueLink / IssueComment bindings
 * published through the one checked publisher; closure only under a `close-on-result`
 * projector rule (engine/issues/authority.ts).
 *
 * Scope: the Work of this run (at most 25 targets). Each Work's Issue lives in the queue
 * repository (created by the projector) or, for a Work admitted with a granted pre-existing
 * `backing_issue`, wherever that Issue is (any of its pool's allowed repositories). Only the
 * repositories those targets name are read: never a global scan. A target outside this run's
 * current target authority is reported `projector_not_authorized` and costs no request.
 *
 * One run (`syncIssues`):
 * 1. read the ledger and the journal (two store reads); per repository its labels and what
 *    changed since the journal's watermark (lib/issues/observe.ts);
 * 2. create missing projector labels (7057FF);
 * 3. append durable intents for every Issue/comment to create (one journal CAS), THEN send
 *    the creations, label changes, comments and closures (lib/issues/send.ts); record
 *    receipts, definitive rejections, written digests and missing marks (one more journal CAS,
 *    which also carries the intents of the new Issues' comments), then send those comments
 *    and record them (a last journal CAS);
 * 4. publish the missing IssueLink / IssueComment bindings in one `observe` request.
 * An unchanged Work needs no Issue request at all. Pending targets are reported, never
 * recreated; a timeout or ambiguous answer leaves its intent pending.
 */
import { sha256Hex } from '../../engine/codec/digest.ts';
import { canonicalize } from '../../engine/codec/index.ts';
import { fail } from '../../engine/errors.ts';
import { closesOnResult, issueTarget, targetAuthority, type IssueTarget, type ProjectorIdentity } from '../../engine/issues/authority.ts';
import { desiredIssue, type DesiredIssue } from '../../engine/issues/desired.ts';
import { safeRepository } from '../../engine/issues/escape.ts';
import { claimKey, cloneJournal, foldApplicable, issueKey, type JournalRecord, type JournalState } from '../../engine/issues/journal.ts';
import { LABEL_COLOR, projectorLabels } from '../../engine/issues/labels.ts';
import { closureNeedsRead, missingBindings, needsProjection, planWork, type IssueObservation, type WorkPlan } from '../../engine/issues/plan.ts';
import type { Templates } from '../../engine/issues/render.ts';
import type { JsonValue } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { WorkRecord } from '../../engine/state/state.ts';
import type { Publisher, PublishingActor } from '../publisher/publisher.ts';
import { publishObservations } from '../publisher/requests.ts';
import type { IssuesClient } from './github.ts';
import type { JournalStore } from './journal-store.ts';
import { observeRepository, type RepositoryObservation } from './observe.ts';
import { describeWould, targetReport, type SyncReport, type TargetReport } from './report.ts';
import { sendClose, sendComments, sendIssue, type SendState } from './send.ts';

/** Hooks batch up to this many owned targets (operator reference). */
export const MAX_TARGETS = 25;

export interface ProjectorDeps {
  publisher: Publisher;
  journal: JournalStore;
  client: IssuesClient;
  /** Publishes the bindings (a protected hook's reconciler/dispatcher, never a worker); its principal and workflow are the projector identity of rules. */
  actor: PublishingActor;
  prefix: string;
  templates: Templates;
  /** The producing run's URL (generated-by footers), or null. */
  runUrl: string | null;
  /** Identity of this projector run in intents (run id/attempt plus a nonce). */
  owner: string;
  /** The projector's revision (IssueLink/IssueComment `projector_ref`, a rule's `ref`), 40 or 64 hex. */
  projectorRef: string;
  now?: () => number;
}

export interface SyncOptions {
  workIds?: readonly string[];
  dryRun?: boolean;
  /** Test hook: called after the intents are durable, before the first mutation. */
  afterIntents?: () => Promise<void> | void;
}

/** One Work of the batch: what it should look like, where its Issue lives, what this run may do. */
interface Target {
  work: WorkRecord;
  desired: DesiredIssue;
  target: IssueTarget;
  authorized: boolean;
  closeOnResult: boolean;
}

/**
 * The Work a run projects: every admitted Work, or the named ones (a Work named twice once); a
 * name that is no admitted Work is `unknown_work`. `fairway issues sync` checks its --work-id
 * with it before it looks at whether projection is on.
 */
export function syncScope(projection: Projection, workIds: readonly string[] | undefined): WorkRecord[] {
  if (workIds === undefined || workIds.length === 0) return [...projection.works()].sort((a, b) => a.fifo - b.fifo);
  // A Work named twice is one target: two would each plan (and intend) the same creation.
  return [...new Set(workIds)].map((id) => projection.work(id) ?? fail('unknown_work', `Work ${id} is not admitted in this queue`, {}, { usage: true }));
}

function targetsOf(projection: Projection, batch: WorkRecord[], deps: ProjectorDeps, ledgerVersion: string | null): Target[] {
  const ctx = { prefix: deps.prefix, host: deps.client.host, runUrl: deps.runUrl, ledgerVersion, templates: deps.templates };
  const who: ProjectorIdentity = { principal: deps.actor.principal, workflow: deps.actor.workflow ?? null, ref: deps.projectorRef };
  return batch.map((work) => {
    const desired = desiredIssue(projection, work, ctx);
    const target = issueTarget(projection, work);
    const authorized = safeRepository(target.repository) !== null && targetAuthority(projection, work, who, target);
    return { work, desired, target, authorized, closeOnResult: authorized && closesOnResult(projection, work, who, target, desired.status) };
  });
}

/**
 * This run's targets (at most 25, FIFO order) and the deferred rest. Named Work is taken as
 * named; otherwise Work whose Issue needs projecting (never projected, changed, due for
 * closure, edited outside an earlier batch) goes before Work already in sync.
 */
function batchOf(projection: Projection, journal: JournalState, deps: ProjectorDeps, ledgerVersion: string | null, workIds: readonly string[] | undefined): { targets: Target[]; deferred: string[] } {
  const all = syncScope(projection, workIds);
  if (workIds !== undefined && workIds.length > 0) {
    return { targets: targetsOf(projection, all.slice(0, MAX_TARGETS), deps, ledgerVersion), deferred: all.slice(MAX_TARGETS).map((w) => w.workId) };
  }
  const every = targetsOf(projection, all, deps, ledgerVersion);
  const due = (t: Target) => t.authorized && (needsProjection(t.desired, journal) || (t.closeOnResult && journal.entries.get(issueKey(t.work.workId))?.closed !== true));
  const ordered = [...every.filter(due), ...every.filter((t) => !due(t))];
  const byFifo = (a: Target, b: Target) => a.work.fifo - b.work.fifo;
  return { targets: ordered.slice(0, MAX_TARGETS).sort(byFifo), deferred: ordered.slice(MAX_TARGETS).sort(byFifo).map((t) => t.work.workId) };
}

/** Ledger-bound Issues the journal does not hold yet (a granted pre-existing Issue, or a link this journal never received). */
function ledgerLinks(targets: Target[], journal: JournalState): JournalRecord[] {
  return targets.flatMap((t): JournalRecord[] => {
    const key = issueKey(t.work.workId);
    const entry = journal.entries.get(key);
    if (!t.authorized || t.target.bound === null || (entry !== undefined && entry.phase !== 'released')) return [];
    return [{ v: 1, kind: 'linked', key, work_id: t.work.workId, repository: t.target.repository, resource: t.target.bound }];
  });
}

/** Intents of every creation in `plans` whose key is free on `state`. */
function intentsOf(state: JournalState, plans: WorkPlan[], targets: Target[], owner: string, at: number): JournalRecord[] {
  return plans.flatMap((p, i) => {
    const repository = targets[i]!.target.repository;
    const out: JournalRecord[] = [];
    const free = (key: string) => {
      const e = state.entries.get(key);
      return e === undefined || e.phase === 'released';
    };
    if (p.issue.action === 'create' && free(p.issue.key)) out.push({ v: 1, kind: 'intent', key: p.issue.key, target: 'issue', work_id: p.workId, repository, owner, at });
    for (const c of p.comments) {
      if (c.action === 'create' && free(c.key)) {
        out.push({ v: 1, kind: 'intent', key: c.key, target: c.claimId === undefined ? 'summary' : 'claim', work_id: p.workId, ...(c.claimId === undefined ? {} : { claim_id: c.claimId }), repository, owner, at });
      }
    }
    return out;
  });
}

export async function syncIssues(deps: ProjectorDeps, options: SyncOptions = {}): Promise<SyncReport> {
  const now = deps.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const { projection, snapshot } = await deps.publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'there is no queue to project Issues for');
  const repository = safeRepository(projection.repository ?? '');
  if (repository === null) fail('issues_repository_invalid', `the queue repository ${JSON.stringify(projection.repository)} is not a GitHub owner/name; backing Issues live in GitHub repositories`);
  const loaded = (await deps.journal.load()).state;
  const { targets, deferred } = batchOf(projection, loaded, deps, snapshot.version, options.workIds);
  const batch = targets.map((t) => t.work);
  const report: SyncReport = {
    repository, repositories: [], dry_run: dryRun, targets: [], deferred, labels_created: [], would: [],
    bindings: null, requests: { github_reads: 0, github_writes: 0, journal_writes: 0, ledger_publications: 0 }, stopped: null,
  };
  const client = deps.client;
  const links = ledgerLinks(targets, loaded);
  const journal = foldApplicable(loaded, links).state;

  // 1-2. per repository: labels (created when missing, repaired when deleted), then observations.
  const byRepository = new Map<string, Target[]>();
  for (const t of targets) if (t.authorized) byRepository.set(t.target.repository, [...(byRepository.get(t.target.repository) ?? []), t]);
  report.repositories = [...byRepository.keys()];
  const inBatch = new Set(batch.map((w) => w.workId));
  const observations = new Map<string, IssueObservation>();
  const seenBy = new Map<string, RepositoryObservation>();
  for (const [repo, list] of byRepository) {
    const labels = await client.labels(repo);
    await ensureLabels(deps, report, repo, labels, dryRun);
    const bound = list.flatMap((t) => {
      const entry = journal.entries.get(issueKey(t.work.workId));
      if (entry?.phase !== 'bound') return [];
      const read = entry.status === undefined || entry.missing === true || closureNeedsRead(t.desired.status, journal, t.work.workId, t.closeOnResult);
      return [{ workId: t.work.workId, resource: entry.resource!, read }];
    });
    const seen = await observeRepository(client, journal, deps.prefix, repo, bound, inBatch, labels.serverTime);
    for (const [id, o] of seen.observations) observations.set(id, o);
    seenBy.set(repo, seen);
  }

  const planOf = (state: JournalState, t: Target, observed: IssueObservation | null): WorkPlan =>
    planWork(t.desired, state, deps.prefix, observed, { authorized: t.authorized, closeOnResult: t.closeOnResult });
  let plans = targets.map((t) => planOf(journal, t, observations.get(t.work.workId) ?? null));

  if (dryRun) {
    plans.forEach((plan, i) => {
      describeWould(report, plan, targets[i]!.target.repository);
      report.targets.push(targetReport(plan, journal, targets[i]!.target.repository, targets[i]!.closeOnResult, 'dry_run'));
    });
    return finishCounts(report, deps);
  }

  // 3a. the repository ids of Issue receipts, read before any intent: a failed read then strands no intent.
  const repositoryIds = new Map<string, string>();
  for (const [i, plan] of plans.entries()) {
    const repo = targets[i]!.target.repository;
    if (plan.issue.action === 'create' && !repositoryIds.has(repo)) repositoryIds.set(repo, await client.repositoryId(repo));
  }

  // Then the durable intents (and ledger links), before any creation is sent.
  const owned = new Set<string>();
  const first = await deps.journal.append((state) => {
    const linked = foldApplicable(state, links);
    return [...linked.applied, ...intentsOf(linked.state, plans, targets, deps.owner, now())];
  });
  for (const r of first.appended) if (r.kind === 'intent') owned.add(r.key);
  await options.afterIntents?.();

  // 3b. send: Issue creations, label changes, comments and closures of bound Issues.
  const s: SendState = { client, owner: deps.owner, owned, records: [], outcomes: new Map(), repositoryIds };
  for (const [i, plan] of plans.entries()) {
    await sendIssue(s, plan, targets[i]!.target.repository);
    await sendComments(s, plan);
    await sendClose(s, plan);
  }
  const observed = [...seenBy.values()].flatMap((o) => o.records);

  // 3c. receipts, missing marks, the intents of the new Issues' comments and the watermarks, in one journal write.
  const afterSend = await deps.journal.append((state) => {
    const { state: next, applied } = foldApplicable(state, [...s.records, ...observed.filter((r) => r.kind === 'missing')]);
    const created = targets.filter((t) => applied.some((r) => r.kind === 'receipt' && r.key === issueKey(t.work.workId)));
    const fresh = created.map((t) => {
      const p = planOf(next, t, 'unchanged');
      return { ...p, issue: { action: 'none' as const, key: p.issue.key, resource: next.entries.get(p.issue.key)!.resource! } };
    });
    const more = intentsOf(next, fresh, created, deps.owner, now());
    const writing = applied.length > 0 || more.length > 0;
    const marks: JournalRecord[] = [];
    for (const [repo, o] of seenBy) {
      // A disturbed Issue outside the batch is kept (it makes its Work due) and lets the watermark move.
      const seen = foldApplicable(next, o.records.filter((r) => r.kind === 'seen')).applied;
      const move = o.watermark !== null && state.watermarks.get(repo) !== o.watermark && (writing || o.advance || seen.length > 0);
      marks.push(...seen, ...(move ? [{ v: 1 as const, kind: 'watermark' as const, key: `watermark:${repo}`, repository: repo, since: o.watermark! }] : []));
    }
    return [...applied, ...more, ...marks];
  });
  for (const r of afterSend.appended) if (r.kind === 'intent') owned.add(r.key);
  s.records = [];

  // 3d. first comments (and a due closure) of Issues created in this run, planned as of before this run's own intents.
  const beforeOwn = cloneJournal(afterSend.snapshot.state);
  for (const key of owned) if (beforeOwn.entries.get(key)?.phase === 'pending') beforeOwn.entries.delete(key);
  const createdNow = (t: Target) => s.outcomes.get(issueKey(t.work.workId)) === 'created';
  const observedNow = (t: Target): IssueObservation => (createdNow(t) ? { labels: projectorLabels(deps.prefix).filter((l) => l === deps.prefix || l === `${deps.prefix}:${t.desired.status}`), state: 'open' } : observations.get(t.work.workId) ?? 'unchanged');
  plans = targets.map((t) => planOf(beforeOwn, t, observedNow(t)));
  for (const [i, plan] of plans.entries()) {
    if (!createdNow(targets[i]!) && !plan.comments.some((c) => c.action === 'create' && owned.has(c.key) && !s.outcomes.has(c.key))) continue;
    await sendComments(s, plan, true);
    if (createdNow(targets[i]!)) await sendClose(s, plan);
  }
  const last = s.records.length > 0 ? await deps.journal.append((state) => foldApplicable(state, s.records).applied) : afterSend;

  // 4. bindings of every verified receipt the ledger lacks, in one checked publication.
  report.bindings = await publishBindings(deps, projection, batch.map((w) => w.workId), last.snapshot.state);

  const finalState = last.snapshot.state;
  plans = targets.map((t) => planOf(finalState, t, observedNow(t)));
  plans.forEach((plan, i) => report.targets.push(targetReport(plan, finalState, targets[i]!.target.repository, targets[i]!.closeOnResult, null, s.outcomes)));
  report.stopped = client.stopped;
  return finishCounts(report, deps);
}

async function ensureLabels(deps: ProjectorDeps, report: SyncReport, repository: string, labels: { names: string[]; complete: boolean }, dryRun: boolean): Promise<void> {
  const have = new Set(labels.names.map((n) => n.toLowerCase()));
  for (const name of projectorLabels(deps.prefix)) {
    if (have.has(name.toLowerCase())) continue;
    // A list cut short (more than 300 labels) proves no absence: ask for the label itself.
    if (!labels.complete && await deps.client.hasLabel(repository, name)) continue;
    if (dryRun) {
      report.would.push({ method: 'POST', what: `create label ${name}${repository === report.repository ? '' : ` in ${repository}`}` });
      continue;
    }
    const out = await deps.client.createLabel(repository, name, LABEL_COLOR, 'Fairway backing-Issue status (the work-queue ledger is the authority)');
    if (out.ok || (out.kind === 'rejected' && out.status === 422)) report.labels_created.push(repository === report.repository ? name : `${repository}:${name}`);
  }
}

/**
 * Publishes the bindings `read` (this run's ledger read) lacks; nothing to bind costs no request.
 * The publisher re-reads the tip and `prepare` recomputes them there.
 */
async function publishBindings(deps: ProjectorDeps, read: Projection, workIds: string[], journal: JournalState): Promise<SyncReport['bindings']> {
  const ops = workIds.flatMap((id) => missingBindings(read, journal, id, deps.projectorRef));
  if (ops.length === 0) return null;
  // Stable identity: a retry after a crash re-proposes the same request.
  const requestId = `issues-bind-${sha256Hex(canonicalize(ops as unknown as JsonValue)).slice(0, 32)}`;
  const outcome = await publishObservations(deps.publisher, {
    requestId,
    actor: deps.actor,
    observations: ops,
    recheck: {
      read: (p) => workIds.flatMap((id) => missingBindings(p, journal, id, deps.projectorRef)),
      changed: { code: 'bindings_changed', message: 'the ledger changed the bindings still missing; the next run publishes the rest' },
    },
  });
  return {
    request_id: requestId, status: outcome.status, operations: ops.length,
    commit_id: outcome.commitId,
  };
}

function finishCounts(report: SyncReport, deps: ProjectorDeps): SyncReport {
  report.requests.github_reads = deps.client.counts.reads;
  report.requests.github_writes = deps.client.counts.writes;
  report.requests.journal_writes = deps.journal.writes;
  report.requests.ledger_publications = report.bindings?.status === 'committed' ? 1 : 0;
  return report;
}

export type { DesiredIssue, SyncReport, TargetReport };
export { claimKey };
