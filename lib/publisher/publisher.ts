/**
 * The one checked publication path (spec 7.7). Every write in the product, from
 * the CLI, the console and the MCP processor, goes through `publish`:
 *
 * 1. stable request id and fingerprint;
 * 2. read the tip and replay (reusing a validated projection when the new bytes
 *    extend it);
 * 3. an already committed request returns its outcome (`request_replayed`) and
 *    writes nothing; the same id with another fingerprint is an error;
 * 4. otherwise build the candidate from the request, validate it by applying it to a
 *    fork of the projection (the tentative projection), and compare-and-swap;
 * 5. on conflict, drop the tentative projection and rebuild on the new tip (the validated
 *    projection is kept, so only the new tail is replayed);
 * 6. on an uncertain write, read back and resolve by request id first;
 * 7. bounded retries, paced (backoff.ts): at most `maxAttempts` attempts that ended without
 *    progress (an uncertain write, or a branch that moved without gaining commits), and no
 *    new attempt after `deadlineMs`. An attempt lost to another writer's commit is the queue
 *    making progress: it does not use up the budget, the deadline bounds it.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { fail, refusedCandidate } from '../../engine/errors.ts';
import { candidateCommitId } from '../../engine/identity/index.ts';
import type { JsonValue } from '../../engine/json.ts';
import { appendLedger, emptyProjection, type Projection, type ReplayProgress } from '../../engine/replay/index.ts';
import { buildCommit } from '../../engine/requests/build.ts';
import type { BuiltRequest } from '../../engine/requests/operations.ts';
import type { Actor, QueueCommit } from '../../engine/schema/index.ts';
import { refusePlaceholderRoutes } from '../config/placeholder.ts';
import { debugEvent, since } from '../debug/log.ts';
import type { CasOutcome, LedgerStore } from '../store/types.ts';
import { ContentionPacer } from './backoff.ts';
import { ProjectionCache } from './cache.ts';
import { ledgerHolding } from './history.ts';
import { checkSameRequest } from './request-meaning.ts';

/** The candidate QueueCommit one attempt builds: its request, its id on this attempt's tip, its decision time. */
export interface CandidateCommit {
  requestId: string;
  /** The candidate commit id on the tip this attempt builds on. */
  commitId: string;
  /** Trusted decision time of this attempt (ms). */
  at: number;
}

/** A reasoned no-write (spec 7.7: an evaluation that publishes nothing, e.g. no grant). */
export interface NoWrite {
  code: string;
  message: string;
  detail?: unknown;
}

/** What a request becomes against one projection: a commit to write, or a reasoned no-write. */
export type Prepared = BuiltRequest | { kind: string; parameters: BuiltRequest['parameters']; noWrite: NoWrite };

/**
 * The Actor a publication is made as. Without a repository it is the queue's: the ledger's
 * (the genesis Actor's), or on a bootstrap `bootstrapRepository`. A repository it names is
 * kept, and replay judges it (`repository_mismatch`).
 */
export type PublishingActor = Omit<Actor, 'repository'> & { repository?: string };

export interface PublishInput<P extends Prepared = Prepared, B extends BuiltRequest = BuiltRequest> {
  requestId: string;
  /** The writer; named per attempt from the projection it builds on when it names no repository. */
  actor: PublishingActor;
  /** Builds the request against a fresh projection (called again after every conflict). */
  prepare: (projection: Projection, candidate: CandidateCommit) => P;
  /**
   * Only `submit` may initialize an absent queue (spec 7.1): builds the genesis
   * (Policy first, then the Work) for the genesis Actor. Reads, dispatch and controls
   * leave this unset and fail with `queue_uninitialized` on an absent queue.
   */
  bootstrap?: (candidate: CandidateCommit, actor: Actor) => Promise<B> | B;
  /** The queue repository the genesis Actor names when `actor` names none (asked only when bootstrapping). */
  bootstrapRepository?: string | (() => Promise<string> | string);
  /** Decision clock (default Date.now). */
  now?: () => number;
  /** Attempts that may end without progress (default 20): uncertain, or lost to a branch that gained no commit. */
  maxAttempts?: number;
  /** No attempt starts this long (ms) after the first (default PUBLISH_DEADLINE_MS). */
  deadlineMs?: number;
  /** Called before each retry (progress on a TTY, logs). */
  onRetry?: (info: { attempt: number; reason: 'conflict' | 'uncertain' }) => void;
  /**
   * The request id is derived from the one lifecycle transition it records (a dispatch's start,
   * binding, release, ...), not chosen by a caller: it names what the request means, while its
   * evidence carries facts read at each attempt (a reconciler's poll count). A retry that can no
   * longer be prepared (the transition was made) is then that committed transition. Requests
   * under a caller's id (the default) are compared by what they would commit.
   */
  derivedId?: boolean;
}

