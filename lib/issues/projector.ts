/**
 * The backing-Issue projector (operator reference "Backing Issues", "Synchronization and
 * recovery"): one Issue per admitted Work in the queue repository, `<prefix>:<status>` labels,
 * a canonical summary comment and one comment per owned Claim, with their IssueLink /
 * IssueComment bindings published through the one checked publisher.
 *
 * One run (`syncIssues`), at most 25 targets:
 * 1. read the ledger and the journal (two store reads), the repository's labels, and what
 *    changed on GitHub since the journal's watermark (one feed read), or each bound Issue
 *    when there is no usable watermark;
 * 2. create missing projector labels (7057FF);
 * 3. append durable intents for every Issue/comment to create (one journal CAS), THEN send
 *    the creations; record receipts, definitive rejections and written digests (one more
 *    journal CAS, which also carries the intents of the new Issues' comments), then send
 *    those comments and record them (a last journal CAS);
 * 4. publish the missing IssueLink / IssueComment bindings in one `observe` request.
 * An unchanged Work needs no Issue request at all. Pending targets are reported, never
 * recreated; a timeout or ambiguous answer leaves its intent pending.
 */
import { sha256Hex } from '../../engine/codec/digest.ts';
import { canonicalize } from '../../engine/codec/index.ts';
import { fail } from '../../engine/errors.ts';
import { desiredIssue, type DesiredIssue } from '../../engine/issues/desired.ts';
import { safeRepository } from '../../engine/issues/escape.ts';
import { claimKey, issueKey, type JournalRecord, type JournalState } from '../../engine/issues/journal.ts';
import { LABEL_COLOR, projectorLabels } from '../../engine/issues/labels.ts';
import { missingBindings, planWork, type CommentAction, type IssueObservation, type WorkPlan } from '../../engine/issues/plan.ts';
import type { Templates } from '../../engine/issues/render.ts';
import type { JsonObject, JsonValue } from '../../engine/json.ts';
import type { Projection } from '../../engine/replay/index.ts';
import type { ResourceIdentity, WorkRecord } from '../../engine/replay/state.ts';
import { operationsRequest } from '../../engine/requests/operations.ts';
import type { Actor } from '../../engine/schema/index.ts';
import type { Publisher } from '../publisher/publisher.ts';
import type { FeedIssue, IssuesClient, WriteOutcome } from './github.ts';
import type { JournalStore } from './journal-store.ts';

/** Hooks batch up to this many owned targets (operator reference). */
export const MAX_TARGETS = 25;
/** The watermark trails GitHub's clock by this much, so changes racing the read are re-read. */
const WATERMARK_MARGIN_MS = 60_000;
/** A change feed this long moves the watermark forward even when nothing else is written. */
const FEED_ADVANCE = 50;

export interface ProjectorDeps {
  publisher: Publisher;
  journal: JournalStore;
  client: IssuesClient;
  /** Publishes the bindings (a protected hook's reconciler/dispatcher, never a worker). */
  actor: Actor;
  prefix: string;
  templates: Templates;
  /** The producing run's URL (generated-by footers), or null. */
  runUrl: string | null;
  /** Identity of this projector run in intents (run id/attempt plus a nonce). */
  owner: string;
  /** The projector's revision (IssueLink/IssueComment `projector_ref`), 40 or 64 hex. */
  projectorRef: string;
  now?: () => number;
}

export interface SyncOptions {
  workIds?: readonly string[];
  dryRun?: boolean;
  /** Test hook: called after the intents are durable, before the first mutation. */
  afterIntents?: () => Promise<void> | void;
}

export interface TargetReport {
  work_id: string;
  status: string;
  issue: { number: string | null; action: string; outcome: string };
  comments: Array<{ key: string; action: string; outcome: string; comment_id?: string }>;
  /** Why this target stays pending (empty when in sync). */
  pending: string[];
  /** Journal keys of the pending targets (for `fairway issues resolve --target`). */
  pending_targets: string[];
}

export interface SyncReport {
  repository: string;
  dry_run: boolean;
  targets: TargetReport[];
  deferred: string[];
  labels_created: string[];
  /** Mutations a dry run would make (empty otherwise). */
  would: Array<{ method: string; what: string }>;
  bindings: { request_id: string; status: string; commit_id: string | null; operations: number } | null;
  requests: { github_reads: number; github_writes: number; journal_writes: number; ledger_publications: number };
  stopped: string | null;
}

function scope(projection: Projection, workIds: readonly string[] | undefined): WorkRecord[] {
  if (workIds === undefined || workIds.length === 0) return [...projection.works()].sort((a, b) => a.fifo - b.fifo);
  return workIds.map((id) => projection.work(id) ?? fail('unknown_work', `Work ${id} is not admitted in this queue`, {}, { usage: true }));
}

