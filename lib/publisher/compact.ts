/**
 * Compaction (spec 7.10, 7.17): replace the validated ledger prefix with one
 * version-3 checkpoint root that records the prior Git commit and the history
 * digest. Published by compare-and-swap like every other write; the new
 * ledger is validated by replaying it before it is written.
 */
import { canonicalize } from '../../engine/codec/index.ts';
import { fail } from '../../engine/errors.ts';
import type { JsonValue } from '../../engine/json.ts';
import { buildCheckpointCommit, replayLedger, summarize } from '../../engine/replay/index.ts';
import type { QueueCommit } from '../../engine/schema/index.ts';
import { actorOn, candidateStep, type Publisher, type PublishingActor } from './publisher.ts';

export interface CompactOutcome {
  status: 'committed' | 'already_compact';
  commit: QueueCommit | null;
  version: string | null;
  replaced_commits: number;
  bytes_before: number;
  bytes_after: number;
}

const encoder = new TextEncoder();

export async function compact(publisher: Publisher, actor: PublishingActor, now: () => number = Date.now): Promise<CompactOutcome> {
  const { snapshot, projection } = await publisher.cache.load();
  if (projection === null || snapshot.version === null || snapshot.parts === null) {
    fail('queue_uninitialized', `no queue on ${publisher.store.label} to compact`);
  }
  if (projection.commitCount === 1 && projection.checkpoint !== undefined) {
    return { status: 'already_compact', commit: null, version: snapshot.version, replaced_commits: 0, bytes_before: snapshot.length, bytes_after: snapshot.length };
  }
  const at = Math.max(now(), projection.lastCommit!.at);
  const commit = buildCheckpointCommit(projection, { priorGitSha: snapshot.version, actor: actorOn(actor, projection.repository ?? ''), at });
  const bytes = encoder.encode(`${canonicalize(commit as unknown as JsonValue)}\n`);
  // The compacted ledger must replay to the same projection before it replaces anything
  // (a refusal is the candidate's: the checkpoint was never written).
  const check = summarize(candidateStep(() => replayLedger(bytes)));
  const before = summarize(projection);
  if (JSON.stringify(check.works) !== JSON.stringify(before.works) || JSON.stringify(check.claims) !== JSON.stringify(before.claims)) {
    fail('checkpoint_invalid', 'the checkpoint does not reproduce the projection it replaces');
  }
  const outcome = await publisher.store.compareAndSwap(snapshot.version, bytes, `work-queue: checkpoint ${commit.request.id}\n\nreplaces ${projection.commitCount} commits up to ${projection.tip}`);
  publisher.cache.discard();
  if (outcome.status === 'conflict') {
    // Another compact won the race: the ledger is compact now, which is what was asked for.
    const moved = await publisher.cache.load();
    if (moved.projection !== null && moved.projection.commitCount === 1 && moved.projection.checkpoint !== undefined) {
      return { status: 'already_compact', commit: null, version: moved.snapshot.version, replaced_commits: 0, bytes_before: moved.snapshot.length, bytes_after: moved.snapshot.length };
    }
    fail('publish_conflict', 'the queue branch moved while compacting; nothing was replaced, run compact again');
  }
  if (outcome.status === 'uncertain') fail('publish_uncertain', `the compaction write may or may not have landed (${outcome.reason}); read the branch before retrying`);
  return { status: 'committed', commit, version: outcome.version, replaced_commits: projection.commitCount, bytes_before: snapshot.length, bytes_after: bytes.length };
}