/**
 * Every outcome names its commit (`commitId`: written or found; null for a no-write), says
 * whether the request was already committed (`replayed`), and carries what the publisher
 * prepared for it (`prepared`: the committed request or the no-write; null on a replay,
 * whose request was prepared by an earlier publication).
 */
export type PublishOutcome<P extends Prepared = Prepared, B extends BuiltRequest = BuiltRequest> =
  | (Extract<Settled, { status: 'committed' }> & { commitId: string; replayed: false; prepared: Exclude<P, { noWrite: NoWrite }> | B })
  | (Extract<Settled, { status: 'request_replayed' }> & { replayed: true; prepared: null })
  | ([Extract<P, { noWrite: NoWrite }>] extends [never] ? never : Extract<Settled, { status: 'no_write' }> & { commitId: null; replayed: false; prepared: Extract<P, { noWrite: NoWrite }> });

/** How the retry loop settles one publication (the edges add what the caller prepared). */
type Settled =
  | { status: 'committed'; commit: QueueCommit; projection: Projection; version: string; attempts: number; bootstrap: boolean }
  | { status: 'request_replayed'; commitId: string; projection: Projection; version: string | null }
  | { status: 'no_write'; code: string; message: string; detail?: unknown; projection: Projection; version: string | null };

const encoder = new TextEncoder();

/** How long a publication keeps retrying races it loses to other writers' commits (ms). */
export const PUBLISH_DEADLINE_MS = 120_000;

export class Publisher {
  readonly cache: ProjectionCache;
  /** How far apart this publisher's attempts start, remembered across publications (backoff.ts). */
  readonly pacer = new ContentionPacer();

  constructor(readonly store: LedgerStore, options: { onProgress?: ReplayProgress } = {}) {
    this.cache = new ProjectionCache(store, options.onProgress);
  }

  /**
   * Publishes one request. At the edges of the retry loop: what the latest attempt prepared
   * (the committed request or the no-write) is handed back with the outcome.
   */
  async publish<P extends Prepared, B extends BuiltRequest = never>(input: PublishInput<P, B>): Promise<PublishOutcome<P, B>> {
    let prepared: Prepared | null = null;
    const settled = await this.run({
      ...(input as PublishInput),
      prepare: (projection, candidate) => (prepared = input.prepare(projection, candidate)),
      ...(input.bootstrap === undefined ? {} : { bootstrap: async (candidate: CandidateCommit, actor: Actor) => (prepared = await input.bootstrap!(candidate, actor)) }),
    });
    return uniform(settled, prepared) as PublishOutcome<P, B>;
  }

