/**
 * The per-run dispatch budget (spec 7.12, R21: "An agent can request another batch, but cannot
 * evade limits by emitting many small requests") holds across every processing run of one
 * activation: it is counted in the ledger, under the activation's request-id prefix, not from
 * the intent files the agent controls. Removing processed intents and staging new ones, or a
 * worker's normal step followed by its wrap-up step, does not hand the run its budget again.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activationRequestPrefix } from '../../engine/intents/records.ts';
import { call, grant, intentFiles, makeRepo, memoryClient, processIntents, publisherFor, seedQueue, snapshot, tmp, workerSnapshot } from './helpers.ts';

type Row = { tool: string; status: string; error?: { code: string }; request_id?: string };
const rows = (report: { receipts: Row[] }) => report.receipts.map((r) => [r.tool, r.status, r.error?.code ?? null]);

/** Dispatch groups the ledger holds, other than `except`. */
async function groups(repo: string, except: string[] = []): Promise<number> {
  const { projection } = await publisherFor(repo).cache.load();
  return [...projection!.dispatches()].filter((g) => !except.includes(g.dispatchId)).length;
}

describe('the per-run dispatch budget across processing runs of one activation', () => {
  it('dispatch_budget_blocked: an agent that removes its processed intents and stages more gets no new budget from the same snapshot', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-budget-');
    await seedQueue(repo, Array.from({ length: 8 }, (_, i) => ({ node_key: `n${i}`, payload: { i } })));
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    for (let i = 0; i < 2; i++) await call(client, 'work_queue_dispatch_next', { pool: 'default' });
    const first = await processIntents(repo, snap, intents, '--dispatch-budget', '2');
    expect(rows(first)).toEqual([['work_queue_dispatch_next', 'committed', null], ['work_queue_dispatch_next', 'committed', null]]);
    // The request ids carry the activation's prefix: the ledger tells this run's grants apart.
    const prefix = activationRequestPrefix(first.snapshot_id, 'dispatch_next');
    expect(first.receipts.every((r: Row) => r.request_id!.startsWith(prefix))).toBe(true);

    for (const f of intentFiles(intents)) rmSync(join(intents, f));
    for (let i = 0; i < 2; i++) await call(client, 'work_queue_dispatch_next', { pool: 'default' });
    const second = await processIntents(repo, snap, intents, '--dispatch-budget', '2');
    expect(rows(second)).toEqual([['work_queue_dispatch_next', 'rejected', 'dispatch_budget_blocked'], ['work_queue_dispatch_next', 'rejected', 'dispatch_budget_blocked']]);
    expect(await groups(repo)).toBe(2);

    // Another activation (a new snapshot) has a budget of its own.
    const next = await snapshot(repo, 'dispatcher', dir);
    const more = join(dir, 'intents-2');
    await call(await memoryClient(next, more), 'work_queue_dispatch_next', { pool: 'default' });
    expect(rows(await processIntents(repo, next, more, '--dispatch-budget', '2'))).toEqual([['work_queue_dispatch_next', 'committed', null]]);
    expect(await groups(repo)).toBe(3);
  });

  it('a worker\'s normal step and its wrap-up step share one budget, however the intent files change between them', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-budget-w-');
    await seedQueue(repo, Array.from({ length: 10 }, (_, i) => ({ node_key: `n${i}`, payload: { i } })));
    const [assignment] = await grant(repo, 'g-worker', 1);
    const snap = await workerSnapshot(repo, dir, assignment!, '3131');
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    await call(client, 'work_queue_claim_finish', { outcome: 'completed' });
    for (let i = 0; i < 2; i++) await call(client, 'work_queue_dispatch_next', { pool: 'default' });
    const step1 = await processIntents(repo, snap, intents, '--dispatch-budget', '2');
    expect(rows(step1).filter(([tool]) => tool === 'work_queue_dispatch_next')).toEqual([['work_queue_dispatch_next', 'committed', null], ['work_queue_dispatch_next', 'committed', null]]);
    for (const f of intentFiles(intents)) rmSync(join(intents, f));
    for (let i = 0; i < 2; i++) await call(client, 'work_queue_dispatch_next', { pool: 'default' });
    const step2 = await processIntents(repo, snap, intents, '--dispatch-budget', '2', '--wrap-up');
    expect(rows(step2).filter(([tool]) => tool === 'work_queue_dispatch_next')).toEqual([['work_queue_dispatch_next', 'rejected', 'dispatch_budget_blocked'], ['work_queue_dispatch_next', 'rejected', 'dispatch_budget_blocked']]);
    expect(await groups(repo, [assignment!.dispatch_id as string])).toBe(2);
  });
});
