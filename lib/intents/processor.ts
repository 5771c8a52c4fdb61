/**
 * The trusted intent processor (spec 7.12 "Minimal MCP intent surface",
 * 7.14): reads the staged intents of one activation snapshot, re-checks each
 * one exactly as the MCP server did (it never trusts the agent's files),
 * binds it to a stable request id, and publishes it through the checked
 * publisher against the live queue. Producers and dispatchers publish in
 * staging order; a worker's Claims settle one by one (`worker.ts`).
 * Retrying the processor reuses every request id, so nothing is charged twice.
 */
import { stat } from 'node:fs/promises';
import { fail } from '../../engine/errors.ts';
import { checkIntent, checkRecordedScope, type IntentContext } from '../../engine/intents/check.ts';
import type { StagingTool } from '../../engine/intents/schemas.ts';
import { hasCommitted } from '../../engine/receipts/committed.ts';
import type { Publisher } from '../publisher/publisher.ts';
import { clearReceipts, countStatuses, RECEIPTS_SCHEMA, writeReceipts, type IntentReceipt, type ProcessReport } from './receipts.ts';
import { refuseLinkedDirectory } from './files.ts';
import { rejected, Session, type Checked } from './session.ts';
import type { LoadedSnapshot } from './snapshot.ts';
import { ensureDirectory, type IntentStore } from './store.ts';
import { settleWorker } from './worker.ts';
import { debugEvent } from '../debug/log.ts';

export const DEFAULT_DISPATCH_BUDGET = 8;

export interface ProcessOptions {
  loaded: LoadedSnapshot;
  intents: IntentStore;
  publisher: Publisher;
  /** Where receipts.json, summary.md and assignments/ are written. */
  receiptsDir: string;
  /** Queue repository, used only when a submission bootstraps an absent queue (asked only then). */
  repository: string | (() => Promise<string> | string);
  /** Dispatch groups this run may reserve in total (default 8). */
  dispatchBudget?: number;
  /** Final wrap-up of a worker: cancel effective Claims that have no finish intent. */
  wrapUp?: boolean;
  now?: () => number;
}

function order(receipts: IntentReceipt[]): IntentReceipt[] {
  return receipts
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.seq ?? Number.MAX_SAFE_INTEGER) - (b.r.seq ?? Number.MAX_SAFE_INTEGER) || a.i - b.i)
    .map(({ r }) => r);
}

const INTENT_KINDS: Readonly<Record<string, 'submit' | 'dispatch_next' | 'claim_finish'>> = {
  work_queue_submit: 'submit',
  work_queue_dispatch_next: 'dispatch_next',
  work_queue_claim_finish: 'claim_finish',
};

export async function processIntents(o: ProcessOptions): Promise<ProcessReport> {
  const { snapshot } = o.loaded;
  // Receipts have somewhere to go before anything is published (never a commit without its receipt):
  // a directory of the trusted step's own (not a link the agent placed for assignments/), and no
  // receipts of an earlier or planted run that a failure of this one would leave standing.
  // The intents directory first: a file or another non-directory there is the caller's setting,
  // named as such (the receipts directory defaults to it and would only say it cannot be created).
  const directory = await stat(o.intents.dir).then((st) => st.isDirectory(), () => null);
  if (directory === false) fail('intents_unreadable', `the intent directory ${o.intents.dir} is not a directory`, {}, { path: o.intents.dir });
  await ensureDirectory(o.receiptsDir, 'output_unwritable', 'the receipts directory');
  await refuseLinkedDirectory(o.receiptsDir, 'assignments');
  await clearReceipts(o.receiptsDir);
  const current = (await o.publisher.cache.load()).projection;
  // A snapshot taken before a compaction names a commit the checkpoint replaced: still this history.
  if (snapshot.tip !== null && (current === null || !hasCommitted(current, snapshot.tip))) {
    fail('snapshot_foreign', `the live queue does not contain the snapshot tip ${snapshot.tip}: the snapshot belongs to another queue or history`);
  }
  // A commit id is derived from (predecessor, request id): two queues seeded alike share their
  // genesis id. The same id must also be the same record, of the same repository's queue.
  const seen = snapshot.tip === null ? undefined : o.loaded.projection?.commitText(snapshot.tip);
  const recorded = snapshot.tip === null || current === null ? undefined : current.commitText(snapshot.tip);
  if ((seen !== undefined && recorded !== undefined && seen !== recorded)
    || (current !== null && snapshot.origin.repository !== null && current.repository !== null && current.repository !== snapshot.origin.repository)) {
    fail('snapshot_foreign', `the live queue's commit ${String(snapshot.tip)} is not the snapshot's (another queue seeded with the same request ids, or another repository)`);
  }
  const { records, invalid } = await o.intents.list();
  const receipts: IntentReceipt[] = invalid.map((f) => ({
    intent_id: null, seq: null, tool: 'unknown', status: 'rejected', file: f.file, error: { code: f.code, message: f.message },
  }));
  const ctx: IntentContext = { role: snapshot.role, assignment: o.loaded.assignment, projection: o.loaded.projection, createdAt: snapshot.created_at };
  const checked: Checked[] = [];
  for (const record of records) {
    try {
      if (record.snapshot_id !== snapshot.snapshot_id) {
        fail('intent_snapshot_mismatch', `intent ${record.intent_id} was staged against another activation snapshot`);
      }
      const intent = checkIntent(ctx, record.tool as StagingTool, record.input, record.intent_id);
      checkRecordedScope(record.scope, intent.scope);
      checked.push({ record, intent });
    } catch (e) {
      receipts.push(rejected(record, e));
    }
  }

  const session = new Session({
    loaded: o.loaded,
    publisher: o.publisher,
    repository: o.repository,
    dispatchBudget: o.dispatchBudget ?? DEFAULT_DISPATCH_BUDGET,
  });
  if (snapshot.role === 'worker') {
    receipts.push(...(await settleWorker(session, checked, { wrapUp: o.wrapUp === true })));
  } else {
    for (const c of checked) {
      try {
        const actor = session.actorFor();
        receipts.push(c.intent.tool === 'work_queue_submit' ? await session.submit(c, actor) : await session.dispatch(c, actor));
      } catch (e) {
        receipts.push(rejected(c.record, e));
      }
    }
  }

  const ordered = order(receipts);
  for (const r of ordered) debugEvent('intents', 'intent', { kind: INTENT_KINDS[r.tool] ?? 'other', status: r.status });
  debugEvent('intents', 'processed', { intents: ordered.length, ...countStatuses(ordered) });
  const live = await session.live().catch(() => null);
  return writeReceipts(o.receiptsDir, {
    ok: true,
    schema: RECEIPTS_SCHEMA,
    snapshot_id: snapshot.snapshot_id,
    role: snapshot.role,
    source_tip: snapshot.tip,
    observed_tip: live?.tip ?? null,
    processed_at: (o.now ?? Date.now)(),
    counts: countStatuses(ordered),
    receipts: ordered,
  }, session.assignments);
}