  private async run(input: PublishInput): Promise<Settled> {
    const now = input.now ?? Date.now;
    const maxAttempts = input.maxAttempts ?? 20;
    const deadline = Date.now() + (input.deadlineMs ?? PUBLISH_DEADLINE_MS);
    // Every attempt starts after the pacer's wait (0 for a publisher that does not lose races).
    const paced = this.pacer.wait();
    if (paced > 0) {
      debugEvent('store', 'pace', { delay_ms: Math.round(paced) });
      await sleep(paced);
    }
    let started = Date.now();
    /** Attempts that ended without progress, and lost to another writer's commit. */
    let futile = 0;
    let progressed = 0;
    /** The attempt just lost: what it built on, to tell at the next read whether the branch gained commits. */
    let lost: { projection: Projection | null; commits: number; uncertain: boolean } | null = null;
    // A lost attempt: the pacer learns it, and the next attempt waits.
    const backoff = async (attempt: number, outcome: CasOutcome, projection: Projection | null): Promise<void> => {
      this.pacer.lost(Date.now() - started);
      lost = { projection, commits: projection?.commitCount ?? 0, uncertain: outcome.status === 'uncertain' };
      const ms = this.pacer.wait();
      debugEvent('store', 'retry', { attempt, reason: retryReason(outcome), delay_ms: Math.round(ms) });
      await sleep(ms);
      started = Date.now();
    };
    for (let attempt = 1; ; attempt++) {
      const { snapshot, projection } = await this.cache.load();
      if (lost !== null) {
        const was: { projection: Projection | null; commits: number; uncertain: boolean } = lost;
        // Progress: the queue appeared, or the projection the lost attempt built on gained commits.
        const progress = !was.uncertain && projection !== null && (was.projection === null || (projection === was.projection && projection.commitCount > was.commits));
        if (progress) progressed++;
        else futile++;
        lost = null;
      }
      // Checked after the read, so a request found committed meanwhile still answers as such.
      const exhausted = (): void => {
        if (attempt > 1 && (futile >= maxAttempts || Date.now() >= deadline)) {
          fail('publish_retries_exhausted', `could not publish request ${input.requestId} after ${attempt - 1} attempts (${progressed} lost to other writers' commits, ${futile} without progress)`, undefined, { attempts: attempt - 1, lost_to_commits: progressed, without_progress: futile });
        }
      };
      const at = now();

      if (projection === null) {
        if (input.bootstrap === undefined) fail('queue_uninitialized', `no queue ledger on ${this.store.label}; only a submission initializes a queue`);
        exhausted();
        const ids = { requestId: input.requestId, commitId: candidateCommitId(null, input.requestId), at };
        const actor = actorOn(input.actor, await genesisRepository(input));
        const built = await input.bootstrap(ids, actor);
        refusePlaceholderRoutes(built.operations);
        const genesis = emptyProjection();
        const commit = candidateStep(() => buildCommit(genesis.state, { id: input.requestId, actor, at, ...built }));
        const line = encoder.encode(`${canonicalize(commit as unknown as JsonValue)}\n`);
        candidateStep(() => appendLedger(genesis, line)); // validate the genesis exactly as replay will
        debugEvent('store', 'attempt', { attempt, bootstrap: true });
        // A committed genesis is read back (settle): a just-created ref may lag on a replica.
        const outcome = await this.cas(snapshot.version, [line], commit);
        const settled = await this.settle(outcome, input, actor, attempt, commit);
        if (settled !== null) return this.paced(settled, started);
        await backoff(attempt, outcome, null);
        continue;
      }

      const actor = actorOn(input.actor, projection.repository ?? '');
      const existing = projection.request(input.requestId);
      if (existing !== undefined) return published(await this.replayed(projection, snapshot.version, input, actor), attempt, 0);

      const tip = projection.tip;
      const ids = { requestId: input.requestId, commitId: candidateCommitId(tip, input.requestId), at };
      const prepared = input.prepare(projection, ids);
      if ('noWrite' in prepared) {
        return published({ status: 'no_write', ...prepared.noWrite, projection, version: snapshot.version }, attempt, 0);
      }
      exhausted();
      refusePlaceholderRoutes(prepared.operations);
      const commit = candidateStep(() => buildCommit(projection.state, { id: input.requestId, actor, at, ...prepared }));
      const line = encoder.encode(`${canonicalize(commit as unknown as JsonValue)}\n`);
      // Validate on a fork (the tentative projection); the cached projection is left as it is.
      // A refusal is the candidate's (cache.validate marks it): it names no commit or line.
      const tentative = this.cache.validate(line);
      debugEvent('store', 'attempt', { attempt, bootstrap: false });
      let outcome: CasOutcome;
      try {
        outcome = await this.cas(snapshot.version, [...snapshot.parts!, line], commit);
      } catch (e) {
        this.cache.drop('write_failed');
        throw e;
      }
      if (outcome.status === 'committed') this.cache.confirm(tentative, outcome.version, line);
      else this.cache.drop(outcome.status);
      const settled = await this.settle(outcome, input, actor, attempt, commit);
      if (settled !== null) return this.paced(settled, started);
      await backoff(attempt, outcome, projection);
    }
  }

  /** A final outcome; a commit tells the pacer that attempt (begun at `started`) went through. */
  private paced(outcome: Settled, started: number): Settled {
    if (outcome.status === 'committed') this.pacer.committed(Date.now() - started);
    return outcome;
  }

  /**
   * One compare-and-swap of the ledger given as pieces (the validated ledger, then the new
   * line), with its `store cas` debug event. Stores that can write the pieces as they are get
   * them so; the others get one joined copy.
   */
  private async cas(expected: string | null, parts: readonly Uint8Array[], commit: QueueCommit): Promise<CasOutcome> {
    const started = Date.now();
    const message = commitMessage(commit);
    const bytes = parts.reduce((n, p) => n + p.length, 0);
    const outcome = this.store.compareAndSwapParts !== undefined
      ? await this.store.compareAndSwapParts(expected, parts, message)
      : await this.store.compareAndSwap(expected, parts.length === 1 ? parts[0]! : Buffer.concat(parts), message);
    debugEvent('store', 'cas', { outcome: outcome.status, bytes, ms: since(started) });
    return outcome;
  }

