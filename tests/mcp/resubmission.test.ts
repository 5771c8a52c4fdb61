/**
 * The MCP intent processor's submit follows the CLI's resubmission semantics
 * (issue 10 §5; spec 7.15, contract duplicate_node): exact existing nodes are
 * the existing records and consume no operation, new nodes beside them are
 * admitted alone, and a differing node is inconsistent_resubmission.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workId } from '../../engine/identity/index.ts';
import { branchTip, call, cli, makeRepo, memoryClient, nodes, processIntents, seedQueue, snapshot, tmp } from './helpers.ts';

async function stageAndProcess(repo: string, input: Record<string, unknown>): Promise<any> {
  const dir = tmp('fairway-mcp-resubmit-');
  const snap = await snapshot(repo, 'producer', dir);
  const intents = join(dir, 'intents');
  const client = await memoryClient(snap, intents);
  const staged = await call(client, 'work_queue_submit', input);
  expect(staged.value, JSON.stringify(staged)).toMatchObject({ ok: true, status: 'staged' });
  await client.close();
  return (await processIntents(repo, snap, intents)).receipts[0];
}

describe('MCP submit: exact resubmission', () => {
  it('an exact resubmission of admitted nodes is already_admitted: no commit, its request id uncommitted, the admitting commit named (as fairway submit says)', async () => {
    const repo = makeRepo();
    await seedQueue(repo, nodes('alpha'));
    const before = branchTip(repo);
    const receipt = await stageAndProcess(repo, { graph_id: 'seed', nodes: [{ node_key: 'alpha', payload: { plan: 'task alpha' } }] });
    expect(receipt).toMatchObject({ status: 'already_admitted', commit_id: null, work_ids: [], existing_work_ids: [workId('seed', 'alpha')] });
    const seed = await cli('--repo', repo, 'trace', '--request-id', 'seed', '--json');
    expect(receipt.admitted_commits).toEqual([seed.json.events[0].commit_id]);
    const request = await cli('--repo', repo, 'trace', '--request-id', receipt.request_id, '--json');
    expect(request.json.error.code).toBe('unknown_request');
    expect(branchTip(repo)).toBe(before);
  });

  it('repeating an existing node beside a new one admits only the new one, with its edge to the existing node resolved', async () => {
    const repo = makeRepo();
    await seedQueue(repo, nodes('alpha'));
    const receipt = await stageAndProcess(repo, { graph_id: 'seed', nodes: [
      { node_key: 'alpha', payload: { plan: 'task alpha' } },
      { node_key: 'beta', payload: { plan: 'task beta' }, depends_on: [{ kind: 'work', node_key: 'alpha' }] },
    ] });
    expect(receipt).toMatchObject({ status: 'committed', work_ids: [workId('seed', 'beta')] });
  });

  it('a node that differs from the admitted one is rejected as inconsistent_resubmission', async () => {
    const repo = makeRepo();
    await seedQueue(repo, nodes('alpha'));
    const before = branchTip(repo);
    const receipt = await stageAndProcess(repo, { graph_id: 'seed', nodes: [{ node_key: 'alpha', payload: { plan: 'another plan' } }] });
    expect(receipt.status).toBe('rejected');
    expect(receipt.error.code).toBe('inconsistent_resubmission');
    expect(receipt.error.message).toContain('node alpha in graph seed');
    expect(branchTip(repo)).toBe(before);
  });

  it('a duplicate node key inside one staged submit is refused as duplicate_node_key, naming the key and both paths', async () => {
    const repo = makeRepo();
    await seedQueue(repo, nodes('alpha'));
    const dir = tmp('fairway-mcp-resubmit-');
    const snap = await snapshot(repo, 'producer', dir);
    const client = await memoryClient(snap, join(dir, 'intents'));
    const reply = await call(client, 'work_queue_submit', { graph_id: 'seed', nodes: [{ node_key: 'x', payload: {} }, { node_key: 'x', payload: { b: 1 } }] });
    await client.close();
    expect(reply).toMatchObject({ ok: false, code: 'duplicate_node_key' });
    expect(JSON.stringify(reply)).toContain('duplicate node key x in graph seed: nodes.0 and nodes.1');
  });

  it('the same node key in two pools\' default graphs is two nodes, staged and admitted as two Works; twice in one graph is duplicate_node_key', async () => {
    const repo = makeRepo();
    await seedQueue(repo, nodes('alpha'), { pools: ['other'] });
    const receipt = await stageAndProcess(repo, { nodes: [{ node_key: 'x', payload: { p: 1 } }, { node_key: 'x', pool: 'other', payload: { p: 2 } }] });
    expect(receipt).toMatchObject({ status: 'committed', work_ids: [workId('default', 'x'), workId('other', 'x')] });
    const dir = tmp('fairway-mcp-resubmit-');
    const client = await memoryClient(await snapshot(repo, 'producer', dir), join(dir, 'intents'));
    const reply = await call(client, 'work_queue_submit', { nodes: [{ node_key: 'y', pool: 'other', payload: {} }, { node_key: 'z', payload: {} }, { node_key: 'y', pool: 'other', payload: { b: 1 } }] });
    await client.close();
    expect(reply).toMatchObject({ ok: false, code: 'duplicate_node_key' });
    expect(JSON.stringify(reply)).toContain('duplicate node key y in graph other: nodes.0 and nodes.2');
  });
});
