/**
 * MCP `process-intents` after compaction (spec 7.10 "Compaction must preserve ... request
 * idempotency", 7.17): intents committed before `compact` replay their committed receipts and
 * assignment files when processed again, after one and after two checkpoints, and never write.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branchTip, call, cli, grant, makeRepo, memoryClient, nodes, processIntents, seedQueue, snapshot, tmp, workerSnapshot } from '../mcp/helpers.ts';

/** A receipt without the live parts (observed tip, current launch states). */
function committedPart(receipt: any): any {
  const { observed_tip: _t, ...rest } = receipt;
  if (rest.dispatch !== undefined) {
    const { observed_tip: _o, status: _s, dispatches, claims, ...dispatch } = rest.dispatch;
    rest.dispatch = { ...dispatch, dispatches: dispatches.map(({ status: _x, run_id: _r, ...d }: any) => d), claims: claims.map(({ finish: _f, ...c }: any) => c) };
  }
  return rest;
}

describe('process-intents after compaction', () => {
  it('replays committed submit and dispatch_next intents with the same receipts and assignment files after compact and after a second compact, writing nothing', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-compact-mcp-');
    await seedQueue(repo, nodes('a', 'b', 'c'));
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    expect((await call(client, 'work_queue_submit', { nodes: [{ node_key: 'd', payload: { plan: 'd plan' } }] })).ok).toBe(true);
    expect((await call(client, 'work_queue_dispatch_next', { pool: 'default', max_claims: 2, max_dispatches: 2 })).ok).toBe(true);
    await client.close();
    const first = await processIntents(repo, snap, intents);
    expect(first.receipts.map((r: any) => r.status)).toEqual(['committed', 'committed']);
    const before = await processIntents(repo, snap, intents);
    expect(before.receipts.map((r: any) => r.status)).toEqual(['replayed', 'replayed']);
    const files = (report: any): string[] => report.files.assignments.map((f: string) => readFileSync(join(intents, f), 'utf8'));
    const assignments = files(before);
    expect(assignments).toHaveLength(2);

    const same = async (label: string) => {
      const tip = branchTip(repo);
      const again = await processIntents(repo, snap, intents);
      expect(again.receipts.map((r: any) => r.status), label).toEqual(['replayed', 'replayed']);
      expect(again.receipts.map(committedPart), label).toEqual(before.receipts.map(committedPart));
      expect(again.files.assignments, label).toEqual(before.files.assignments);
      expect(files(again), label).toEqual(assignments);
      expect(branchTip(repo), label).toBe(tip);
    };
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    await same('after compact');
    expect((await cli('--repo', repo, '--request-id', 'more', 'dispatch-next')).code).toBe(0);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    await same('after the second compact');
  });

  it('replays a worker\'s committed finish and child submit (Claim-scoped intents) after compact, writing nothing', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-compact-mcp-worker-');
    await seedQueue(repo, nodes('one', 'two'), { maxClaims: 2 });
    const [assignment] = await grant(repo, 'grant-two', 2);
    const snap = await workerSnapshot(repo, dir, assignment!, '8001');
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    await call(client, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' });
    await call(client, 'work_queue_submit', { claim_handle: 'h1', node: { node_key: 'from-c1', payload: { plan: 'c1 output' } } });
    await client.close();
    const first = await processIntents(repo, snap, intents);
    expect(first.receipts.map((r: any) => [r.tool, r.status])).toEqual([['work_queue_claim_finish', 'committed'], ['work_queue_submit', 'committed']]);
    const before = await processIntents(repo, snap, intents);
    expect(before.receipts.map((r: any) => r.status)).toEqual(['replayed', 'replayed']);
    expect((await cli('--repo', repo, 'compact')).json.status).toBe('committed');
    const tip = branchTip(repo);
    const after = await processIntents(repo, snap, intents);
    expect(after.receipts.map(committedPart)).toEqual(before.receipts.map(committedPart));
    expect(branchTip(repo)).toBe(tip);
  });
});
