/**
 * Agent limits (spec 7.12, 8.2 "Trust"): an agent cannot raise an inherited
 * priority, create fairness keys, choose Policy, or pass a Work selector,
 * filter, authority or trace field. Each attempt gets a coded rejection and
 * writes nothing: no intent file through the MCP server, and no queue commit
 * when the same file is planted behind the server's back.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  branchTip, call, cli, forgeIntent, grant, intentFiles, makeRepo, memoryClient, processIntents, seedQueue, snapshot, tmp, workerSnapshot,
} from './helpers.ts';

let repo: string;
let dir: string;
let dispatcherSnap: string;
let workerSnap: string;

beforeAll(async () => {
  repo = makeRepo();
  dir = tmp('fairway-limits-');
  await seedQueue(repo, [
    { node_key: 'parent', payload: { plan: 'parent' }, priority: 3, fairness_key: 'team-a' },
    { node_key: 'other', payload: { plan: 'other' } },
  ], { keys: { 'team-a': 2 } });
  dispatcherSnap = await snapshot(repo, 'dispatcher', dir);
  const [assignment] = await grant(repo, 'grant-parent', 1);
  workerSnap = await workerSnapshot(repo, dir, assignment!, '4242');
});

/** Calls the tool through the MCP client and checks the coded rejection wrote no intent. */
async function rejectedByServer(client: Client, intents: string, tool: string, args: Record<string, unknown>, code: string): Promise<void> {
  const reply = await call(client, tool, args);
  expect(reply, JSON.stringify(args)).toMatchObject({ ok: false, code });
  expect(intentFiles(intents)).toEqual([]);
}

/** Plants the same input as a file; the processor rejects it with the same code and commits nothing. */
async function rejectedByProcessor(snap: string, tool: string, input: Record<string, unknown>, code: string): Promise<void> {
  const intents = tmp('fairway-planted-');
  forgeIntent(intents, snap, tool, input);
  const tip = branchTip(repo);
  const report = await processIntents(repo, snap, intents);
  expect(report.receipts.map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code])).toEqual([['rejected', code]]);
  expect(branchTip(repo)).toBe(tip);
}

describe('agent limits', () => {
  it('cannot raise an inherited priority: a worker\'s follow-up Work keeps its Claim\'s priority, key and pool', async () => {
    const intents = join(tmp('fairway-lim-'), 'intents');
    const worker = await memoryClient(workerSnap, intents);
    await rejectedByServer(worker, intents, 'work_queue_submit', { node: { payload: { p: 1 }, priority: 1 } }, 'priority_escalation');
    await rejectedByServer(worker, intents, 'work_queue_submit', { node: { payload: { p: 1 }, fairness_key: '' } }, 'fairness_key_not_allowed');
    await rejectedByServer(worker, intents, 'work_queue_submit', { node: { payload: { p: 1 }, pool: 'gpu' } }, 'pool_not_allowed');
    await rejectedByServer(worker, intents, 'work_queue_dispatch_next', { pool: 'gpu' }, 'pool_not_allowed');
    await rejectedByProcessor(workerSnap, 'work_queue_submit', { node: { payload: { p: 1 }, priority: 2 } }, 'priority_escalation');
    // Lowering urgency is allowed (staged, not rejected).
    expect((await call(worker, 'work_queue_submit', { node: { payload: { p: 1 }, priority: 5 } })).value.status).toBe('staged');
  });

  it('cannot create fairness keys: only keys registered in the installed Policy are accepted', async () => {
    const intents = join(tmp('fairway-lim-'), 'intents');
    const dispatcher = await memoryClient(dispatcherSnap, intents);
    await rejectedByServer(dispatcher, intents, 'work_queue_submit', { node: { payload: { p: 1 }, fairness_key: 'run-1234' } }, 'unknown_fairness_key');
    await rejectedByServer(dispatcher, intents, 'work_queue_submit', { nodes: [{ payload: { p: 1 } }, { payload: { p: 2 }, fairness_key: 'new-tenant' }] }, 'unknown_fairness_key');
    await rejectedByProcessor(dispatcherSnap, 'work_queue_submit', { node: { payload: { p: 1 }, fairness_key: 'run-5678' } }, 'unknown_fairness_key');
    expect((await call(dispatcher, 'work_queue_submit', { node: { payload: { p: 1 }, fairness_key: 'team-a' } })).value.status).toBe('staged');
  });

  it('cannot choose Policy: policy, epoch and weight fields are rejected on every staging tool', async () => {
    const intents = join(tmp('fairway-lim-'), 'intents');
    const dispatcher = await memoryClient(dispatcherSnap, intents);
    await rejectedByServer(dispatcher, intents, 'work_queue_submit', { node: { payload: {} }, policy: { mode: 'strict-priority' } }, 'policy_not_allowed');
    await rejectedByServer(dispatcher, intents, 'work_queue_submit', { node: { payload: {}, accounting_weights: { x: 9 } } }, 'policy_not_allowed');
    await rejectedByServer(dispatcher, intents, 'work_queue_dispatch_next', { pool: 'default', epoch: 'epoch-2' }, 'policy_not_allowed');
    await rejectedByProcessor(dispatcherSnap, 'work_queue_submit', { node: { payload: {} }, policy: { mode: 'strict-priority' } }, 'policy_not_allowed');
  });

  it('cannot pass a Work selector, filter, authority or trace field to work_queue_dispatch_next', async () => {
    const intents = join(tmp('fairway-lim-'), 'intents');
    const dispatcher = await memoryClient(dispatcherSnap, intents);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ work_id: 'w1' }, 'work_selector_not_allowed'],
      [{ node_key: 'parent' }, 'work_selector_not_allowed'],
      [{ plan: 'reuse my preparation' }, 'work_selector_not_allowed'],
      [{ filter: { fairness_key: 'team-a' } }, 'filter_not_allowed'],
      [{ priority: 1 }, 'filter_not_allowed'],
      [{ principal: '99' }, 'authority_not_allowed'],
      [{ run_id: '1' }, 'authority_not_allowed'],
      [{ request_id: 'mine' }, 'authority_not_allowed'],
      [{ trace_id: 't' }, 'trace_not_allowed'],
      [{ surprise: true }, 'field_not_allowed'],
    ];
    for (const [extra, code] of cases) {
      await rejectedByServer(dispatcher, intents, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1, ...extra }, code);
    }
    await rejectedByProcessor(dispatcherSnap, 'work_queue_dispatch_next', { pool: 'default', work_id: 'w1' }, 'work_selector_not_allowed');
    await rejectedByProcessor(dispatcherSnap, 'work_queue_dispatch_next', { pool: 'default', trace: { trace_id: 'x' } }, 'trace_not_allowed');
  });

  it('the per-run dispatch budget bounds many small requests', async () => {
    const repo2 = makeRepo();
    const d = tmp('fairway-budget-');
    await seedQueue(repo2, [1, 2, 3, 4].map((i) => ({ node_key: `n${i}`, payload: { i } })));
    const snap = await snapshot(repo2, 'dispatcher', d);
    const intents = join(d, 'intents');
    const client = await memoryClient(snap, intents);
    for (let i = 0; i < 3; i++) await call(client, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 });
    const r = await cli('--repo', repo2, 'process-intents', '--snapshot', snap, '--intents', intents, '--dispatch-budget', '2');
    expect(r.json.receipts.map((x: { status: string; error?: { code: string } }) => [x.status, x.error?.code])).toEqual([
      ['committed', undefined], ['committed', undefined], ['rejected', 'dispatch_budget_blocked'],
    ]);
  });
});
