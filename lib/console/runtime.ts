/**
 * The console's server-side state: one ledger store, the one Publisher for
 * administrator actions, a read cache bound to the branch version (spec 7.17)
 * and historical prefixes for `?at=<commit>` permalinks (`Projection.at`, cached).
 *
 * Reads use their own ProjectionCache, never the Publisher's: the Publisher
 * validates a candidate by applying it to its projection before the CAS, and a
 * page must never show a commit that may not land.
 *
 * A failed read keeps serving the last good projection, flagged stale, so the
 * operator keeps a view while the store is unreachable.
 *
 * `history` reads the ledgers earlier checkpoints replaced (spec 7.10, 7.17: through each
 * checkpoint's prior_git_sha), for the views that show facts a checkpoint does not keep.
 */
import { ProtocolError, describeError, isProtocolError } from '../../engine/errors.ts';
import type { CommitInfo, Projection } from '../../engine/replay/index.ts';
import { ProjectionCache } from '../publisher/cache.ts';
import { historyReader, type HistoryReader } from '../publisher/history.ts';
import { Publisher } from '../publisher/publisher.ts';
import type { LedgerStore } from '../store/types.ts';
import type { ConsoleConfig } from './config.ts';
import { consoleGitHubHost } from './store.ts';

/** A failed read: its code only (the store's message can name a URL with credentials; no surface shows it). */
export interface StaleRead {
  code: string;
  /** When reads started failing (ms). */
  since: number;
}

export interface LiveLoad {
  projection: Projection;
  version: string | null;
  /** When this projection was last confirmed against the store (ms). */
  readAt: number;
  stale: StaleRead | null;
}

/** What a page renders: the projection at `at` (or live) and the clock its readiness is evaluated at. */
export interface ViewState {
  live: LiveLoad;
  projection: Projection;
  /** The commit the view is pinned to (`?at=`), or null for the live tip. */
  at: CommitInfo | null;
  /** Evaluation time: the pinned commit's decision time, or now. */
  asOf: number;
  /** Reads the ledgers earlier checkpoints replaced (the runtime's `history`). */
  history: HistoryReader;
}

/** Reads within this window share one store read (many components, one request). */
const READ_DEDUPE_MS = 250;

/** Earlier ledgers kept in memory (each a full replay): one per checkpoint a page walked back through. */
const MAX_EARLIER_LEDGERS = 8;

export class ConsoleRuntime {
  readonly publisher: Publisher;
  readonly readOnly: boolean;
  private readonly cache: ProjectionCache;
  private inflight: Promise<LiveLoad> | null = null;
  private lastGood: LiveLoad | null = null;
  private failingSince: number | null = null;

  /**
   * `githubHost`: the host the console links runs on (store.ts `consoleGitHubHost`: for a
   * GitHub-backed store the host its API root serves, from the process environment by default).
   */
  constructor(readonly config: ConsoleConfig, readonly store: LedgerStore, readonly githubHost: string = consoleGitHubHost(config.source)) {
    this.publisher = new Publisher(store);
    this.cache = new ProjectionCache(store);
    this.readOnly = store.readOnly === true;
    const read = historyReader(store);
    const earlier = new Map<string, Promise<Projection | null>>();
    this.history = (p, commitId) => {
      if (p.commitText(commitId) !== undefined) return Promise.resolve(p);
      // What a checkpoint-rooted ledger replaced is fixed by its root (prior_git_sha, history
      // digest): kept by root, so a page's walk back reads and replays each earlier ledger once.
      const key = `${p.commits[0]?.id ?? ''}\n${commitId}`;
      let found = earlier.get(key);
      if (found === undefined) {
        // A prior Git commit that cannot be read or does not match its checkpoint: the views say
        // where the compacted facts are, as for a ledger file (never a wrong fact).
        found = read(p, commitId).catch((e: unknown) => {
          earlier.delete(key);
          if (isProtocolError(e)) return null;
          throw e;
        });
        earlier.set(key, found);
        while (earlier.size > MAX_EARLIER_LEDGERS) earlier.delete(earlier.keys().next().value!);
      }
      return found;
    };
  }

  /** The ledger retaining commit `commitId`: `p` itself, or an earlier one read through prior_git_sha; null if not reachable. */
  readonly history: HistoryReader;

  now(): number {
    return this.config.fixedNow ?? Date.now();
  }

  /** Forget the read deduplication window (after this process published). */
  invalidate(): void {
    if (this.lastGood !== null) this.lastGood = { ...this.lastGood, readAt: 0 };
  }

  /** The live projection (deduplicated, serialized reads). */
  live(): Promise<LiveLoad> {
    const recent = this.lastGood;
    if (recent !== null && recent.stale === null && Date.now() - recent.readAt < READ_DEDUPE_MS) return Promise.resolve(recent);
    if (this.inflight === null) {
      this.inflight = this.read().finally(() => {
        this.inflight = null;
      });
    }
    return this.inflight;
  }

  private async read(): Promise<LiveLoad> {
    try {
      const { snapshot, projection } = await this.cache.load();
      if (projection === null) throw new ProtocolError('queue_uninitialized', `no queue ledger on the configured branch yet`);
      this.failingSince = null;
      this.lastGood = { projection, version: snapshot.version, readAt: Date.now(), stale: null };
      return this.lastGood;
    } catch (e) {
      // Stores report I/O failures as ProtocolErrors (store_unreachable, github_*); anything else is a bug.
      const { code } = describeError(e);
      this.failingSince ??= Date.now();
      if (this.lastGood === null || code === 'queue_uninitialized') throw e;
      return { ...this.lastGood, stale: { code, since: this.failingSince } };
    }
  }

  /** The view for a page: live, or pinned to `at` (a commit id of the validated ledger). */
  async view(at?: string | null): Promise<ViewState> {
    const live = await this.live();
    if (at === undefined || at === null || at === '' || at === live.projection.tip) {
      const pinned = at ? live.projection.lastCommit : null;
      return { live, projection: live.projection, at: pinned, asOf: pinned?.at ?? this.now(), history: this.history };
    }
    const projection = this.prefix(live.projection, at);
    const info = projection.lastCommit!;
    return { live, projection, at: info, asOf: info.at, history: this.history };
  }

  /** The projection as of commit `id` inclusive, from the validated live ledger (the projection's cached prefix replay). */
  prefix(live: Projection, id: string): Projection {
    if (live.commitPosition(id) === undefined) throw new ProtocolError('unknown_commit', 'that commit is not in the validated ledger');
    return live.at(id);
  }

  /** The projection just before commit `id` (a receipt's source prefix); null for the genesis. */
  before(live: Projection, id: string): Projection | null {
    const index = live.commitPosition(id);
    if (index === undefined) throw new ProtocolError('unknown_commit', 'that commit is not in the validated ledger');
    return index === 0 ? null : live.before(id);
  }
}
