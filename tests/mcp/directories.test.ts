/**
 * The intent and receipt directories are the caller's settings: a file in their place or no
 * permission is a named error (`intents_unreadable`, `intents_unwritable`, `output_unwritable`,
 * exit 3), never `internal_error`, and receipts have somewhere to go before anything is
 * published, so no commit is made without its receipt.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branchTip, call, cli, makeRepo, memoryClient, nodes, seedQueue, snapshot, tmp } from './helpers.ts';

describe('intent and receipt directories', () => {
  it('a file in the intent directory\'s place: the MCP tools and process-intents name it; an uncreatable receipts directory publishes nothing', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-dirs-');
    await seedQueue(repo, nodes('a'));
    const snap = await snapshot(repo, 'dispatcher', dir);
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, 'x\n');

    const blocked = await memoryClient(snap, file);
    expect(await call(blocked, 'work_queue_read')).toMatchObject({ ok: false, code: 'intents_unreadable' });
    expect(await call(blocked, 'work_queue_submit', { node: { payload: { p: 1 } } })).toMatchObject({ ok: false, code: 'intents_unwritable' });
    const processed = await cli('--repo', repo, 'process-intents', '--snapshot', snap, '--intents', file);
    expect(processed.code).toBe(3);
    expect(processed.json.error.code).toBe('intents_unreadable'); // as the MCP tools say, not the receipts directory it defaults to
    expect(processed.json.error.message).toContain(file);

    const intents = join(dir, 'intents');
    expect((await call(await memoryClient(snap, intents), 'work_queue_submit', { node: { payload: { plan: 'b' } } })).ok).toBe(true);
    const tip = branchTip(repo);
    const unwritable = await cli('--repo', repo, 'process-intents', '--snapshot', snap, '--intents', intents, '--receipts', join(file, 'receipts'));
    expect(unwritable.code).toBe(3);
    expect(unwritable.json.error.code).toBe('output_unwritable');
    expect(branchTip(repo)).toBe(tip);
  });
});