  /** The validated ledger that still retains `commitId`: this projection, or pre-compaction Git history (null: unreachable). */
  history(projection: Projection, commitId: string): Promise<Projection | null> {
    return ledgerHolding(this.store, projection, commitId);
  }

  /** An already committed request id: its committed outcome when the retry means the same request (request-meaning.ts). */
  private async replayed(projection: Projection, version: string | null, input: PublishInput, actor: Actor): Promise<Settled> {
    const commitId = await checkSameRequest((p, id) => this.history(p, id), projection, input, actor);
    return { status: 'request_replayed', commitId, projection, version };
  }

  /** Returns the final outcome, or null to retry (the caller backs off first). */
  private async settle(
    outcome: Awaited<ReturnType<LedgerStore['compareAndSwap']>>,
    input: PublishInput,
    actor: Actor,
    attempt: number,
    commit: QueueCommit,
  ): Promise<Settled | null> {
    if (outcome.status === 'committed') {
      // The cached projection already holds the candidate (validated before the CAS).
      const projection = this.cache.current()?.projection ?? (await this.cache.load()).projection!;
      return published({ status: 'committed', commit, projection, version: outcome.version, attempts: attempt, bootstrap: commit.previous === null }, attempt, commit.operations.length);
    }
    if (outcome.status === 'uncertain') {
      // Resolve by request id before anything else (spec 7.7).
      const { snapshot, projection } = await this.cache.load();
      const found = projection?.request(input.requestId);
      if (projection !== null && found !== undefined) {
        debugEvent('store', 'recovered', { attempt, committed: found.commitId === commit.id, replayed: found.commitId !== commit.id });
        if (found.commitId === commit.id) {
          return published({ status: 'committed', commit, projection, version: snapshot.version!, attempts: attempt, bootstrap: commit.previous === null }, attempt, commit.operations.length);
        }
        return published(await this.replayed(projection, snapshot.version, input, actor), attempt, 0);
      }
      debugEvent('store', 'recovered', { attempt, committed: false, replayed: false });
    }
    input.onRetry?.({ attempt, reason: retryReason(outcome) });
    return null;
  }
}



/**
 * Runs one step of building or validating the candidate commit: a protocol error it throws is
 * the candidate's refusal (`refusedCandidate`: no commit id or ledger line, for the candidate
 * was never written; the operation index and path stay).
 */
export function candidateStep<T>(step: () => T): T {
  try {
    return step();
  } catch (e) {
    throw refusedCandidate(e);
  }
}

/** The actor on a queue of `repository`: one naming no repository is the queue's. */
export function actorOn(actor: PublishingActor, repository: string): Actor {
  if (actor.repository !== undefined) return actor as Actor;
  const { role, principal, ...rest } = actor;
  return { role, principal, repository, ...rest };
}

/** The repository a genesis names: the actor's own, else the caller's `bootstrapRepository`. */
async function genesisRepository(input: PublishInput): Promise<string> {
  if (input.actor.repository !== undefined) return input.actor.repository;
  const given = input.bootstrapRepository;
  if (given === undefined) throw new Error(`request ${input.requestId} bootstraps a queue but names no repository (bootstrapRepository)`);
  return typeof given === 'string' ? given : given();
}

/** The uniform outcome: the settled one with its commit id, replay flag and prepared request. */
function uniform(settled: Settled, prepared: Prepared | null): PublishOutcome {
  if (settled.status === 'committed') return { ...settled, commitId: settled.commit.id, replayed: false, prepared: prepared as BuiltRequest };
  if (settled.status === 'request_replayed') return { ...settled, replayed: true, prepared: null };
  return { ...settled, commitId: null, replayed: false, prepared: prepared as Extract<Prepared, { noWrite: NoWrite }> };
}

function commitMessage(commit: QueueCommit): string {
  return `work-queue: ${commit.request.kind} ${commit.request.id}\n\nQueueCommit ${commit.id}`;
}

function retryReason(outcome: CasOutcome): 'uncertain' | 'conflict' {
  return outcome.status === 'uncertain' ? 'uncertain' : 'conflict';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The `store published` debug event of a final outcome. */
function published(outcome: Settled, attempts: number, operations: number): Settled {
  debugEvent('store', 'published', { outcome: outcome.status, attempts, operations });
  return outcome;
}
