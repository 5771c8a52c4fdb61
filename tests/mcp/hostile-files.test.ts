/**
 * The agent controls the intent directory, so the trusted step reads it as hostile: a file named
 * like an intent that is a symbolic link, a FIFO or too large is one rejected receipt
 * (`intent_unreadable`) while the valid intents are processed; a link's target is never read (its
 * text never reaches receipts.json or summary.md); an `assignments/` link is refused before
 * anything is published, as is anything but a regular file at an assignment file's name; and
 * receipts planted before the run never survive it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatchId } from '../../engine/identity/index.ts';
import { intentRequestId } from '../../engine/intents/records.ts';
import { INTENT_FILE_MAX_BYTES } from '../../lib/intents/store.ts';
import { branchTip, call, cli, forgeIntent, makeRepo, memoryClient, processIntents, seedQueue, snapshot, tmp } from './helpers.ts';

async function dispatcherQueue(n: number): Promise<{ repo: string; intents: string; snap: string; dir: string }> {
  const repo = makeRepo();
  const dir = tmp('fairway-hostile-');
  await seedQueue(repo, Array.from({ length: n }, (_, i) => ({ node_key: `n${i}`, payload: { i } })));
  const snap = await snapshot(repo, 'dispatcher', dir);
  const intents = join(dir, 'intents');
  expect((await call(await memoryClient(snap, intents), 'work_queue_dispatch_next', { pool: 'default' })).ok).toBe(true);
  return { repo, intents, snap, dir };
}

const intentName = (seq: number, c: string) => `${String(seq).padStart(6, '0')}-i_${c.repeat(32)}.intent.json`;

describe('a hostile intent directory', () => {
  it('intent_unreadable: a symbolic link named like an intent is not followed; its target\'s text reaches no receipt; the valid intent commits', async () => {
    const { repo, intents, snap, dir } = await dispatcherQueue(2);
    const secret = join(dir, 'secret-token');
    writeFileSync(secret, 'ghp_SECRETSECRETSECRET1234567890\n');
    symlinkSync(secret, join(intents, intentName(2, 'c')));
    const report = await processIntents(repo, snap, intents);
    const rejected = report.receipts.filter((r: { status: string }) => r.status === 'rejected');
    expect(rejected).toEqual([expect.objectContaining({ error: { code: 'intent_unreadable', message: expect.stringMatching(/is a symbolic link: only regular files are read$/) } })]);
    expect(report.counts.committed).toBe(1);
    expect(readFileSync(join(intents, 'receipts.json'), 'utf8')).not.toContain('SECRET');
    expect(readFileSync(join(intents, 'summary.md'), 'utf8')).not.toContain('SECRET');
  });

  it('intent files are written compact (one line): a deeply nested input is not multiplied by indentation past what the processor reads', async () => {
    const { intents } = await dispatcherQueue(1);
    const [name] = readdirSync(intents).filter((n) => n.endsWith('.intent.json'));
    const text = readFileSync(join(intents, name!), 'utf8');
    expect(text.trimEnd().split('\n')).toHaveLength(1);
    expect(text).toBe(`${JSON.stringify(JSON.parse(text))}\n`);
  });

  it('intent_unreadable: a FIFO named like an intent is refused without waiting for a writer', async () => {
    const { repo, intents, snap } = await dispatcherQueue(2);
    expect(spawnSync('mkfifo', [join(intents, intentName(2, 'b'))]).status).toBe(0);
    const report = await processIntents(repo, snap, intents);
    expect(report.receipts.map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code ?? null])).toEqual([['committed', null], ['rejected', 'intent_unreadable']]);
  });

  it('intent_unreadable: an intent file over the limit (a sparse 600 MiB one) is refused before it is read, not an internal error; the valid intent commits', async () => {
    const { repo, intents, snap } = await dispatcherQueue(2);
    const big = join(intents, intentName(2, 'a'));
    writeFileSync(big, '');
    truncateSync(big, 600 * 1024 * 1024);
    const report = await processIntents(repo, snap, intents);
    const rejected = report.receipts.find((r: { status: string }) => r.status === 'rejected');
    expect(rejected.error).toEqual({ code: 'intent_unreadable', message: expect.stringContaining(`is 629145600 bytes, more than the ${INTENT_FILE_MAX_BYTES} it can be`) });
    expect(report.counts.committed).toBe(1);
    // The MCP server reads the same directory: its read tool answers too.
    expect((await call(await memoryClient(snap, intents), 'work_queue_read')).ok).toBe(true);
  });

  it('output_unwritable: an assignments/ link (or file) in the receipts directory is refused before anything is published', async () => {
    const { repo, intents, snap, dir } = await dispatcherQueue(2);
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(intents, 'assignments'));
    const tip = branchTip(repo);
    const r = await cli('--repo', repo, 'process-intents', '--snapshot', snap, '--intents', intents);
    expect([r.code, r.json.error.code]).toEqual([3, 'output_unwritable']);
    expect(r.json.error.message).toMatch(/assignments is a symbolic link/);
    expect(branchTip(repo)).toBe(tip);
    expect(existsSync(join(elsewhere, 'x'))).toBe(false);
  });

  it('output_unwritable: a directory planted at the predictable assignments/<dispatch id>.json is refused before the grant is published, not an internal error after it', async () => {
    const { repo, intents, snap } = await dispatcherQueue(2);
    // The agent knows its intent id and the snapshot id, so it can derive the grant's dispatch id.
    const [file] = readdirSync(intents).filter((n) => n.endsWith('.intent.json'));
    const intentId = /-(i_[0-9a-f]{32})\.intent\.json$/.exec(file!)![1]!;
    const requestId = intentRequestId(JSON.parse(readFileSync(snap, 'utf8')).snapshot_id, intentId, 'dispatch_next');
    const planted = join(intents, 'assignments', `${dispatchId(requestId, 1)}.json`);
    mkdirSync(join(planted, 'x'), { recursive: true });
    const tip = branchTip(repo);
    const r = await cli('--repo', repo, 'process-intents', '--snapshot', snap, '--intents', intents);
    expect([r.code, r.json?.error?.code], JSON.stringify(r.json)).toEqual([3, 'output_unwritable']);
    expect(r.json.error.message).toContain('is not a regular file');
    expect(branchTip(repo)).toBe(tip);
    rmSync(planted, { recursive: true });
    const report = await processIntents(repo, snap, intents);
    expect(report.counts.committed).toBe(1);
    expect(report.files.assignments).toEqual([join('assignments', `${dispatchId(requestId, 1)}.json`)]);
    expect(JSON.parse(readFileSync(planted, 'utf8')).dispatch_id).toBe(dispatchId(requestId, 1));
  });

  it('receipts stay bounded: unknown member names of a planted intent (in its input or its own record) are repeated a few at a time, each cut short', async () => {
    const { repo, intents, snap } = await dispatcherQueue(2);
    const input: Record<string, unknown> = { pool: 'default', max_claims: 1, max_dispatches: 1 };
    for (let i = 0; i < 40; i++) input[`${'k'.repeat(20_000)}${i}`] = 1;
    forgeIntent(intents, snap, 'work_queue_dispatch_next', input);
    forgeIntent(intents, snap, 'work_queue_submit', { node: { payload: {}, ['z'.repeat(300_000)]: 1 } });
    const record = join(intents, intentName(9, 'd'));
    const snapshotId = JSON.parse(readFileSync(snap, 'utf8')).snapshot_id;
    writeFileSync(record, JSON.stringify({
      schema: 'fairway.intent/1', intent_id: `i_${'d'.repeat(32)}`, seq: 9, tool: 'work_queue_dispatch_next', snapshot_id: snapshotId,
      staged_at: 1, input: { pool: 'default' }, scope: null, fingerprint: '0'.repeat(64), ['y'.repeat(300_000)]: 1,
    }));
    const report = await processIntents(repo, snap, intents);
    expect(report.counts).toMatchObject({ committed: 1, rejected: 3 });
    const refused = report.receipts.filter((r: { status: string }) => r.status === 'rejected');
    expect(refused.map((r: { error: { code: string } }) => r.error.code).sort()).toEqual(['field_not_allowed', 'field_not_allowed', 'intent_invalid']);
    for (const r of refused) expect(r.error.message.length, r.error.message.slice(0, 200)).toBeLessThan(1000);
    expect(readFileSync(join(intents, 'receipts.json'), 'utf8').length).toBeLessThan(20_000);
  });

  it('a snapshot of another queue seeded with the same request id (so the same genesis commit id) is snapshot_foreign, and publishes nothing', async () => {
    const { intents, snap } = await dispatcherQueue(2);
    const other = makeRepo();
    await seedQueue(other, [{ node_key: 'n0', payload: { i: 0 } }, { node_key: 'n1', payload: { i: 1 } }]);
    const tip = branchTip(other);
    const r = await cli('--repo', other, 'process-intents', '--snapshot', snap, '--intents', intents);
    expect([r.code, r.json?.error?.code], JSON.stringify(r.json)).toEqual([3, 'snapshot_foreign']);
    expect(r.json.error.message).toMatch(/is not the snapshot's/);
    expect(branchTip(other)).toBe(tip);
  });

  it('receipts planted before the run (a forged summary.md) are removed before processing, so a failed run leaves none standing', async () => {
    const { repo, intents, snap } = await dispatcherQueue(2);
    writeFileSync(join(intents, 'summary.md'), 'FORGED: 5 committed\n');
    writeFileSync(join(intents, 'receipts.json'), '{"forged":true}\n');
    // The run fails after the receipts directory is checked: a repository without the snapshot's queue.
    const other = makeRepo();
    const failed = await cli('--repo', other, 'process-intents', '--snapshot', snap, '--intents', intents);
    expect([failed.code, failed.json?.error?.code], JSON.stringify(failed.json)).toEqual([3, 'snapshot_foreign']);
    expect(existsSync(join(intents, 'summary.md'))).toBe(false);
    expect(existsSync(join(intents, 'receipts.json'))).toBe(false);
    const ok = await processIntents(repo, snap, intents);
    expect(ok.counts.committed).toBe(1);
    expect(readFileSync(join(intents, 'summary.md'), 'utf8')).not.toContain('FORGED');
    expect(JSON.parse(readFileSync(join(intents, 'receipts.json'), 'utf8')).forged).toBeUndefined();
  });
});
