/**
 * The spec 7.14 "Trusted resolution" table, row by row, through the whole
 * path: the MCP server stages (or rejects) the message, and the trusted
 * processor re-derives the same canonical handle from the original
 * assignment and publishes it in the Claim's own commit (worker actor scope).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.ts';
import {
  branchTip, call, cli, forgeIntent, grant, intentFiles, makeRepo, memoryClient, processIntents, publisherFor, readJson, seedQueue,
  tmp, workerSnapshot,
} from './helpers.ts';

let repo: string;
let dir: string;
const snaps: Record<'single1' | 'single2' | 'multi' | 'unbound', string> = { single1: '', single2: '', multi: '', unbound: '' };
const groups: Record<string, JsonObject | undefined> = {};

beforeAll(async () => {
  repo = makeRepo();
  dir = tmp('fairway-714-');
  await seedQueue(repo, ['s1', 's2', 'm1', 'm2', 'm3', 'u1'].map((k) => ({ node_key: k, payload: { plan: k } })), { maxClaims: 3 });
  [groups.single1] = await grant(repo, 'g-single-1', 1);
  [groups.single2] = await grant(repo, 'g-single-2', 1);
  [groups.multi] = await grant(repo, 'g-multi', 3);
  [groups.unbound] = await grant(repo, 'g-unbound', 1);
  snaps.single1 = await workerSnapshot(repo, dir, groups.single1!, '501');
  snaps.single2 = await workerSnapshot(repo, dir, groups.single2!, '502');
  snaps.multi = await workerSnapshot(repo, dir, groups.multi!, '503');
  snaps.unbound = await workerSnapshot(repo, dir, groups.unbound!, '504', false);
});

async function committedActor(requestId: string): Promise<Record<string, unknown>> {
  const { projection } = await publisherFor(repo).cache.load();
  const commit = JSON.parse(projection!.commitText(projection!.request(requestId)!.commitId)!);
  return commit.actor;
}

function stagedScope(intents: string): Record<string, unknown> {
  return readJson(join(intents, intentFiles(intents)[0]!)).scope;
}

describe('spec 7.14 trusted resolution, through the MCP server and the trusted processor', () => {
  it('one Claim, selector omitted: the sole handle is attached automatically and persisted', async () => {
    const intents = join(dir, 'row1');
    const client = await memoryClient(snaps.single1, intents);
    expect((await call(client, 'work_queue_claim_finish', { outcome: 'completed' })).value).toMatchObject({ status: 'staged', claim_handle: 'h1' });
    expect(stagedScope(intents)).toMatchObject({ claim_handle: 'h1', resolution: 'sole', dispatch_id: groups.single1!.dispatch_id });
    const report = await processIntents(repo, snaps.single1, intents);
    expect(report.receipts[0]).toMatchObject({ status: 'committed', claim_handle: 'h1', outcome: 'completed' });
    expect(await committedActor(report.receipts[0].request_id)).toMatchObject({ role: 'worker', claim_handle: 'h1', dispatch_id: groups.single1!.dispatch_id, run_id: '501', run_attempt: 1 });
  });

  it('one Claim, correct explicit selector: that handle is preserved', async () => {
    const intents = join(dir, 'row2');
    const client = await memoryClient(snaps.single2, intents);
    expect((await call(client, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'cancelled' })).value.claim_handle).toBe('h1');
    expect(stagedScope(intents)).toMatchObject({ claim_handle: 'h1', resolution: 'explicit' });
    const report = await processIntents(repo, snaps.single2, intents);
    expect(report.receipts[0]).toMatchObject({ status: 'committed', claim_handle: 'h1', outcome: 'cancelled' });
    expect(await committedActor(report.receipts[0].request_id)).toMatchObject({ claim_handle: 'h1', run_id: '502' });
  });

  it('several Claims, valid explicit selector: that member\'s handle is preserved', async () => {
    const intents = join(dir, 'row3');
    const client = await memoryClient(snaps.multi, intents);
    expect((await call(client, 'work_queue_claim_finish', { claim_handle: 'h2', outcome: 'completed' })).value.claim_handle).toBe('h2');
    const report = await processIntents(repo, snaps.multi, intents);
    const claims = groups.multi!.claims as Array<{ claim_id: string }>;
    expect(report.receipts[0]).toMatchObject({ status: 'committed', claim_handle: 'h2', claim_id: claims[1]!.claim_id });
    const { projection } = await publisherFor(repo).cache.load();
    expect(claims.map((c) => projection!.claim(c.claim_id)!.state)).toEqual(['open', 'completed', 'open']);
  });

  it('several Claims, selector omitted: claim_scope_required, even once only one Claim is left open', async () => {
    const intents = join(dir, 'row4');
    const client = await memoryClient(snaps.multi, intents);
    expect(await call(client, 'work_queue_claim_finish', { outcome: 'completed' })).toMatchObject({ ok: false, code: 'claim_scope_required' });
    expect(await call(client, 'work_queue_dispatch_next', { pool: 'default' })).toMatchObject({ ok: false, code: 'claim_scope_required' });
    expect(intentFiles(intents)).toEqual([]);
  });

  it('unknown, malformed, foreign or conflicting selector: claim_scope_invalid, never the sole/first/current handle', async () => {
    const intents = join(dir, 'row5');
    const client = await memoryClient(snaps.multi, intents);
    const multiClaims = groups.multi!.claims as Array<{ claim_id: string }>;
    for (const selector of ['h4', '', 'H1', multiClaims[0]!.claim_id, 'h1 ']) {
      expect(await call(client, 'work_queue_claim_finish', { claim_handle: selector, outcome: 'completed' }), selector).toMatchObject({ ok: false, code: 'claim_scope_invalid' });
    }
    expect(await call(client, 'work_queue_claim_finish', { claim_handle: null, outcome: 'completed' })).toMatchObject({ ok: false, code: 'claim_scope_invalid' });
    expect(intentFiles(intents)).toEqual([]);
    // A staged scope that does not match the selector (a conflicting attribution) is rejected by the processor.
    const planted = join(dir, 'row5-planted');
    const foreignScope = { dispatch_id: groups.single1!.dispatch_id, claim_handle: 'h1', claim_id: (groups.single1!.claims as Array<{ claim_id: string }>)[0]!.claim_id, work_id: 'w', resolution: 'explicit' };
    forgeIntent(planted, snaps.multi, 'work_queue_claim_finish', { claim_handle: 'h1', outcome: 'completed' }, { scope: foreignScope });
    forgeIntent(planted, snaps.multi, 'work_queue_claim_finish', { claim_handle: 'h9', outcome: 'completed' });
    const tip = branchTip(repo);
    const report = await processIntents(repo, snaps.multi, planted);
    expect(report.receipts.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['claim_scope_invalid', 'claim_scope_invalid']);
    expect(branchTip(repo)).toBe(tip);
  });

  it('missing or invalid assignment or native binding: worker authorization is rejected, no unassigned execution', async () => {
    const missing = await cli('--repo', repo, 'snapshot', '--role', 'worker', '--out', join(dir, 'no-assignment.json'));
    expect(missing).toMatchObject({ code: 3, json: { ok: false, error: { code: 'assignment_missing' } } });

    const intents = join(dir, 'row6');
    const client = await memoryClient(snaps.unbound, intents);
    expect((await call(client, 'work_queue_claim_finish', { outcome: 'completed' })).value.status).toBe('staged');
    const tip = branchTip(repo);
    const report = await processIntents(repo, snaps.unbound, intents);
    expect(report.receipts).toMatchObject([{ status: 'rejected', claim_handle: 'h1', error: { code: 'run_binding_missing' } }]);
    expect(branchTip(repo)).toBe(tip);
  });
});
