/**
 * Staging (spec 7.12): a tool call becomes one immutable intent file after the
 * same admission check the trusted processor repeats (closed schema, role
 * gate, Claim-scope normalization against the original assignment, agent
 * limits), plus the operating envelope on the snapshot (a submit or dispatch_next whose
 * commit could not be admitted is `ledger_limit`, engine/intents/envelope.ts). Staging returns
 * `{intent_id, status: "staged"}`, never a Claim: nothing durable happens until trusted
 * processing publishes it.
 */
import { fail } from '../engine/errors.ts';
import { checkIntent } from '../engine/intents/check.ts';
import { checkStagingEnvelope } from '../engine/intents/envelope.ts';
import { workerActor } from '../engine/lifecycle/finish.ts';
import type { Actor } from '../engine/schema/index.ts';
import type { IntentRecord } from '../engine/intents/records.ts';
import type { StagingTool } from '../engine/intents/schemas.ts';
import type { LoadedSnapshot } from '../lib/intents/snapshot.ts';
import type { IntentStore } from '../lib/intents/store.ts';
import { actorOf } from '../lib/publisher/actor.ts';
import { actorOn } from '../lib/publisher/publisher.ts';

export interface Staged {
  ok: true;
  intent_id: string;
  status: 'staged';
  /** The canonical Claim handle this message is attributed to (workers only). */
  claim_handle?: string;
}

export async function stageIntent(loaded: LoadedSnapshot, store: IntentStore, tool: StagingTool, raw: unknown, now: number): Promise<Staged> {
  const { snapshot } = loaded;
  const intent = checkIntent({ role: snapshot.role, assignment: loaded.assignment, projection: loaded.projection, createdAt: snapshot.created_at }, tool, raw);
  checkStagingEnvelope({ projection: loaded.projection, snapshotId: snapshot.snapshot_id, createdAt: snapshot.created_at, actor: stagingActor(loaded) }, intent);
  const handle = intent.scope === null ? {} : { claim_handle: intent.scope.claim_handle };
  // One finish per Claim: repeating the same outcome is idempotent, a different one is a conflict
  // (7.14). Checked inside the store's serialized staging, so concurrent calls cannot both pass.
  const existing = intent.tool !== 'work_queue_claim_finish' ? undefined : (records: readonly IntentRecord[]): IntentRecord | undefined => {
    const earlier = records.find((r) => r.snapshot_id === snapshot.snapshot_id && r.tool === tool && r.scope?.claim_handle === intent.scope.claim_handle);
    if (earlier !== undefined && earlier.input.outcome !== intent.input.outcome) {
      fail('finish_conflict', `Claim ${intent.scope.claim_handle} already has a staged ${String(earlier.input.outcome)} finish`);
    }
    return earlier;
  };
  const record = await store.stage({ snapshotId: snapshot.snapshot_id, tool, input: intent.input as Record<string, unknown>, scope: intent.scope, now, ...(existing === undefined ? {} : { existing }) });
  return { ok: true, intent_id: record.intent_id, status: 'staged', ...handle };
}

/** The actor trusted processing publishes a staged intent as (its bytes size the envelope check). */
function stagingActor(loaded: LoadedSnapshot): Actor {
  const { snapshot, projection, assignment } = loaded;
  const repository = projection?.repository ?? snapshot.origin.repository ?? '';
  if (snapshot.role === 'worker' && projection !== null && assignment !== null) {
    const runId = snapshot.native_run?.run_id ?? (projection.dispatch(assignment.dispatch_id)?.run as { run_id?: string } | null)?.run_id ?? '0';
    return workerActor(projection, assignment.dispatch_id, runId, assignment.claims[0]?.handle);
  }
  return actorOn(actorOf(snapshot.role === 'dispatcher' ? 'dispatcher' : 'producer', snapshot.origin.principal), repository);
}
