/**
 * The MCP intents path's bootstrap installs only verified worker routes (issue 16 §3): the
 * processor derives the genesis Policy with the CLI's code (lib/config/worker-routes.ts) from
 * the store's default revision. Without a worker workflow the staged submission is rejected
 * with `worker_route_unavailable` and nothing is published; with one, the installed profile's
 * `ref` is that workflow's commit SHA — never the all-zero placeholder.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_WORKFLOW, writeWorkerWorkflow } from '../support/worker-workflow.ts';
import { branchTip, call, git, makeRepo, memoryClient, processIntents, publisherFor, snapshot, tmp } from './helpers.ts';

async function stageSubmit(repo: string, dir: string, name: string, input: Record<string, unknown>): Promise<{ snap: string; intents: string }> {
  const snap = await snapshot(repo, 'producer', dir);
  const intents = join(dir, name);
  const client = await memoryClient(snap, intents);
  expect((await call(client, 'work_queue_submit', input)).value).toMatchObject({ ok: true, status: 'staged' });
  await client.close();
  return { snap, intents };
}

describe('MCP bootstrap: verified worker routes only', () => {
  it('without a worker workflow the submission is rejected (worker_route_unavailable) and no queue is created; with one, the profile ref is its commit', async () => {
    const repo = makeRepo();
    rmSync(join(repo, WORKER_WORKFLOW));
    git(repo, 'commit', '-qam', 'no worker yet');
    const dir = tmp('fairway-mcp-routes-');
    const first = await stageSubmit(repo, dir, 'intents-1', { nodes: [{ node_key: 'a', payload: { plan: 'a' } }] });
    const rejected = await processIntents(repo, first.snap, first.intents);
    expect(rejected.receipts).toMatchObject([{ tool: 'work_queue_submit', status: 'rejected', error: { code: 'worker_route_unavailable' } }]);
    expect(branchTip(repo)).toBeNull();

    writeWorkerWorkflow(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'worker');
    const head = git(repo, 'rev-parse', 'main');
    const second = await stageSubmit(repo, dir, 'intents-2', { nodes: [{ node_key: 'a', payload: { plan: 'a' } }] });
    const committed = await processIntents(repo, second.snap, second.intents);
    expect(committed.receipts).toMatchObject([{ tool: 'work_queue_submit', status: 'committed' }]);
    const { projection } = await publisherFor(repo).cache.load();
    const profiles = (projection!.state.policy!.policy.pools as Record<string, { profiles: Record<string, { ref: string; workflow: string }> }>).default!.profiles;
    expect(profiles).toEqual({ default: expect.objectContaining({ ref: head, workflow: WORKER_WORKFLOW }) });
    expect(profiles.default!.ref).not.toMatch(/^0+$/);
  });

  it('a node naming a profile the repository does not declare is unknown_profile; nothing is published', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-mcp-routes-');
    const staged = await stageSubmit(repo, dir, 'intents', { nodes: [{ node_key: 'g', payload: { plan: 'g' }, worker_profile: 'gpu' }] });
    const r = await processIntents(repo, staged.snap, staged.intents);
    expect(r.receipts).toMatchObject([{ status: 'rejected', error: { code: 'unknown_profile' } }]);
    expect(branchTip(repo)).toBeNull();
  });
});
