/**
 * Role gating (spec 7.12 "Observers, origins and worker authority"): the
 * trusted snapshot role decides which tools stage anything. Observers only
 * read and explain; producers submit; dispatchers also dispatch; only an
 * assigned worker finishes Claims. Rejections write nothing.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  branchTip, call, forgeIntent, grant, intentFiles, makeRepo, memoryClient, nodes, processIntents, seedQueue, snapshot, tmp,
} from './helpers.ts';

let repo: string;
let dir: string;
let claimId: string;

beforeAll(async () => {
  repo = makeRepo();
  dir = tmp('fairway-roles-');
  await seedQueue(repo, nodes('a', 'b', 'c'));
  const [assignment] = await grant(repo, 'grant-a', 1);
  claimId = (assignment!.claims as Array<{ claim_id: string }>)[0]!.claim_id;
});

describe('role gating', () => {
  it('an observer can read and explain, and nothing else', async () => {
    const snap = await snapshot(repo, 'observer', dir);
    const intents = join(dir, 'observer');
    const client = await memoryClient(snap, intents);
    const read = await call(client, 'work_queue_read', { state: 'available', sort: 'priority' });
    expect(read.value.works.items.map((w: { node_key: string }) => w.node_key)).toEqual(['b', 'c']);
    expect(read.value.works.items[0]).toMatchObject({ eligible: true, blocked_reason: null });
    const pool = await call(client, 'work_queue_explain', { pool: 'default' });
    expect(pool.value).toMatchObject({ kind: 'pool', reason: 'fifo_default', provenance: { label: 'activation_snapshot' }, explanation: { work: { node_key: 'b' } } });
    const claim = await call(client, 'work_queue_explain', { claim_id: claimId });
    expect(claim.value).toMatchObject({ kind: 'claim', claim_id: claimId, reason: 'fifo_default', explanation: { work: { node_key: 'a' } } });
    const work = await call(client, 'work_queue_explain', { work_id: read.value.works.items[1].work_id });
    expect(work.value).toMatchObject({ kind: 'work', next_is_this_work: false, eligibility: { eligible: true } });

    // Spec 7.12 "Read-only observers expose read/explain only": no mutation tool is listed, and calling one stages nothing.
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['work_queue_explain', 'work_queue_read']);
    for (const [tool, args] of [
      ['work_queue_submit', { node: { payload: { p: 1 } } }],
      ['work_queue_dispatch_next', { pool: 'default' }],
      ['work_queue_claim_finish', { outcome: 'completed' }],
    ] as const) {
      expect((await call(client, tool, args)).ok, tool).toBe(false);
    }
    expect(intentFiles(intents)).toEqual([]);

    // Files planted in an observer's intents directory are rejected by the processor too.
    const planted = join(dir, 'observer-planted');
    forgeIntent(planted, snap, 'work_queue_submit', { node: { payload: { p: 1 } } });
    forgeIntent(planted, snap, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    const tip = branchTip(repo);
    const report = await processIntents(repo, snap, planted);
    expect(report.receipts.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['role_not_allowed', 'role_not_allowed']);
    expect(branchTip(repo)).toBe(tip);
  });

  it('a producer submits but cannot dispatch or finish; unassigned roles cannot name a Claim handle', async () => {
    const producer = await memoryClient(await snapshot(repo, 'producer', dir), join(dir, 'producer'));
    expect((await producer.listTools()).tools.map((t) => t.name).sort()).toEqual(['work_queue_explain', 'work_queue_read', 'work_queue_submit']);
    expect((await call(producer, 'work_queue_submit', { node: { payload: { p: 1 } } })).value.status).toBe('staged');
    expect((await call(producer, 'work_queue_dispatch_next', { pool: 'default' })).ok).toBe(false);
    expect((await call(producer, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' })).ok).toBe(false);

    const dispatcher = await memoryClient(await snapshot(repo, 'dispatcher', dir), join(dir, 'dispatcher'));
    expect((await dispatcher.listTools()).tools.map((t) => t.name)).not.toContain('work_queue_claim_finish');
    expect((await call(dispatcher, 'work_queue_claim_finish', { outcome: 'completed' })).ok).toBe(false);
    expect(await call(dispatcher, 'work_queue_submit', { claim_handle: 'h1', node: { payload: {} } })).toMatchObject({ ok: false, code: 'claim_scope_invalid' });
    expect(intentFiles(join(dir, 'dispatcher'))).toEqual([]);
  });

  it('an edited intent file or one staged against another snapshot is rejected, not reinterpreted', async () => {
    const snapA = await snapshot(repo, 'dispatcher', dir);
    const snapB = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'mixed');
    forgeIntent(intents, snapA, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    const client = await memoryClient(snapB, intents);
    await call(client, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    const file = join(intents, readdirSync(intents).filter((n) => n.endsWith('.intent.json')).sort()[1]!);
    const record = JSON.parse(readFileSync(file, 'utf8'));
    record.input.max_claims = 200; // edited after staging
    writeFileSync(file, JSON.stringify(record));
    const tip = branchTip(repo);
    const report = await processIntents(repo, snapB, intents);
    expect(report.receipts.map((r: { error?: { code: string } }) => r.error?.code).sort()).toEqual(['intent_invalid', 'intent_snapshot_mismatch']);
    expect(branchTip(repo)).toBe(tip);
  });
});
