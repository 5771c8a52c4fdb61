/**
 * Trusted processing across runs (spec 7.12 run budget, 7.14 recoverable receipts and conflicting
 * outcomes): two runs of one activation cannot both spend its last dispatch group; a worker's
 * processing re-run after its group was released replays what it committed instead of
 * reporting it rejected; two planted finish intents with different outcomes for one Claim are
 * both refused (`finish_conflict`, as staging answers), whichever sorts first; summaries tell
 * request ids apart.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { release } from '../../engine/requests/lifecycle.ts';
import type { Actor } from '../../engine/schema/index.ts';
import { short } from '../../lib/intents/receipts.ts';
import {
  branchTip, call, cli, forgeIntent, grant, makeRepo, memoryClient, nodes, PRINCIPAL, publisherFor, REPOSITORY, seedQueue, snapshot, tmp, workerSnapshot,
} from './helpers.ts';

const processIn = (repo: string, snap: string, intents: string, ...extra: string[]) => cli('--repo', repo, 'process-intents', '--snapshot', snap, '--intents', intents, ...extra);
const statuses = (json: any) => json.receipts.map((r: any) => [r.tool.replace('work_queue_', ''), r.status, r.error?.code ?? null]);

describe('process-intents across runs', () => {
  it('two concurrent runs of one activation with budget 1, each with a dispatch_next: one group in all, the other run dispatch_budget_blocked', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-runs-');
    await seedQueue(repo, nodes('a', 'b', 'c', 'd'));
    const snap = await snapshot(repo, 'dispatcher', dir);
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    await call(await memoryClient(snap, a), 'work_queue_dispatch_next', { pool: 'default' });
    await call(await memoryClient(snap, b), 'work_queue_dispatch_next', { pool: 'default' });
    const runs = await Promise.all([processIn(repo, snap, a, '--dispatch-budget', '1'), processIn(repo, snap, b, '--dispatch-budget', '1')]);
    const rows = runs.flatMap((r) => statuses(r.json));
    expect(rows.filter(([, status]: string[]) => status === 'committed')).toHaveLength(1);
    expect(rows.filter(([, , code]: string[]) => code === 'dispatch_budget_blocked')).toHaveLength(1);
    const { projection } = await publisherFor(repo).cache.load();
    expect([...projection!.dispatches()]).toHaveLength(1);
  });

  it('a worker re-run after its group was released replays its committed finish and child submit (normal and wrap-up), and refuses only what is new', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-runs-');
    await seedQueue(repo, nodes('a', 'b'));
    const [assignment] = await grant(repo, 'g1', 1);
    const snap = await workerSnapshot(repo, dir, assignment!, '6001');
    const intents = join(dir, 'i');
    const client = await memoryClient(snap, intents);
    await call(client, 'work_queue_claim_finish', { outcome: 'completed' });
    await call(client, 'work_queue_submit', { node: { node_key: 'child', payload: { x: 1 } } });
    expect(statuses((await processIn(repo, snap, intents)).json)).toEqual([['claim_finish', 'committed', null], ['submit', 'committed', null]]);
    const reconciler: Actor = { role: 'reconciler', principal: PRINCIPAL, repository: REPOSITORY };
    await publisherFor(repo).publish({ requestId: 'release-1', actor: reconciler, prepare: (p, ids) => release(p.state, String(assignment!.dispatch_id), ids.at) });
    const tip = branchTip(repo);
    for (const extra of [[], ['--wrap-up']]) {
      const again = await processIn(repo, snap, intents, ...extra);
      expect(statuses(again.json), extra.join(' ')).toEqual([['claim_finish', 'replayed', null], ['submit', 'replayed', null]]);
    }
    await call(client, 'work_queue_submit', { node: { node_key: 'late', payload: { x: 2 } } });
    const late = await processIn(repo, snap, intents);
    expect(statuses(late.json).at(-1)).toEqual(['submit', 'rejected', 'dispatch_released']);
    expect(branchTip(repo)).toBe(tip);
  });

  it('two planted finishes with different outcomes for one Claim are both finish_conflict and publish nothing', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-runs-');
    await seedQueue(repo, nodes('a', 'b'));
    const [assignment] = await grant(repo, 'g1', 1);
    const snap = await workerSnapshot(repo, dir, assignment!, '7001');
    const intents = join(dir, 'i');
    const member = (assignment!.claims as Array<{ handle: string; claim_id: string; work_id: string }>)[0]!;
    const scope = { dispatch_id: assignment!.dispatch_id, claim_handle: member.handle, claim_id: member.claim_id, work_id: member.work_id, resolution: 'sole' };
    forgeIntent(intents, snap, 'work_queue_claim_finish', { outcome: 'cancelled' }, { seq: 5, scope });
    forgeIntent(intents, snap, 'work_queue_claim_finish', { outcome: 'completed' }, { seq: 5, scope });
    const tip = branchTip(repo);
    const r = await processIn(repo, snap, intents);
    expect(statuses(r.json)).toEqual([['claim_finish', 'rejected', 'finish_conflict'], ['claim_finish', 'rejected', 'finish_conflict']]);
    expect(branchTip(repo)).toBe(tip);
    // At wrap-up the Claim is treated as having no finish: cancelled, never completed.
    const wrapped = await processIn(repo, snap, intents, '--wrap-up');
    const rows = wrapped.json.receipts.map((x: any) => [x.status, x.error?.code ?? null, x.wrap_up ?? false, x.outcome ?? null]);
    // The two refusals come in intent-id order (random ids); the wrap-up cancellation after them.
    expect(rows.slice(0, 2).sort()).toEqual([['rejected', 'finish_conflict', false, 'cancelled'], ['rejected', 'finish_conflict', false, 'completed']]);
    expect(rows[2]).toEqual(['committed', null, true, 'cancelled']);
    expect(rows).toHaveLength(3);
    const { projection } = await publisherFor(repo).cache.load();
    expect(projection!.claim(member.claim_id)!.state).toBe('cancelled');
  });

  it('summary ids keep their distinguishing tail: two request ids of one activation differ when shortened', () => {
    const a = 'wq-dispatch-0f9fb8c8af0dfbb5-18a86a11de4921c2d9b504897d1abde649b52a91';
    const b = 'wq-dispatch-0f9fb8c8af0dfbb5-6a07ab189454007f49bb41f1af630423ad1f54d6';
    expect(short(a)).not.toBe(short(b));
    expect(short(a)).toBe('wq-dispat…e649b52a91');
    expect(short('q_1')).toBe('q_1');
  });
});
