/**
 * The MCP read prediction is the line (issue 14 §1): `work_queue_read` returns
 * each pool's predicted grant order from `predictLine` — the same entries as
 * `fairway next` on the same queue — and `work_queue_explain` a Work's place in
 * it, over the official SDK client and a real Git repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, cli, makeRepo, memoryClient, seedQueue, snapshot, tmp } from './helpers.ts';

describe('MCP prediction = the line (fairway next)', () => {
  it('work_queue_read lists the predicted line, bounded by line_limit, equal to fairway next; explain gives a Work\'s position', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-mcp-line-');
    await seedQueue(repo, [
      { node_key: 'a', payload: {}, priority: 4 },
      { node_key: 'b', payload: {}, priority: 2 },
      { node_key: 'c', payload: {}, priority: 4 },
      { node_key: 'd', payload: {}, priority: 2 },
      { node_key: 'e', payload: {} },
    ]);
    const snap = await snapshot(repo, 'observer', dir);
    const client = await memoryClient(snap, join(dir, 'intents'));
    const asOf = JSON.parse(readFileSync(snap, 'utf8')).created_at as number;
    const cliLine = await cli('--repo', repo, 'next', '--pool', 'default', '--as-of', String(asOf));
    expect(cliLine.code).toBe(0);

    const read = await call(client, 'work_queue_read', { line_limit: 3 });
    expect(read.ok).toBe(true);
    const p = read.value.predictions[0];
    expect(p).toMatchObject({ pool: 'default', label: 'activation_snapshot', authoritative: false });
    expect(p.line.entries).toEqual(cliLine.json.entries.slice(0, 3));
    expect(p.line.truncated).toBe(true);
    expect(p.line.entries[0].work_id).toBe(p.next.work_id);
    const full = await call(client, 'work_queue_read', {});
    expect(full.value.predictions[0].line.entries).toEqual(cliLine.json.entries);
    expect(full.value.predictions[0].line.end).toBe('no_work');

    const third = cliLine.json.entries[2];
    const x = await call(client, 'work_queue_explain', { work_id: third.work_id });
    expect(x.ok).toBe(true);
    expect(x.value.line_position).toMatchObject({ position: 3, ahead: 2, after: { workId: cliLine.json.entries[1].work_id } });
    expect((await call(client, 'work_queue_read', { line_limit: 0 })).code).toBe('intent_invalid');
    await client.close();
  });
});
