/**
 * The operating envelope at the agent surface (spec 7.17, issue 11 §4): `work_queue_read`
 * carries the snapshot's remaining budget, and staging a submit or dispatch_next whose commit
 * could not be admitted is refused with `ledger_limit` before anything is staged. A planted
 * intent that skips the server is refused at publication by replay with the same code.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branchTip, call, forgeIntent, intentFiles, makeRepo, memoryClient, processIntents, seedQueue, snapshot, tmp } from './helpers.ts';
import { git } from './helpers.ts';

const SEED = [{ node_key: 'seed', payload: { plan: 'seed', pad: 'x'.repeat(6000) } }];
const ledgerSize = (repo: string): number => Buffer.byteLength(`${git(repo, 'show', 'refs/heads/work-queue:work-queue.jsonl')}\n`);

/** A queue whose admission watermark leaves exactly `remaining` bytes after its genesis. */
async function queueWithRemaining(remaining: number): Promise<{ repo: string; watermark: number; size: number }> {
  const probe = makeRepo();
  await seedQueue(probe, SEED, { limits: { ledger_bytes: 99999 } });
  const size = ledgerSize(probe);
  const repo = makeRepo();
  const watermark = size + remaining;
  expect(String(watermark).length, 'the watermark keeps the placeholder\u2019s length').toBe(5);
  await seedQueue(repo, SEED, { limits: { ledger_bytes: watermark } });
  expect(ledgerSize(repo)).toBe(size);
  return { repo, watermark, size };
}

describe('MCP: the snapshot carries the remaining budget; plans that cannot be admitted are ledger_limit at staging', () => {
  it('work_queue_read reports the envelope; a submit larger than the remaining budget is refused, a small one is staged and committed', async () => {
    const { repo, watermark, size } = await queueWithRemaining(3000);
    const dir = tmp('fairway-envelope-mcp-');
    const snap = await snapshot(repo, 'producer', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);

    const read = await call(client, 'work_queue_read', {});
    expect(read.value.envelope).toMatchObject({ bytes: size, ledger_bytes: watermark, admission_remaining: 3000, level: 'near_watermark' });
    expect(read.value.envelope.reserve).toBeGreaterThan(0);

    const big = await call(client, 'work_queue_submit', { node: { payload: { plan: 'x'.repeat(3000) } } });
    expect(big).toMatchObject({ ok: false, code: 'ledger_limit' });
    expect(big.value).toContain('watermark');
    expect(intentFiles(intents), 'nothing staged').toEqual([]);

    const small = await call(client, 'work_queue_submit', { node: { payload: { plan: 'small' } } });
    expect(small.value.status).toBe('staged');
    const report = await processIntents(repo, snap, intents);
    expect(report.receipts.map((r: { status: string }) => r.status)).toEqual(['committed']);
    expect(ledgerSize(repo)).toBeLessThanOrEqual(watermark);
  });

  it('at the watermark a dispatch_next and any submit are refused at staging; a planted dispatch_next is ledger_limit at publication and commits nothing', async () => {
    const { repo, watermark } = await queueWithRemaining(10);
    const dir = tmp('fairway-envelope-mcp-');
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);

    const read = await call(client, 'work_queue_read', {});
    expect(read.value.envelope).toMatchObject({ ledger_bytes: watermark, admission_remaining: 10, level: 'near_watermark' });
    expect(await call(client, 'work_queue_dispatch_next', { pool: 'default' })).toMatchObject({ ok: false, code: 'ledger_limit' });
    expect(await call(client, 'work_queue_submit', { node: { payload: { plan: 'p' } } })).toMatchObject({ ok: false, code: 'ledger_limit' });
    expect(intentFiles(intents)).toEqual([]);

    const planted = tmp('fairway-envelope-planted-');
    forgeIntent(planted, snap, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    const tip = branchTip(repo);
    const report = await processIntents(repo, snap, planted);
    expect(report.receipts.map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code])).toEqual([['rejected', 'ledger_limit']]);
    expect(branchTip(repo)).toBe(tip);
  });
});
