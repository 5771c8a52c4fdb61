/**
 * End to end over stdio with the official MCP SDK client, against a real
 * temporary Git repository (LocalGitStore): the server is the `fairway mcp`
 * bin, spawned with no credentials in its environment.
 *
 * read → submit → dispatch_next → process → snapshot again → finish → process,
 * once with a one-Claim assignment (handle omitted) and once with a
 * three-Claim assignment (explicit handles, mixed outcomes, wrap-up).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bindDispatch, branchTip, call, makeRepo, memoryClient, nodes, processIntents, publisherFor, readJson, seedQueue, snapshot, tmp, writeJson,
} from './helpers.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const open: Client[] = [];

async function stdioClient(snapshotFile: string, intents: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin', 'fairway.js'), 'mcp', '--snapshot', snapshotFile, '--intents', intents],
    cwd: ROOT,
    env: getDefaultEnvironment(), // no GH_TOKEN / GITHUB_TOKEN: the server needs none
    stderr: 'pipe',
  });
  const client = new Client({ name: 'fairway-e2e', version: '0.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

describe('MCP intent server over stdio, end to end', () => {
  it('one-Claim flow: a dispatcher stages Work and a batch on an absent queue, a worker finishes with the handle omitted', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-mcp-e2e-');
    const snap = await snapshot(repo, 'dispatcher', dir);
    expect(readJson(snap)).toMatchObject({ schema: 'fairway.snapshot/1', role: 'dispatcher', uninitialized: true, tip: null });
    const intents = join(dir, 'intents-dispatcher');
    const dispatcher = await stdioClient(snap, intents);

    const tools = await dispatcher.listTools();
    // A dispatcher's activation lists its tools only: it finishes no Claim.
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['work_queue_dispatch_next', 'work_queue_explain', 'work_queue_read', 'work_queue_submit']);
    const dispatchTool = tools.tools.find((t) => t.name === 'work_queue_dispatch_next')!;
    // A dispatcher holds no Claim: its schemas do not offer claim_handle (only a worker's do, tests/mcp/advertised-schemas.test.ts).
    expect(Object.keys(dispatchTool.inputSchema.properties ?? {}).sort()).toEqual(['max_claims', 'max_dispatches', 'pool']);
    expect((dispatchTool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);

    const read = await call(dispatcher, 'work_queue_read');
    expect(read.value).toMatchObject({ ok: true, uninitialized: true, provenance: { label: 'activation_snapshot', authoritative: false } });

    const submit = await call(dispatcher, 'work_queue_submit', {
      nodes: [{ node_key: 'alpha', payload: { plan: 'alpha plan' } }, { node_key: 'beta', payload: { plan: 'beta plan' } }],
    });
    expect(submit.value).toEqual({ ok: true, intent_id: expect.stringMatching(/^i_[0-9a-f]{32}$/), status: 'staged' });
    const dispatch = await call(dispatcher, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    expect(dispatch.value).toEqual({ ok: true, intent_id: expect.stringMatching(/^i_/), status: 'staged' });
    const selector = await call(dispatcher, 'work_queue_dispatch_next', { pool: 'default', work_id: 'alpha' });
    expect(selector).toMatchObject({ ok: false, code: 'work_selector_not_allowed' });

    const staged = await call(dispatcher, 'work_queue_read');
    expect(staged.value.staged.map((s: { label: string; status: string }) => [s.status, s.label])).toEqual([['staged', 'staged_preview'], ['staged', 'staged_preview']]);
    expect(branchTip(repo)).toBeNull(); // staging wrote nothing to the queue
    await dispatcher.close();

    const first = await processIntents(repo, snap, intents);
    expect(first.receipts.map((r: { tool: string; status: string }) => [r.tool, r.status])).toEqual([
      ['work_queue_submit', 'committed'], ['work_queue_dispatch_next', 'committed'],
    ]);
    const granted = first.receipts[1].dispatch;
    expect(granted).toMatchObject({ granted_claims: 1, reserved_dispatches: 1, grant_status: 'granted' });
    expect(granted.claims[0].handle).toBe('h1');

    const retry = await processIntents(repo, snap, intents);
    expect(retry.receipts.map((r: { status: string }) => r.status)).toEqual(['replayed', 'replayed']);
    expect(retry.receipts.map((r: { request_id: string }) => r.request_id)).toEqual(first.receipts.map((r: { request_id: string }) => r.request_id));
    expect(retry.receipts[1].dispatch.claims).toEqual(granted.claims);

    const assignment = readJson(join(intents, first.files.assignments[0]));
    expect(assignment).toMatchObject({ version: 3, dispatch_id: granted.claims[0].dispatch_id, claims: [{ handle: 'h1', work: { plan: 'alpha plan' } }] });
    await bindDispatch(repo, assignment.dispatch_id, '101');

    const workerSnap = await snapshot(repo, 'worker', dir, ['--assignment', writeJson(dir, 'assignment-1.json', assignment), '--run-id', '101', '--run-attempt', '1']);
    const workerIntents = join(dir, 'intents-worker');
    const worker = await stdioClient(workerSnap, workerIntents);
    const mine = await call(worker, 'work_queue_read');
    expect(mine.value.assignment).toMatchObject({ handle_required: false, claims: [{ handle: 'h1', work: { plan: 'alpha plan' }, state_at_snapshot: 'open' }] });
    const finish = await call(worker, 'work_queue_claim_finish', { outcome: 'completed' });
    expect(finish.value).toEqual({ ok: true, intent_id: expect.stringMatching(/^i_/), status: 'staged', claim_handle: 'h1' });
    await worker.close();

    const settled = await processIntents(repo, workerSnap, workerIntents);
    expect(settled.receipts).toMatchObject([{ tool: 'work_queue_claim_finish', status: 'committed', claim_handle: 'h1', outcome: 'completed' }]);
    const { projection } = await publisherFor(repo).cache.load();
    expect(projection!.claim(granted.claims[0].claim_id)!.state).toBe('completed');
    expect(projection!.work(granted.claims[0].work_id)!.barrier).toBe('pending');
  });

  it('multi-Claim flow: explicit handles, mixed outcomes, a Claim-scoped follow-up, wrap-up of the unfinished member', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-mcp-e2e-');
    await seedQueue(repo, nodes('x', 'y', 'z'), { maxClaims: 3 });
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents-dispatcher');
    const dispatcher = await memoryClient(snap, intents); // the worker phase below runs over stdio
    const read = await call(dispatcher, 'work_queue_read', { sort: 'recent', limit: 2 });
    expect(read.value.works).toMatchObject({ total: 3, next_offset: 2 });
    expect(read.value.predictions[0]).toMatchObject({ label: 'activation_snapshot', reason: 'fifo_default', next: { node_key: 'x' } });
    expect((await call(dispatcher, 'work_queue_dispatch_next', { pool: 'default', max_claims: 3, max_dispatches: 1 })).ok).toBe(true);
    await dispatcher.close();
    const granted = (await processIntents(repo, snap, intents)).receipts[0].dispatch;
    expect(granted.claims.map((c: { handle: string }) => c.handle)).toEqual(['h1', 'h2', 'h3']);
    expect(granted.reserved_dispatches).toBe(1);

    const assignment = readJson(join(intents, 'assignments', `${granted.claims[0].dispatch_id}.json`));
    await bindDispatch(repo, assignment.dispatch_id, '202');
    const workerSnap = await snapshot(repo, 'worker', dir, ['--assignment', writeJson(dir, 'assignment-3.json', assignment), '--run-id', '202']);
    const workerIntents = join(dir, 'intents-worker');
    const worker = await stdioClient(workerSnap, workerIntents);
    expect(await call(worker, 'work_queue_claim_finish', { outcome: 'completed' })).toMatchObject({ ok: false, code: 'claim_scope_required' });
    expect(await call(worker, 'work_queue_claim_finish', { claim_handle: 'h7', outcome: 'completed' })).toMatchObject({ ok: false, code: 'claim_scope_invalid' });
    expect((await call(worker, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' })).value.claim_handle).toBe('h1');
    expect((await call(worker, 'work_queue_claim_finish', { claim_handle: 'h2', outcome: 'cancelled' })).value.claim_handle).toBe('h2');
    expect((await call(worker, 'work_queue_submit', { claim_handle: 'h1', node: { node_key: 'x-followup', payload: { plan: 'follow x' } } })).ok).toBe(true);
    expect((await call(worker, 'work_queue_submit', { claim_handle: 'h2', node: { node_key: 'y-followup', payload: { plan: 'follow y' } } })).ok).toBe(true);
    await worker.close();

    const report = await processIntents(repo, workerSnap, workerIntents, '--wrap-up');
    const byHandle = (h: string) => report.receipts.filter((r: { claim_handle: string }) => r.claim_handle === h).map((r: { tool: string; status: string; error?: { code: string } }) => [r.tool, r.status, r.error?.code]);
    expect(byHandle('h1')).toEqual([['work_queue_claim_finish', 'committed', undefined], ['work_queue_submit', 'committed', undefined]]);
    expect(byHandle('h2')).toEqual([['work_queue_claim_finish', 'committed', undefined], ['work_queue_submit', 'suppressed', 'claim_not_completed']]);
    expect(report.receipts.find((r: { claim_handle: string }) => r.claim_handle === 'h3')).toMatchObject({ wrap_up: true, outcome: 'cancelled', status: 'committed' });

    const { projection } = await publisherFor(repo).cache.load();
    expect(granted.claims.map((c: { claim_id: string }) => projection!.claim(c.claim_id)!.state)).toEqual(['completed', 'cancelled', 'cancelled']);
    const followUp = report.receipts.find((r: { claim_handle: string; tool: string }) => r.claim_handle === 'h1' && r.tool === 'work_queue_submit');
    const admitted = projection!.work(followUp.work_ids[0])!;
    const parent = projection!.work(granted.claims[0].work_id)!;
    expect([admitted.pool, admitted.effectivePriority, admitted.fairnessKey, admitted.graphId]).toEqual([parent.pool, parent.effectivePriority, parent.fairnessKey, parent.graphId]);
    expect(projection!.dispatch(assignment.dispatch_id)!.released).toBe(false); // finishing every member never frees the native slot
    const summary = readFileSync(join(workerIntents, 'summary.md'), 'utf8');
    expect(summary).toContain('suppressed');
  });
});
