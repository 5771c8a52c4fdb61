/**
 * Spec 8.2 acceptance rows for agents on the fair protocol: late binding,
 * agentic intent status, batch idempotency, effect isolation and multi-Claim
 * attribution. Real Git repositories, the official SDK client (in-memory
 * transport), the CLI's trusted processor.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../engine/errors.ts';
import { authorizeClaimEffect } from '../../engine/intents/effects.ts';
import { normalizeClaimScope } from '../../engine/intents/scope.ts';
import { dispatchReceipt } from '../../engine/receipts/dispatch.ts';
import { result } from '../../engine/requests/lifecycle.ts';
import {
  branchTip, call, cli, forgeIntent, grant, intentFiles, makeRepo, memoryClient, nodes, processIntents, publisherFor, readJson,
  REPOSITORY, seedQueue, snapshot, tmp, workerSnapshot, writeJson, PRINCIPAL,
} from './helpers.ts';
import { captureSnapshot } from '../../lib/intents/snapshot.ts';
import { LocalGitStore } from '../../lib/store/local-git.ts';

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'authorized';
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
}

describe('spec 8.2 acceptance: agents on the fair protocol', () => {
  it('late binding: the snapshot predicts A, trusted processing selects B and launches B with B\'s stored plan', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-late-');
    await seedQueue(repo, [{ node_key: 'A', payload: { plan: 'plan for A' } }, { node_key: 'B', payload: { plan: 'plan for B' } }]);
    const snap = await snapshot(repo, 'dispatcher', dir);
    const client = await memoryClient(snap, join(dir, 'intents'));
    const predicted = (await call(client, 'work_queue_read')).value.predictions[0].next;
    expect(predicted.node_key).toBe('A');
    expect((await call(client, 'work_queue_dispatch_next', { pool: 'default', max_claims: 1, max_dispatches: 1 })).ok).toBe(true);

    // A competing dispatcher wins A after the snapshot was taken.
    expect((await cli('--repo', repo, '--request-id', 'other-dispatcher', 'dispatch-next')).code).toBe(0);

    const report = await processIntents(repo, snap, join(dir, 'intents'));
    const d = report.receipts[0].dispatch;
    expect(d.prediction).toEqual({ label: 'activation_snapshot', authoritative: false, work_id: predicted.work_id, reason: 'fifo_default' });
    expect(d.late_bound).toBe(true);
    expect(d.claims).toHaveLength(1);
    expect(d.claims[0].work_id).not.toBe(predicted.work_id);
    const assignment = readJson(join(dir, 'intents', d.assignment_files[0]));
    expect(assignment.claims.map((c: { work: unknown }) => c.work)).toEqual([{ plan: 'plan for B' }]);
    expect(JSON.stringify(assignment)).not.toContain('plan for A');
  });

  it('agentic intent status: staging creates no Claim or launch; snapshot, staged, durable/granted and bound are distinguishable', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-status-');
    await seedQueue(repo, nodes('a'));
    const before = branchTip(repo);
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    const staged = await call(client, 'work_queue_dispatch_next', { pool: 'default' });
    expect(Object.keys(staged.value).sort()).toEqual(['intent_id', 'ok', 'status']); // no Claim, handle or dispatch
    expect(staged.value.status).toBe('staged');
    expect(branchTip(repo)).toBe(before);
    expect(readJson(join(intents, intentFiles(intents)[0]!))).toMatchObject({ schema: 'fairway.intent/1', intent_id: staged.value.intent_id, tool: 'work_queue_dispatch_next' });
    const view = (await call(client, 'work_queue_read')).value;
    expect(view.provenance).toMatchObject({ label: 'activation_snapshot', authoritative: false });
    expect(view.staged).toEqual([{ intent_id: staged.value.intent_id, tool: 'work_queue_dispatch_next', status: 'staged', label: 'staged_preview', authoritative: false }]);
    expect(view.counts.claims.total).toBe(0);

    const report = await processIntents(repo, snap, intents);
    const durable = report.receipts[0];
    expect(durable).toMatchObject({ intent_id: staged.value.intent_id, status: 'committed', dispatch: { grant_status: 'granted', status: 'reserved' } });
    expect(durable.commit_id).toMatch(/^q_/);
    expect(durable.request_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(durable.dispatch.dispatches[0]).toMatchObject({ status: 'reserved', run_id: null });

    const assignment = readJson(join(intents, durable.dispatch.assignment_files[0]));
    await workerSnapshot(repo, dir, assignment, '7001');
    const { projection } = await publisherFor(repo).cache.load();
    expect(dispatchReceipt(projection!, durable.request_id).dispatches[0]).toMatchObject({ status: 'bound', run_id: '7001' });
  });

  it('batch idempotency: replaying a committed batch returns the same Claims; different parameters under the same id fail', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-idem-');
    await seedQueue(repo, nodes('a', 'b', 'c'));
    const snap = await snapshot(repo, 'dispatcher', dir);
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    const staged = await call(client, 'work_queue_dispatch_next', { pool: 'default', max_claims: 2, max_dispatches: 2 });
    const first = await processIntents(repo, snap, intents);
    const tip = branchTip(repo);
    const again = await processIntents(repo, snap, intents);
    expect(again.receipts[0].status).toBe('replayed');
    expect(again.receipts[0].commit_id).toBe(first.receipts[0].commit_id);
    expect(again.receipts[0].dispatch.claims).toEqual(first.receipts[0].dispatch.claims);
    expect(again.files.assignments).toEqual(first.files.assignments);
    expect(branchTip(repo)).toBe(tip); // no second charge, no new commit

    // The same intent id (so the same request id) carrying different parameters fails explicitly.
    const forged = join(dir, 'forged');
    forgeIntent(forged, snap, 'work_queue_dispatch_next', { pool: 'default', max_claims: 3, max_dispatches: 2 }, { intentId: staged.value.intent_id });
    const conflict = await processIntents(repo, snap, forged);
    expect(conflict.receipts[0]).toMatchObject({ status: 'rejected', request_id: first.receipts[0].request_id, error: { code: 'request_id_conflict' } });
    expect(branchTip(repo)).toBe(tip);
  });

  it('effect isolation: c2 cannot use c1\'s Completion authorization; missing, unknown or wrong handles authorize nothing', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-iso-');
    await seedQueue(repo, nodes('one', 'two'), { maxClaims: 2 });
    const [assignment] = await grant(repo, 'grant-two', 2);
    const snap = await workerSnapshot(repo, dir, assignment!, '8001');
    const intents = join(dir, 'intents');
    const client = await memoryClient(snap, intents);
    await call(client, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' });
    await call(client, 'work_queue_submit', { claim_handle: 'h1', node: { node_key: 'from-c1', payload: { plan: 'c1 output' } } });
    await call(client, 'work_queue_submit', { claim_handle: 'h2', node: { node_key: 'from-c2', payload: { plan: 'c2 output' } } });
    await call(client, 'work_queue_dispatch_next', { claim_handle: 'h2', pool: 'default' });
    expect(await call(client, 'work_queue_submit', { node: { payload: { plan: 'unscoped' } } })).toMatchObject({ ok: false, code: 'claim_scope_required' });

    const report = await processIntents(repo, snap, intents);
    const rows = report.receipts.map((r: { claim_handle: string; tool: string; status: string; error?: { code: string } }) => [r.claim_handle, r.tool, r.status, r.error?.code]);
    expect(rows).toEqual([
      ['h1', 'work_queue_claim_finish', 'committed', undefined],
      ['h1', 'work_queue_submit', 'committed', undefined],
      ['h2', 'work_queue_submit', 'suppressed', 'claim_not_completed'],
      ['h2', 'work_queue_dispatch_next', 'suppressed', 'claim_not_completed'],
    ]);

    const { projection } = await publisherFor(repo).cache.load();
    const run = { run_id: '8001', run_attempt: 1 };
    const c1 = normalizeClaimScope(assignment, { claim_handle: 'h1' });
    const c2 = normalizeClaimScope(assignment, { claim_handle: 'h2' });
    expect(authorizeClaimEffect(projection!, c1, run).claim_id).toBe(c1.claim_id);
    expect(codeOf(() => authorizeClaimEffect(projection!, c2, run))).toBe('claim_not_completed');
    expect(codeOf(() => authorizeClaimEffect(projection!, { ...c2, claim_id: c1.claim_id }, run))).toBe('claim_scope_invalid'); // c2's handle on c1's Claim
    expect(codeOf(() => authorizeClaimEffect(projection!, { ...c1, claim_handle: 'h9' }, run))).toBe('claim_scope_invalid');
    expect(codeOf(() => authorizeClaimEffect(projection!, c1, { run_id: '9999', run_attempt: 1 }))).toBe('run_binding_conflict');
    expect(codeOf(() => authorizeClaimEffect(projection!, c1, { run_id: '8001', run_attempt: 2 }))).toBe('run_attempt_invalid');

    // A verified Result closes c1's fresh authority; its already accepted request stays recoverable.
    await publisherFor(repo).publish({
      requestId: 'result-c1',
      actor: { role: 'reconciler', principal: PRINCIPAL, repository: REPOSITORY },
      prepare: (p, ids) => result(p.state, c1.work_id, { summary: 'done' }, ids.at, 'receipt-1'),
    });
    const { projection: after } = await publisherFor(repo).cache.load();
    expect(codeOf(() => authorizeClaimEffect(after!, c1, run))).toBe('delivery_barrier_closed');
    await call(client, 'work_queue_submit', { claim_handle: 'h1', node: { node_key: 'late', payload: { plan: 'too late' } } });
    const retry = await processIntents(repo, snap, intents);
    const h1 = retry.receipts.filter((r: { claim_handle: string }) => r.claim_handle === 'h1').map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code]);
    expect(h1).toEqual([['replayed', undefined], ['replayed', undefined], ['suppressed', 'delivery_barrier_closed']]);
  });

  it('multi-Claim attribution: settling all but one member never enables automatic attribution', async () => {
    const repo = makeRepo();
    const dir = tmp('fairway-attr-');
    await seedQueue(repo, nodes('p', 'q', 'r'), { maxClaims: 3 });
    const [assignment] = await grant(repo, 'grant-three', 3);
    const snap = await workerSnapshot(repo, dir, assignment!, '9001');
    const first = join(dir, 'first');
    const client = await memoryClient(snap, first);
    await call(client, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' });
    await call(client, 'work_queue_claim_finish', { claim_handle: 'h2', outcome: 'cancelled' });
    await processIntents(repo, snap, first);

    // A later activation of the same worker: only h3 is still open.
    const later = await snapshot(repo, 'worker', dir, ['--assignment', join(dir, readdirAssignments(dir)), '--run-id', '9001']);
    const second = join(dir, 'second');
    const again = await memoryClient(later, second);
    const view = (await call(again, 'work_queue_read')).value.assignment;
    expect(view.claims.map((c: { state_at_snapshot: string }) => c.state_at_snapshot)).toEqual(['completed', 'cancelled', 'open']);
    expect(view.handle_required).toBe(true);
    expect(await call(again, 'work_queue_claim_finish', { outcome: 'completed' })).toMatchObject({ ok: false, code: 'claim_scope_required' });
    expect(await call(again, 'work_queue_submit', { node: { payload: { x: 1 } } })).toMatchObject({ ok: false, code: 'claim_scope_required' });
    expect(intentFiles(second)).toEqual([]);

    // Files written behind the server's back fail the same way, before any handler runs.
    const tip = branchTip(repo);
    forgeIntent(second, later, 'work_queue_claim_finish', { outcome: 'completed' });
    forgeIntent(second, later, 'work_queue_claim_finish', { claim_handle: 'h3', outcome: 'completed' }, { scope: null });
    forgeIntent(second, later, 'work_queue_claim_finish', { claim_handle: 'c_foreign', outcome: 'completed' });
    const report = await processIntents(repo, later, second);
    expect(report.receipts.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['claim_scope_required', 'claim_scope_invalid', 'claim_scope_invalid']);
    expect(branchTip(repo)).toBe(tip);
  });
});

describe('a worker\'s intents need its native run (operator reference: "Assignment input alone does not authorize effects")', () => {
  it('snapshot --role worker without --run-id is option_missing; a snapshot without a run (written by an older Fairway) settles nothing: run_context_missing, the branch does not move', async () => {
    const { repo, dir } = await oneBoundWorker('fairway-norun-', '601');
    const file = join(dir, readdirAssignments(dir));
    const refused = await cli('--repo', repo, 'snapshot', '--role', 'worker', '--assignment', file, '--out', join(dir, 'blind.json'));
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('option_missing');
    expect(existsSync(join(dir, 'blind.json'))).toBe(false);

    const { snapshot: blindSnapshot } = await captureSnapshot({ store: new LocalGitStore({ repo }), branch: 'work-queue', role: 'worker', assignment: readJson(file), principal: PRINCIPAL, nativeRun: null, now: Date.now() });
    const blind = writeJson(dir, 'blind-older.json', blindSnapshot);
    const intents = join(dir, 'blind');
    const client = await memoryClient(blind, intents);
    await call(client, 'work_queue_claim_finish', { outcome: 'completed' });
    await call(client, 'work_queue_submit', { node: { payload: { plan: 'child' } } });
    const tip = branchTip(repo);
    const report = await processIntents(repo, blind, intents);
    expect(report.receipts.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['run_context_missing', 'run_context_missing']);
    expect(branchTip(repo)).toBe(tip);

    const own = await snapshot(repo, 'worker', dir, ['--assignment', file, '--run-id', '601', '--run-attempt', '1']);
    const retried = join(dir, 'own');
    await call(await memoryClient(own, retried), 'work_queue_claim_finish', { outcome: 'completed' });
    expect((await processIntents(repo, own, retried)).receipts[0]).toMatchObject({ status: 'committed' });
  });
});

describe('concurrent finish calls (spec 7.14 "conflicting outcomes fail explicitly")', () => {
  it('two concurrent finishes with opposite outcomes: one is staged, the other is finish_conflict; the same outcome twice is one intent', async () => {
    const { dir, snap } = await oneBoundWorker('fairway-race-', '701');
    const intents = join(dir, 'race');
    const client = await memoryClient(snap, intents);
    const replies = await Promise.all([
      call(client, 'work_queue_claim_finish', { outcome: 'completed' }),
      call(client, 'work_queue_claim_finish', { outcome: 'cancelled' }),
    ]);
    expect(replies.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(replies.find((r) => !r.ok)).toMatchObject({ code: 'finish_conflict' });
    const same = await Promise.all([1, 2].map(() => call(client, 'work_queue_claim_finish', { outcome: replies[0]!.ok ? 'completed' : 'cancelled' })));
    expect(same.map((r) => r.ok)).toEqual([true, true]);
    expect(intentFiles(intents)).toHaveLength(1);
  });
});

/** A queue of one Work granted to one dispatch bound to `runId`, and that worker's snapshot. */
async function oneBoundWorker(prefix: string, runId: string): Promise<{ repo: string; dir: string; snap: string }> {
  const repo = makeRepo();
  const dir = tmp(prefix);
  await seedQueue(repo, nodes('p'));
  const [assignment] = await grant(repo, `grant-${runId}`, 1);
  return { repo, dir, snap: await workerSnapshot(repo, dir, assignment!, runId) };
}

function readdirAssignments(dir: string): string {
  return readdirSync(dir).find((n) => n.startsWith('assignment-'))!;
}
