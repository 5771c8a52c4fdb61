/**
 * Pre-compaction history (spec 7.10 "its prior Git commit SHA and canonical history digest
 * retain a pointer to earlier evidence"; 7.17 "Earlier history remains accessible through the
 * referenced Git commit, subject to repository retention"). A checkpoint root names the Git
 * commit whose ledger it replaced; that ledger may itself start with an earlier checkpoint, so
 * the walk follows `prior_git_sha` until a ledger retains the wanted commit.
 *
 * Each earlier ledger is replayed (validated) and must be exactly what the checkpoint replaced
 * (replay/checkpoint.ts `checkReplacedHistory`): its tip is `prior_tip` and its canonical
 * serialization hashes to `history_sha256`, otherwise `checkpoint_history_mismatch`; and the
 * checkpoint's state is that history's replay state, otherwise `checkpoint_state_mismatch` (a
 * forged state is never explained from honest history). A Git commit that is not (or no longer)
 * reachable gives null: callers then say that the evidence was compacted away.
 */
import { grantPlan } from '../../engine/receipts/dispatch.ts';
import { checkReplacedHistory, replayLedger, type Projection } from '../../engine/replay/index.ts';
import { parseQueueCommit, type QueueCommit } from '../../engine/schema/index.ts';
import type { PackResult } from '../../engine/scheduler/pack.ts';
import type { LedgerStore } from '../store/types.ts';

/** Checkpoints followed at most (each one a full ledger read and replay). */
const MAX_DEPTH = 32;

export type HistoryReader = (projection: Projection, commitId: string) => Promise<Projection | null>;

function rootOf(projection: Projection): QueueCommit {
  return parseQueueCommit(JSON.parse(projection.commitText(projection.commits[0]!.id)!));
}

/** The validated ledger a checkpoint-rooted `current` replaced, held to its root; null if unreachable. */
async function priorLedger(store: LedgerStore, current: Projection): Promise<Projection | null> {
  const base = current.checkpoint;
  if (base === undefined || store.readAt === undefined) return null;
  const bytes = await store.readAt(base.priorGitSha);
  if (bytes === null || bytes.length === 0) return null;
  const prior = replayLedger(bytes);
  checkReplacedHistory(rootOf(current), prior);
  return prior;
}

/** The validated ledger that retains commit `commitId`: `projection` itself or one reached through prior_git_sha; null if unreachable. */
export async function ledgerHolding(store: LedgerStore, projection: Projection, commitId: string): Promise<Projection | null> {
  let current: Projection | null = projection;
  for (let depth = 0; depth <= MAX_DEPTH && current !== null; depth++) {
    if (current.commitText(commitId) !== undefined) return current;
    current = await priorLedger(store, current);
  }
  return null;
}

/** What `verify --history` checked: the prior Git commits whose ledgers matched, and where the walk stopped. */
export interface HistoryCheck {
  /** prior_git_sha of each checkpoint root held to its history, newest first. */
  checked: string[];
  /** The prior_git_sha that could not be read (retention, a moved branch), or null. */
  unreachable: string | null;
}

/**
 * Holds every checkpoint root of the chain to the ledger at its prior_git_sha, as far as Git
 * history reaches (at most MAX_DEPTH): `checkpoint_history_mismatch` or
 * `checkpoint_state_mismatch` for a root that is not what it claims to replace.
 */
export async function checkHistory(store: LedgerStore, projection: Projection): Promise<HistoryCheck> {
  const checked: string[] = [];
  let current = projection;
  for (let depth = 0; depth <= MAX_DEPTH && current.checkpoint !== undefined; depth++) {
    const sha = current.checkpoint.priorGitSha;
    const prior = await priorLedger(store, current);
    if (prior === null) return { checked, unreachable: sha };
    checked.push(sha);
    current = prior;
  }
  return { checked, unreachable: null };
}

/** A history reader over `store` (null: the source has no Git history, e.g. a ledger file). */
export function historyReader(store: LedgerStore | null): HistoryReader {
  return async (projection, commitId) => (store === null ? (projection.commitText(commitId) === undefined ? null : projection) : ledgerHolding(store, projection, commitId));
}

/** The packer run of a committed grant, from whichever ledger still retains it (undefined: compacted away). */
export async function historicalGrantPlan(store: LedgerStore, projection: Projection, requestId: string): Promise<PackResult | undefined> {
  const request = projection.request(requestId);
  if (request === undefined) return undefined;
  const holder = await ledgerHolding(store, projection, request.commitId);
  return holder === null ? undefined : grantPlan(holder, requestId);
}

/**
 * `p` and, oldest first before it, the pre-compaction ledgers Git history still has back to one
 * that retains commit `commitId` (each the ledger its successor's checkpoint replaced, read
 * through `history`); as far as Git reaches, and just `[p]` without history (a ledger file).
 */
export async function ledgersBackTo(p: Projection, commitId: string, history?: HistoryReader): Promise<Projection[]> {
  const ledgers = [p];
  for (let at = p; history !== undefined && at.checkpoint !== undefined && at.commitText(commitId) === undefined;) {
    const prior = await history(at, at.checkpoint.priorTip);
    if (prior === null || prior === at) break;
    ledgers.unshift(prior);
    at = prior;
  }
  return ledgers;
}

/** The newest of `ledgers` (oldest first, as `ledgersBackTo` gives them) that retains commit `commitId`, or undefined. */
export function ledgerRetaining(ledgers: readonly Projection[], commitId: string): Projection | undefined {
  for (let i = ledgers.length - 1; i >= 0; i--) if (ledgers[i]!.commitText(commitId) !== undefined) return ledgers[i];
  return undefined;
}

/** `history` reading each earlier ledger once (a command that walks back for several groups or Claims). */
export function memoizedHistory(history?: HistoryReader): HistoryReader | undefined {
  if (history === undefined) return undefined;
  const read = new Map<string, Promise<Projection | null>>();
  return (p, commitId) => {
    const key = `${p.tip}\n${commitId}`;
    if (!read.has(key)) read.set(key, history(p, commitId));
    return read.get(key)!;
  };
}