function isoMinus(httpDate: string | null, ms: number): string | null {
  if (httpDate === null) return null;
  const t = Date.parse(httpDate);
  if (!Number.isFinite(t)) return null;
  return new Date(Math.floor((t - ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export async function syncIssues(deps: ProjectorDeps, options: SyncOptions = {}): Promise<SyncReport> {
  const now = deps.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const { projection, snapshot } = await deps.publisher.cache.load();
  if (projection === null) fail('queue_uninitialized', 'there is no queue to project Issues for');
  const repository = safeRepository(projection.state.repository ?? '');
  if (repository === null) fail('issues_repository_invalid', `the queue repository ${JSON.stringify(projection.state.repository)} is not a GitHub owner/name; backing Issues live in the queue repository`);
  const all = scope(projection, options.workIds);
  const batch = all.slice(0, MAX_TARGETS);
  const report: SyncReport = {
    repository, dry_run: dryRun, targets: [], deferred: all.slice(MAX_TARGETS).map((w) => w.workId), labels_created: [], would: [],
    bindings: null, requests: { github_reads: 0, github_writes: 0, journal_writes: 0, ledger_publications: 0 }, stopped: null,
  };
  const client = deps.client;
  const journal = (await deps.journal.load()).state;
  const ctx = { prefix: deps.prefix, host: client.host, runUrl: deps.runUrl, ledgerVersion: snapshot.version, templates: deps.templates };
  const desired = new Map(batch.map((w) => [w.workId, desiredIssue(projection, w, ctx)]));

  // 1. labels: created when missing, repaired when deleted.
  const labels = await client.labels(repository);
  const have = new Set(labels.names.map((n) => n.toLowerCase()));
  for (const name of projectorLabels(deps.prefix)) {
    if (have.has(name.toLowerCase())) continue;
    if (dryRun) {
      report.would.push({ method: 'POST', what: `create label ${name}` });
      continue;
    }
    const out = await client.createLabel(repository, name, LABEL_COLOR, 'Fairway backing-Issue status (the work-queue ledger is the authority)');
    if (out.ok || (out.kind === 'rejected' && out.status === 422)) report.labels_created.push(name);
  }

  // 2. what GitHub shows of the bound Issues.
  const bound = batch.flatMap((w) => {
    const e = journal.entries.get(issueKey(w.workId));
    return e?.phase === 'bound' ? [[w.workId, e.resource!] as const] : [];
  });
  const observations = new Map<string, IssueObservation>();
  let watermark: string | null = null;
  const since = journal.watermarks.get(repository);
  // The watermark is repository-wide: it may move only when this run observed every Issue
  // the journal binds there (a hook's scoped run leaves it, so nobody misses a change).
  const inBatch = new Set(batch.map((w) => w.workId));
  let observedAll = false;
  let advanceWatermark = false;
  if (bound.length > 0) {
    let feed: Awaited<ReturnType<IssuesClient['feed']>> | null = null;
    if (since !== undefined) feed = await client.feed(repository, since);
    if (feed !== null && feed.complete) {
      const byId = new Map(feed.issues.map((i) => [i.id, i]));
      for (const [workId, resource] of bound) {
        const seen = byId.get(resource.resource_id);
        observations.set(workId, seen === undefined ? 'unchanged' : observed(seen, resource));
      }
      watermark = isoMinus(feed.serverTime, WATERMARK_MARGIN_MS);
      // A long feed is moved forward even when nothing else is written (one journal write).
      if (feed.issues.length >= FEED_ADVANCE) advanceWatermark = true;
    } else {
      for (const [workId, resource] of bound) {
        const issue = await client.issue(resource);
        observations.set(workId, issue === null ? 'missing' : observed(issue, resource));
      }
      watermark = isoMinus(labels.serverTime, WATERMARK_MARGIN_MS);
    }
    observedAll = everyBoundIn(journal, repository, inBatch);
  } else {
    watermark = isoMinus(labels.serverTime, WATERMARK_MARGIN_MS);
    observedAll = everyBoundIn(journal, repository, inBatch);
  }

  let plans = batch.map((w) => planWork(desired.get(w.workId)!, journal, deps.prefix, observations.get(w.workId) ?? null));

  if (dryRun) {
    for (const plan of plans) {
      describeWould(report, plan);
      report.targets.push(targetReport(plan, journal, 'dry_run'));
    }
    finishCounts(report, deps);
    return report;
  }

  // 3a. durable intents before any creation is sent.
  const owned = new Set<string>();
  const intents = (state: JournalState, list: WorkPlan[]): JournalRecord[] => list.flatMap((p) => {
    const out: JournalRecord[] = [];
    const free = (key: string) => {
      const e = state.entries.get(key);
      return e === undefined || e.phase === 'released';
    };
    if (p.issue.action === 'create' && free(p.issue.key)) {
      out.push({ v: 1, kind: 'intent', key: p.issue.key, target: 'issue', work_id: p.workId, repository, owner: deps.owner, at: now() });
    }
    for (const c of p.comments) {
      if (c.action === 'create' && free(c.key)) {
        out.push({ v: 1, kind: 'intent', key: c.key, target: c.claimId === undefined ? 'summary' : 'claim', work_id: p.workId, ...(c.claimId === undefined ? {} : { claim_id: c.claimId }), repository, owner: deps.owner, at: now() });
      }
    }
    return out;
  });
  const first = await deps.journal.append((state) => intents(state, plans));
  for (const r of first.appended) owned.add(r.key);
  await options.afterIntents?.();

  // 3b. send: Issue creations, label changes, comments on already-bound Issues.
  const records: JournalRecord[] = [];
  const outcomes = new Map<string, string>();
  let repositoryId: string | null = null;
  for (const plan of plans) {
    const a = plan.issue;
    if (a.action === 'create') {
      if (!owned.has(a.key)) {
        outcomes.set(a.key, 'another_projector_holds_intent');
        continue;
      }
      repositoryId ??= await client.repositoryId(repository);
      const out = await client.createIssue(repository, { title: a.title, body: a.body, labels: a.labels });
      if (out.ok) {
        const resource: ResourceIdentity = { kind: 'issue', host: client.host, repository, repository_id: repositoryId, resource_id: out.value.id, number: String(out.value.number) };
        records.push({ v: 1, kind: 'receipt', key: a.key, resource, status: a.status });
      }
      settle(records, outcomes, a.key, out, deps.owner);
    } else if (a.action === 'labels') {
      let ok = true;
      let last: WriteOutcome<null> = { ok: true, value: null };
      for (const name of a.remove) {
        last = await client.removeLabel(a.resource, name);
        ok &&= last.ok;
      }
      if (a.add.length > 0) {
        last = await client.addLabels(a.resource, a.add);
        ok &&= last.ok;
      }
      if (ok) records.push({ v: 1, kind: 'written', key: a.key, status: a.status });
      outcomes.set(a.key, ok ? 'labels_updated' : outcomeName(last));
    }
    await sendComments(client, plan, owned, records, outcomes, deps.owner);
  }

  // 3c. receipts, plus the intents of the new Issues' comments, in one journal write.
  const afterSend = await deps.journal.append((state) => {
    const extra = fresh(state, records);
    const nextState = structuredCloneJournal(state, extra);
    const replanned = batch.map((w) => planWork(desired.get(w.workId)!, nextState, deps.prefix, observations.get(w.workId) ?? 'unchanged'));
    const newIssues = replanned.filter((p) => extra.some((r) => r.kind === 'receipt' && r.key === issueKey(p.workId)));
    const more = intents(nextState, newIssues.map((p) => ({ ...p, issue: { action: 'none', key: p.issue.key, resource: nextState.entries.get(p.issue.key)!.resource! } })));
    const mark = observedAll && watermark !== null && journal.watermarks.get(repository) !== watermark && (extra.length > 0 || more.length > 0 || since === undefined || advanceWatermark)
      ? [{ v: 1 as const, kind: 'watermark' as const, key: `watermark:${repository}`, repository, since: watermark }]
      : [];
    return [...extra, ...more, ...mark];
  });
  for (const r of afterSend.appended) if (r.kind === 'intent') owned.add(r.key);
  records.length = 0;

  // 3d. comments of Issues created in this run.
  // Planned as of before this run's own intents (which show as pending once durable).
  const beforeOwn = structuredCloneJournal(afterSend.snapshot.state, []);
  for (const key of owned) if (beforeOwn.entries.get(key)?.phase === 'pending') beforeOwn.entries.delete(key);
  plans = batch.map((w) => planWork(desired.get(w.workId)!, beforeOwn, deps.prefix, observations.get(w.workId) ?? 'unchanged'));
  const firstComments = plans.filter((p) => p.comments.some((c) => c.action === 'create' && owned.has(c.key) && !outcomes.has(c.key)));
  for (const plan of firstComments) await sendComments(client, plan, owned, records, outcomes, deps.owner, true);
  const last = records.length > 0 ? await deps.journal.append((state) => fresh(state, records)) : afterSend;

  // 4. bindings of every verified receipt the ledger lacks, in one checked publication.
  report.bindings = await publishBindings(deps, projection, batch.map((w) => w.workId), last.snapshot.state);

  const finalState = last.snapshot.state;
  plans = batch.map((w) => planWork(desired.get(w.workId)!, finalState, deps.prefix, observations.get(w.workId) ?? 'unchanged'));
  for (const plan of plans) report.targets.push(targetReport(plan, finalState, null, outcomes));
  report.stopped = client.stopped;
  finishCounts(report, deps);
  return report;
}

function everyBoundIn(journal: JournalState, repository: string, batch: ReadonlySet<string>): boolean {
  for (const e of journal.entries.values()) {
    if (e.target === 'issue' && e.phase === 'bound' && e.repository === repository && !batch.has(e.workId)) return false;
  }
  return true;
}

function observed(issue: FeedIssue, resource: ResourceIdentity): IssueObservation {
  // A transferred Issue answers from another repository: it is not this binding any more.
  if (!issue.repositoryUrl.toLowerCase().endsWith(`/repos/${resource.repository}`.toLowerCase())) return 'missing';
  return { labels: issue.labels, state: issue.state };
}

async function sendComments(client: IssuesClient, plan: WorkPlan, owned: Set<string>, records: JournalRecord[], outcomes: Map<string, string>, owner: string, onlyCreates = false): Promise<void> {
  if (plan.issue.action !== 'none' && plan.issue.action !== 'labels') return;
  const resource = plan.issue.resource;
  for (const c of plan.comments) {
    if (outcomes.has(c.key)) continue;
    if (c.action === 'create') {
      if (!owned.has(c.key)) {
        outcomes.set(c.key, 'another_projector_holds_intent');
        continue;
      }
      const out = await client.createComment(resource, c.body);
      if (out.ok) records.push({ v: 1, kind: 'receipt', key: c.key, comment_id: out.value.id, digest: c.digest });
      settle(records, outcomes, c.key, out, owner);
    } else if (c.action === 'update' && !onlyCreates) {
      const out = await client.updateComment(resource.repository, c.commentId, c.body);
      if (out.ok) records.push({ v: 1, kind: 'written', key: c.key, digest: c.digest });
      outcomes.set(c.key, out.ok ? 'updated' : !out.ok && out.kind === 'rejected' && out.status === 404 ? 'comment_missing' : outcomeName(out));
    }
  }
}

/** Outcome of a creation: a receipt (pushed by the caller), a definitive rejection (releases the intent), or pending. */
function settle(records: JournalRecord[], outcomes: Map<string, string>, key: string, out: WriteOutcome<unknown>, owner: string): void {
  if (out.ok) {
    outcomes.set(key, 'created');
    return;
  }
  if (out.kind === 'rejected' || out.kind === 'stopped') {
    // Never executed (a 4xx answer, a refused connection, or not sent at all): the intent is released.
    records.push({ v: 1, kind: 'rejected', key, owner, http_status: out.kind === 'rejected' ? out.status : 0, reason: out.kind === 'rejected' ? out.reason : 'not_sent_rate_limit_exhausted' });
  }
  outcomes.set(key, outcomeName(out));
}

function outcomeName(out: WriteOutcome<unknown>): string {
  if (out.ok) return 'ok';
  if (out.kind === 'uncertain') return `uncertain_${out.reason}`;
  if (out.kind === 'stopped') return 'not_sent_rate_limit_exhausted';
  return out.rateLimited ? 'rejected_rate_limited' : `rejected_${out.status}`;
}

/** Records still applicable on `state` (another projector may have settled a key meanwhile). */
function fresh(state: JournalState, records: JournalRecord[]): JournalRecord[] {
  return records.filter((r) => {
    const e = state.entries.get(r.key);
    if (r.kind === 'receipt' || r.kind === 'rejected') return e?.phase === 'pending';
    if (r.kind === 'written') return e?.phase === 'bound';
    return true;
  });
}

function structuredCloneJournal(state: JournalState, extra: JournalRecord[]): JournalState {
  const copy: JournalState = { entries: new Map([...state.entries].map(([k, v]) => [k, { ...v }])), watermarks: new Map(state.watermarks), records: state.records };
  for (const r of extra) {
    const e = copy.entries.get(r.key);
    if (e === undefined) continue;
    if (r.kind === 'receipt') Object.assign(e, { phase: 'bound', ...(r.resource && { resource: r.resource }), ...(r.comment_id && { commentId: r.comment_id }), ...(r.digest && { digest: r.digest }), ...(r.status && { status: r.status }) });
    if (r.kind === 'rejected') e.phase = 'released';
    if (r.kind === 'written') Object.assign(e, { ...(r.digest && { digest: r.digest }), ...(r.status && { status: r.status }) });
  }
  return copy;
}

/**
 * Publishes the bindings `read` (this run's ledger read) lacks; nothing to bind costs no request.
 * The publisher re-reads the tip and `prepare` recomputes them there.
 */
async function publishBindings(deps: ProjectorDeps, read: Projection, workIds: string[], journal: JournalState): Promise<SyncReport['bindings']> {
  const projection = read;
  const ops = workIds.flatMap((id) => missingBindings(projection, journal, id, deps.projectorRef));
  if (ops.length === 0) return null;
  // Stable identity: a retry after a crash re-proposes the same request.
  const requestId = `issues-bind-${sha256Hex(canonicalize(ops as unknown as JsonValue)).slice(0, 32)}`;
  const outcome = await deps.publisher.publish({
    requestId,
    actor: deps.actor,
    prepare: (p) => {
      const now = workIds.flatMap((id) => missingBindings(p, journal, id, deps.projectorRef));
      if (canonicalize(now as unknown as JsonValue) !== canonicalize(ops as unknown as JsonValue)) {
        return { kind: 'observe', parameters: { operations: now }, noWrite: { code: 'bindings_changed', message: 'the ledger changed the bindings still missing; the next run publishes the rest' } };
      }
      return operationsRequest('observe', ops as JsonObject[]);
    },
  });
  return {
    request_id: requestId, status: outcome.status, operations: ops.length,
    commit_id: outcome.status === 'committed' ? outcome.commit.id : outcome.status === 'request_replayed' ? outcome.commitId : null,
  };
}

function describeWould(report: SyncReport, plan: WorkPlan): void {
  const a = plan.issue;
  if (a.action === 'create') report.would.push({ method: 'POST', what: `create issue for Work ${plan.workId} labelled ${a.labels.join(', ')} (after its journal intent)` });
  if (a.action === 'labels') {
    for (const r of a.remove) report.would.push({ method: 'DELETE', what: `remove label ${r} from #${a.resource.number}` });
    if (a.add.length > 0) report.would.push({ method: 'POST', what: `add labels ${a.add.join(', ')} to #${a.resource.number}` });
  }
  for (const c of plan.comments) describeComment(report, plan, c);
}

function describeComment(report: SyncReport, plan: WorkPlan, c: CommentAction): void {
  const what = c.key.startsWith('summary:') ? 'summary comment' : `Claim comment ${c.key.slice('claim:'.length)}`;
  const number = plan.issue.action === 'none' || plan.issue.action === 'labels' ? `#${plan.issue.resource.number}` : `Work ${plan.workId}`;
  if (c.action === 'create') report.would.push({ method: 'POST', what: `create ${what} on ${number}` });
  if (c.action === 'update') report.would.push({ method: 'PATCH', what: `update ${what} ${c.commentId} on ${number}` });
}

function targetReport(plan: WorkPlan, journal: JournalState, fixed: string | null, outcomes = new Map<string, string>()): TargetReport {
  const entry = journal.entries.get(issueKey(plan.workId));
  const pending: string[] = [];
  const pendingTargets: string[] = [];
  if (plan.issue.action === 'pending') {
    pending.push(plan.issue.reason);
    pendingTargets.push(plan.issue.key);
  }
  const comments = plan.comments.map((c) => {
    if (c.action === 'pending') {
      pending.push(`${c.reason} (${c.key})`);
      pendingTargets.push(c.key);
    }
    const commentId = journal.entries.get(c.key)?.commentId;
    return { key: c.key, action: c.action, outcome: fixed ?? outcomes.get(c.key) ?? (c.action === 'none' ? 'unchanged' : c.action), ...(commentId === undefined ? {} : { comment_id: commentId }) };
  });
  return {
    work_id: plan.workId,
    status: plan.status,
    issue: { number: entry?.resource?.number ?? null, action: plan.issue.action, outcome: fixed ?? outcomes.get(issueKey(plan.workId)) ?? (plan.issue.action === 'none' ? 'unchanged' : plan.issue.action) },
    comments,
    pending,
    pending_targets: pendingTargets,
  };
}

function finishCounts(report: SyncReport, deps: ProjectorDeps): void {
  report.requests.github_reads = deps.client.counts.reads;
  report.requests.github_writes = deps.client.counts.writes;
  report.requests.journal_writes = deps.journal.writes;
  report.requests.ledger_publications = report.bindings?.status === 'committed' ? 1 : 0;
}

export type { DesiredIssue };
export { claimKey };
